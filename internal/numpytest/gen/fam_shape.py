"""Views, constructors, matrix products and error cases."""

import warnings
from fractions import Fraction

import numpy as np

from numerics import T, sample, round_float, round_fraction, generated, b64, stored_bytes
from tree import Node, Case, Input, Reject
from golden import Family
from shapes import TreeBuilder, rand_shape, TODAY
from fam_reduce import fsum_ieee

VIEW_OPS = ('Transpose', 'Permute', 'Step', 'Slice', 'Reshape')


def scalar_attr(v, t):
    return b64(stored_bytes(np.array([v], dtype=T(t).np), t))


# ------------------------------------------------------------------ views

def views(seed, per=35):
    """gpuarr's views and copies as results: chains of Transpose, Permute,
    Step (negative steps), Slice and Reshape (with -1), read back directly
    and through Clone; Full, Zeros and Ones."""
    fam = Family('views', seed)
    rng = fam.rng
    for t in TODAY:
        for _ in range(per):
            case = Case(rng, 'view')
            shape = rand_shape(rng, max_elems=48)
            node = case.leaf(t, shape, max_ops=4)
            if node.op == 'in':
                node = Node('Transpose', t, t, [node])
            if rng.random() < 0.3:
                node = Node('Clone', t, t, [node])
            case.fn = node.op
            fam.add_tree(case, node)
        for v in list(sample(rng, t, 6, 'general')) + [0, 1]:
            case = Case(rng, 'Full')
            shape = rand_shape(rng, max_elems=40)
            v = T(t).np.type(v)
            want = np.full(shape, v, dtype=T(t).np)
            fam.add(case, Node('Full', t, t, [], {'shape': list(shape), 'v': scalar_attr(v, t)}), [(want, t)])
        for fn, val in (('Zeros', 0), ('Ones', 1)):
            case = Case(rng, fn)
            shape = rand_shape(rng, max_elems=40)
            fam.add(case, Node(fn, t, t, [], {'shape': list(shape)}), [(np.full(shape, val, dtype=T(t).np), t)])
    return fam


def views_new(seed, per=5):
    """The view and constructor functions being added (pending until they
    land): Python slicing, Squeeze, ExpandDims, Reshape of a strided view,
    Ravel, BroadcastTo, Flip, Roll, Diagonal, Triu, Tril, Eye, Arange,
    Linspace and the Like constructors."""
    fam = Family('views_new', seed)
    rng = fam.rng
    types = TODAY + ['float16', 'bfloat16', 'bool', 'complex64', 'complex128']

    def leaf_of(case, t, shape, **kw):
        return case.leaf(t, shape, **kw)

    for t in types:
        tt = T(t)
        cnt = per if t in TODAY else 2
        for _ in range(cnt):
            # PySlice: Python's slice semantics on any axis
            case = Case(rng, 'PySlice')
            shape = rand_shape(rng, min_rank=1)
            x = case.leaf(t, shape, max_ops=2)
            xv = case.evaluate(x)
            ax = int(rng.integers(xv.ndim))
            ext = xv.shape[ax]
            s = int(rng.choice([-3, -2, -1, 1, 2]))
            start = None if rng.random() < 0.2 else int(rng.integers(-ext - 2, ext + 2))
            stop = None if rng.random() < 0.2 else int(rng.integers(-ext - 2, ext + 2))
            node = Node('PySlice', t, t, [x], {'axis': ax - xv.ndim if rng.random() < 0.3 else ax,
                                                'start': start, 'stop': stop, 'step': s})
            idx = [slice(None)] * xv.ndim
            idx[ax] = slice(start, stop, s)
            fam.add(case, node, [(xv[tuple(idx)], t)])

            # Squeeze
            case = Case(rng, 'Squeeze')
            shape = tuple(1 if rng.random() < 0.4 else d for d in rand_shape(rng, min_rank=1))
            x = case.leaf(t, shape)
            ones = [i for i, d in enumerate(shape) if d == 1]
            if ones and rng.random() < 0.6:
                axes = sorted(int(a) for a in rng.choice(ones, size=int(rng.integers(1, len(ones) + 1)), replace=False))
                k = {'axis': axes}
                want = np.squeeze(case.evaluate(x), axis=tuple(axes))
            else:
                k = {}
                want = np.squeeze(case.evaluate(x))
            fam.add(case, Node('Squeeze', t, t, [x], k), [(want, t)])

            # ExpandDims
            case = Case(rng, 'ExpandDims')
            shape = rand_shape(rng, max_rank=3)
            x = case.leaf(t, shape)
            ax = int(rng.integers(-len(shape) - 1, len(shape) + 1))
            fam.add(case, Node('ExpandDims', t, t, [x], {'axis': ax}), [(np.expand_dims(case.evaluate(x), ax), t)])

            # Reshape of a strided view (NumPy copies)
            case = Case(rng, 'ReshapeStrided')
            shape = rand_shape(rng, min_rank=2, empty=0)
            base = case.leaf(t, shape[::-1], views=False)
            x = Node('Transpose', t, t, [base])
            xv = case.evaluate(x)
            n = xv.size
            target = [n] if rng.random() < 0.4 else [-1, shape[-1]] if rng.random() < 0.5 else [shape[-1], -1]
            fam.add(case, Node('ReshapeStrided', t, t, [x], {'shape': target}), [(xv.reshape(target), t)])

            # Ravel
            case = Case(rng, 'Ravel')
            x = case.leaf(t, rand_shape(rng))
            fam.add(case, Node('Ravel', t, t, [x]), [(np.ravel(case.evaluate(x)), t)])

            # BroadcastTo
            case = Case(rng, 'BroadcastTo')
            out = rand_shape(rng, min_rank=1)
            src = tuple(1 if rng.random() < 0.5 else d for d in out[int(rng.integers(0, len(out) + 1)):])
            x = case.leaf(t, src)
            fam.add(case, Node('BroadcastTo', t, t, [x], {'shape': list(out)}),
                    [(np.broadcast_to(case.evaluate(x), out), t)])

            # Flip
            case = Case(rng, 'Flip')
            shape = rand_shape(rng, min_rank=1)
            x = case.leaf(t, shape)
            if rng.random() < 0.3:
                k, want = {}, np.flip(case.evaluate(x))
            else:
                axes = sorted(int(a) for a in rng.choice(len(shape), size=int(rng.integers(1, len(shape) + 1)), replace=False))
                k, want = {'axis': axes}, np.flip(case.evaluate(x), axis=tuple(axes))
            fam.add(case, Node('Flip', t, t, [x], k), [(want, t)])

            # Roll
            case = Case(rng, 'Roll')
            shape = rand_shape(rng, min_rank=1)
            x = case.leaf(t, shape)
            shift = int(rng.integers(-7, 8))
            if rng.random() < 0.3:
                k, want = {'shift': shift}, np.roll(case.evaluate(x), shift)
            else:
                ax = int(rng.integers(len(shape)))
                k, want = {'shift': shift, 'axis': ax}, np.roll(case.evaluate(x), shift, axis=ax)
            fam.add(case, Node('Roll', t, t, [x], k), [(want, t)])

            # Diagonal
            case = Case(rng, 'Diagonal')
            shape = rand_shape(rng, min_rank=2, max_rank=3)
            x = case.leaf(t, shape)
            off = int(rng.integers(-3, 4))
            a1, a2 = [int(a) for a in rng.choice(len(shape), size=2, replace=False)]
            want = np.diagonal(case.evaluate(x), off, a1, a2)
            fam.add(case, Node('Diagonal', t, t, [x], {'offset': off, 'axis1': a1, 'axis2': a2}), [(want, t)])

            # Triu, Tril
            for fn, f in (('Triu', np.triu), ('Tril', np.tril)):
                case = Case(rng, fn)
                shape = rand_shape(rng, min_rank=2, max_rank=3)
                x = case.leaf(t, shape)
                kk = int(rng.integers(-3, 4))
                fam.add(case, Node(fn, t, t, [x], {'k': kk}), [(f(case.evaluate(x), kk), t)])

            # Like constructors
            for fn in ('ZerosLike', 'OnesLike', 'FullLike'):
                case = Case(rng, fn)
                x = case.leaf(t, rand_shape(rng))
                xv = case.evaluate(x)
                k = {}
                if fn == 'FullLike':
                    v = sample(rng, t, 1)[0]
                    k['v'] = scalar_attr(v, t)
                    want = np.full(xv.shape, v, dtype=tt.np)
                else:
                    want = (np.zeros_like if fn == 'ZerosLike' else np.ones_like)(xv)
                fam.add(case, Node(fn, t, t, [x], k), [(want, t)])

            # Eye
            case = Case(rng, 'Eye')
            n, m, kk = int(rng.integers(0, 6)), int(rng.integers(0, 6)), int(rng.integers(-3, 4))
            fam.add(case, Node('Eye', t, t, [], {'n': n, 'm': m, 'k': kk}), [(np.eye(n, m, kk, dtype=tt.np), t)])

        # Arange and Linspace
        if tt.kind in 'iuf':
            for _ in range(cnt):
                case = Case(rng, 'Arange')
                if tt.is_int():
                    i = tt.info()
                    start = int(rng.integers(max(i.min, -20), min(i.max, 20)))
                    step = int(rng.choice([1, 2, 3, -1, -2] if i.min < 0 else [1, 2, 3]))
                    stop = start + step * int(rng.integers(0, 12)) + int(rng.integers(0, abs(step)))
                    stop = max(min(stop, int(i.max)), int(i.min))
                else:
                    start = float(rng.integers(-10, 10)) + float(rng.choice([0, 0.5, 0.25]))
                    step = float(rng.choice([0.5, 0.25, 1.0, 2.0, -0.5, -1.0]))
                    stop = start + step * int(rng.integers(0, 12)) + step * 0.5
                want = np.arange(start, stop, step, dtype=tt.np)
                fam.add(case, Node('Arange', t, t, [], {'start': start, 'stop': stop, 'step': step}), [(want, t)])
            if tt.is_float():
                for _ in range(cnt):
                    case = Case(rng, 'Linspace')
                    start, stop = float(rng.uniform(-10, 10)), float(rng.uniform(-10, 10))
                    num = int(rng.integers(0, 12))
                    endpoint = bool(rng.random() < 0.7)
                    want = round_float(np.linspace(start, stop, num, endpoint=endpoint, dtype=np.float64), t)
                    fam.add(case, Node('Linspace', t, t, [], {'start': start, 'stop': stop, 'num': num,
                                                               'endpoint': endpoint}), [(want, t)])
    return fam


# ---------------------------------------------------------------- matmul

def exact_dot_rows(a, b, t):
    """a @ b with every result element the exact sum of exact products,
    rounded once to t (IEEE rules for infinities and NaN)."""
    tt = T(t)
    a64, b64_ = a.astype(np.float64), b.astype(np.float64)
    m, k = a64.shape
    n = b64_.shape[1]
    out = np.empty((m, n), dtype=np.float64)
    big = m * n * k > 200000
    for i in range(m):
        for j in range(n):
            x, y = a64[i], b64_[:, j]
            if tt.name == 'float64' and not big and np.isfinite(x).all() and np.isfinite(y).all():
                q = sum((Fraction(float(u)) * Fraction(float(v)) for u, v in zip(x, y)), Fraction(0))
                out[i, j] = round_fraction(q, tt) if q != 0 else 0.0
                continue
            with np.errstate(all='ignore'):
                p = x * y
            if tt.name == 'float64' and big:
                out[i, j] = float((x.astype(np.longdouble) * y.astype(np.longdouble)).sum())
            else:
                out[i, j] = fsum_ieee(p)
    return round_float(out, tt) if tt.name != 'float64' else out


def matmul_ref(a, b, t):
    """np.matmul semantics (1-D operands, broadcast batches) with exact
    element sums; also |a|@|b| for the error bound."""
    a, b = np.asarray(a), np.asarray(b)
    va, vb = a.ndim == 1, b.ndim == 1
    A = a[None, :] if va else a
    B = b[:, None] if vb else b
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A = np.broadcast_to(A, batch + A.shape[-2:])
    B = np.broadcast_to(B, batch + B.shape[-2:])
    m, n = A.shape[-2], B.shape[-1]
    out = np.empty(batch + (m, n), dtype=T(t).np)
    scale = np.empty(batch + (m, n), dtype=np.float64)
    for idx in np.ndindex(*batch) if batch else [()]:
        out[idx] = exact_dot_rows(A[idx], B[idx], t)
        scale[idx] = np.abs(A[idx].astype(np.float64)) @ np.abs(B[idx].astype(np.float64))
    if va:
        out, scale = out[..., 0, :], scale[..., 0, :]
    if vb:
        out, scale = out[..., 0], scale[..., 0]
    return out, scale


def mat_leaf(case, t, shape, layout, profile):
    """A 2-D operand of the given shape laid out as: 'c' contiguous, 't' a
    transposed view, 'p' rows with a pitch (a column Step of a wider
    array), 'tp' a transposed pitched view, 's' a row Slice."""
    m, k = shape
    if layout == 'c':
        return case.leaf(t, shape, profile, views=False)
    if layout == 't':
        return Node('Transpose', t, t, [case.leaf(t, (k, m), profile, views=False)])
    if layout == 'p':
        base = case.leaf(t, (m, k + 3), profile, views=False)
        return Node('Step', t, t, [base], {'axis': 1, 'start': 0, 'stop': k, 'step': 1})
    if layout == 'tp':
        base = case.leaf(t, (k, m + 2), profile, views=False)
        v = Node('Step', t, t, [base], {'axis': 1, 'start': 1, 'stop': m + 1, 'step': 1})
        return Node('Transpose', t, t, [v])
    base = case.leaf(t, (m + 3, k), profile, views=False)
    return Node('Slice', t, t, [base], {'i': 2, 'j': 2 + m})


def with_specials(case, rng):
    """Puts infinities or NaN in the operands (and no zeros, whose product
    with an infinity some BLAS libraries skip)."""
    for i, v in enumerate(case.inputs):
        v = np.array(v, copy=True)
        v[v == 0] = 1
        if i == 0:
            v.flat[int(rng.integers(v.size))] = [np.inf, -np.inf, np.nan][rng.integers(3)]
        case.set_input(i, v)


def matmul(seed, per=40):
    fam = Family('matmul', seed)
    rng = fam.rng
    for t in ('float32', 'float64'):
        for c in range(per):
            case = Case(rng, 'Matmul')
            m, k, n = (int(rng.integers(0 if c % 8 == 0 else 1, 9)) for _ in range(3))
            la, lb = rng.choice(['c', 't', 'p', 'tp', 's']), rng.choice(['c', 't', 'p', 'tp', 's'])
            a = mat_leaf(case, t, (m, k), la, 'moderate')
            b = mat_leaf(case, t, (k, n), lb, 'moderate')
            if rng.random() < 0.15 and m * k * n:
                with_specials(case, rng)
            want, scale = matmul_ref(case.evaluate(a), case.evaluate(b), t)
            fam.add(case, Node('Matmul', t, t, [a, b]), [(want, t)], n=k, scale=scale)
        # larger products on generated inputs
        for (m, k, n) in [(64, 200, 48), (33, 129, 65)]:
            case = Case(rng, 'Matmul')
            sa = {'seed': int(rng.integers(1 << 62)), 'lo': -1, 'hi': 1}
            sb = {'seed': int(rng.integers(1 << 62)), 'lo': -1, 'hi': 1}
            ia = case.add_input(generated(sa, t, m * k).reshape(m, k), t, gen=sa)
            ib = case.add_input(generated(sb, t, k * n).reshape(k, n), t, gen=sb)
            a, b = Input(ia, t), Input(ib, t)
            want, scale = matmul_ref(case.inputs[ia], case.inputs[ib], t)
            fam.add(case, Node('Matmul', t, t, [a, b]), [(want, t)], n=k, scale=scale)
    # being added: 1-D and batched operands, other strides, Dot, Outer, Einsum,
    # half and complex types
    for t in ('float32', 'float64', 'float16', 'bfloat16', 'complex64', 'complex128'):
        cnt = 6 if t in ('float32', 'float64') else 3
        for _ in range(cnt):
            for fn, sa, sb in [('Matmul1D', (5,), (5, 3)), ('Matmul1D', (4, 6), (6,)), ('Matmul1D', (7,), (7,)),
                               ('MatmulBatched', (3, 4, 5), (5, 2)), ('MatmulBatched', (2, 3, 4), (2, 4, 5)),
                               ('MatmulBatched', (2, 1, 3, 4), (3, 4, 2)), ('MatmulBatched', (4, 3), (2, 3, 5)),
                               ('MatmulBatched', (0, 2, 3), (3, 4))]:
                case = Case(rng, fn)
                a = case.leaf(t, sa, 'moderate', max_ops=2)
                b = case.leaf(t, sb, 'moderate', max_ops=2)
                want, scale = matmul_ref_any(case.evaluate(a), case.evaluate(b), t)
                k = sa[-1]
                fam.add(case, Node(fn, t, t, [a, b]), [(want, t)], n=k, scale=scale)
            # a stepped (not BLAS-layout) operand
            case = Case(rng, 'MatmulStrided')
            base = case.leaf(t, (8, 6), 'moderate', views=False)
            a = Node('Step', t, t, [base], {'axis': 1, 'start': 5, 'stop': -1, 'step': -2})
            b = case.leaf(t, (3, 4), 'moderate')
            want, scale = matmul_ref_any(case.evaluate(a), case.evaluate(b), t)
            fam.add(case, Node('MatmulStrided', t, t, [a, b]), [(want, t)], n=3, scale=scale)
            # Dot, Outer
            for fn, sa, sb in [('Dot', (6,), (6,)), ('Dot', (3, 4), (4, 2)), ('Dot', (3, 4), (4,)), ('Outer', (4,), (3,)),
                               ('Outer', (2, 2), (3,))]:
                case = Case(rng, fn)
                a = case.leaf(t, sa, 'moderate')
                b = case.leaf(t, sb, 'moderate')
                av, bv = case.evaluate(a), case.evaluate(b)
                if fn == 'Outer':
                    want = outer_ref(av, bv, t)
                    fam.add(case, Node(fn, t, t, [a, b]), [(want, t)])
                else:
                    want, scale = matmul_ref_any(av, bv, t)
                    fam.add(case, Node(fn, t, t, [a, b]), [(want, t)], n=sa[-1], scale=scale)
            # Einsum for contractions that are (batched) products
            for sub, sa, sb in [('ij,jk->ik', (3, 4), (4, 5)), ('ij,kj->ik', (3, 4), (5, 4)),
                                ('bij,bjk->bik', (2, 3, 4), (2, 4, 2)), ('i,i->', (5,), (5,)),
                                ('ij,j->i', (3, 4), (4,)), ('ji,jk->ik', (4, 3), (4, 2)), ('i,j->ij', (3,), (2,))]:
                case = Case(rng, 'Einsum')
                a = case.leaf(t, sa, 'moderate')
                b = case.leaf(t, sb, 'moderate')
                av, bv = case.evaluate(a), case.evaluate(b)
                want, scale, k = einsum_ref(sub, av, bv, t)
                fam.add(case, Node('Einsum', t, t, [a, b], {'subscripts': sub}), [(want, t)], n=k, scale=scale)
    return fam


def matmul_ref_any(a, b, t):
    tt = T(t)
    if tt.is_complex():
        w = np.matmul(a.astype(np.clongdouble), b.astype(np.clongdouble))
        part = tt.part
        want = (round_float(w.real.astype(np.float64), part).astype(np.float64) +
                1j * round_float(w.imag.astype(np.float64), part).astype(np.float64)).astype(tt.np)
        scale = np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
        return want, scale
    return matmul_ref(a, b, t)


def outer_ref(a, b, t):
    tt = T(t)
    if tt.is_complex():
        return np.outer(a.astype(np.complex128), b.astype(np.complex128)).astype(tt.np)
    return round_float(np.outer(a.astype(np.float64), b.astype(np.float64)), tt)


def einsum_ref(sub, a, b, t):
    tt = T(t)
    lhs, out = sub.split('->')
    sa, sb = lhs.split(',')
    k = 1
    for ch in set(sa) & set(sb):
        if ch not in out:
            k *= a.shape[sa.index(ch)]
    if tt.is_complex():
        w = np.einsum(sub, a.astype(np.clongdouble), b.astype(np.clongdouble))
        part = tt.part
        want = (round_float(np.real(w).astype(np.float64), part).astype(np.float64) +
                1j * round_float(np.imag(w).astype(np.float64), part).astype(np.float64)).astype(tt.np)
    else:
        w = np.einsum(sub, a.astype(np.longdouble), b.astype(np.longdouble))
        want = round_float(np.asarray(w, dtype=np.float64), tt)
    scale = np.einsum(sub, np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    return np.asarray(want), np.asarray(scale), k


# ---------------------------------------------------------------- errors

def errors(seed):
    """Inputs NumPy refuses, and gpuarr refuses with the sentinel named."""
    fam = Family('errors', seed)
    rng = fam.rng

    def add(fn, node, case, numpy_call, err):
        try:
            with np.errstate(all='ignore'), warnings.catch_warnings():
                warnings.simplefilter('ignore')
                numpy_call()
        except (ValueError, IndexError, TypeError) as e:
            fam.add(case, node, err=err, note='NumPy: %s' % type(e).__name__)
            return
        raise AssertionError('NumPy accepted the error case %s' % fn)

    for t in ('float32', 'int32', 'uint8', 'float64'):
        # binary operations on shapes that do not broadcast
        for sa, sb in [((3, 4), (2, 4)), ((3,), (4,)), ((2, 3, 4), (3, 3)), ((0,), (2,)), ((5, 1), (4, 3, 2))]:
            for op in ('Add', 'Mul', 'Less'):
                case = Case(rng, op)
                a, b = case.leaf(t, sa), case.leaf(t, sb)
                r = 'bool' if op == 'Less' else t
                add(op, Node(op, t, r, [a, b]), case, lambda: np.add(case.evaluate(a), case.evaluate(b)), 'ErrShape')
        case = Case(rng, 'Where')
        m = Node('Less', t, 'bool', [case.leaf(t, (3,)), case.leaf(t, (3,))])
        x, y = case.leaf(t, (2, 4)), case.leaf(t, (4,))
        add('Where', Node('Where', t, t, [m, x, y]), case,
            lambda: np.where(np.zeros(3, bool), np.zeros((2, 4)), np.zeros(4)), 'ErrShape')
        # Reshape to another element count, two -1
        for shape, target in [((3, 4), [5, 2]), ((3, 4), [-1, -1]), ((3, 4), [5, -1]), ((0, 3), [-1, 0])]:
            case = Case(rng, 'Reshape')
            x = case.leaf(t, shape, views=False)
            add('Reshape', Node('Reshape', t, t, [x], {'shape': target}), case,
                lambda: np.zeros(shape).reshape(target), 'ErrShape')
        # Permute with axes that are not a permutation
        for shape, axes in [((2, 3), [0, 0]), ((2, 3, 4), [0, 1]), ((2, 3), [0, 2])]:
            case = Case(rng, 'Permute')
            x = case.leaf(t, shape, views=False)
            add('Permute', Node('Permute', t, t, [x], {'axes': axes}), case,
                lambda: np.transpose(np.zeros(shape), axes), 'ErrShape')
        # reductions: an axis out of range, an axis twice, ArgMin of two axes
        red = 'Sum' if T(t).is_float() else 'Max'
        for shape, axes, err in [((3, 4), [2], 'ErrShape'), ((3, 4), [-3], 'ErrShape'), ((3, 4), [0, 0], 'ErrArgument'),
                                 ((3, 4), [1, -1], 'ErrArgument'), ((), [0], 'ErrShape')]:
            case = Case(rng, red)
            x = case.leaf(t, shape, views=False)
            add(red, Node(red, t, t, [x], {'axis': axes}), case,
                lambda: np.sum(np.zeros(shape), axis=tuple(axes)), err)
        case = Case(rng, 'ArgMax')
        x = case.leaf(t, (3, 4), views=False)
        add('ArgMax', Node('ArgMax', t, 'int64', [x], {'axis': [0, 1]}), case,
            lambda: np.argmax(np.zeros((3, 4)), axis=(0, 1)), 'ErrArgument')
        # Min, Max, ArgMin of no elements
        for fn, shape, axes in [('Min', (0,), None), ('Max', (2, 0), [1]), ('ArgMin', (0, 3), None), ('ArgMax', (0,), None)]:
            case = Case(rng, fn)
            x = case.leaf(t, shape, views=False)
            k = {} if axes is None else {'axis': axes}
            r = 'int64' if fn.startswith('Arg') else t
            f = {'Min': np.min, 'Max': np.max, 'ArgMin': np.argmin, 'ArgMax': np.argmax}[fn]
            add(fn, Node(fn, t, r, [x], k), case, lambda: f(np.zeros(shape), axis=None if axes is None else axes[0]),
                'ErrShape')
    for t in ('float32', 'float64'):
        for sa, sb in [((3, 4), (5, 2)), ((2, 3), (2, 3)), ((0, 3), (2, 2))]:
            case = Case(rng, 'Matmul')
            a, b = case.leaf(t, sa, views=False), case.leaf(t, sb, views=False)
            add('Matmul', Node('Matmul', t, t, [a, b]), case, lambda: np.matmul(np.zeros(sa), np.zeros(sb)), 'ErrShape')
    return fam


# ---------------------------------------------------------------- EvalInto

def evalinto(seed, per=8):
    """EvalInto(dst, e): e computed into an existing array, NumPy's
    np.<op>(..., out=dst). EvalInto cases read dst itself in e (in place:
    y = y*2 + x); EvalIntoOverlap cases read another view of dst's memory
    (its transpose or its reverse), where NumPy's answer is the one
    computed before any element is written."""
    fam = Family('evalinto', seed)
    rng = fam.rng
    for t in TODAY:
        for k in range(per):
            overlap = k % 4 == 3
            case = Case(rng, 'EvalIntoOverlap' if overlap else 'EvalInto')
            if overlap:
                # large enough that kernels write some elements before others read them
                m = int(rng.integers(40, 70))
                shape = (m, m) if rng.random() < 0.5 else (m * m,)
                tt = T(t)
                lo, hi = (-1000, 1000) if tt.kind != 'u' else (0, 1000)
                spec = {'seed': int(rng.integers(1 << 62)), 'lo': lo if tt.is_int() else float(lo),
                        'hi': hi if tt.is_int() else float(hi)}
                vals = generated(spec, t, int(np.prod(shape))).reshape(shape)
                dst = Input(case.add_input(vals, t, gen=spec), t)
                alias = Node('Transpose', t, t, [dst]) if len(shape) == 2 else \
                    Node('Step', t, t, [dst], {'axis': 0, 'start': shape[0] - 1, 'stop': -1, 'step': -1})
                other = case.leaf(t, (), 'small', views=False)
            else:
                shape = rand_shape(rng, min_rank=1, max_elems=40)
                dst = Input(case.add_input(np.asarray(sample(rng, t, int(np.prod(shape)), 'small')).reshape(shape), t), t)
                alias = dst
                try:
                    other = TreeBuilder(case, profile='small', allow_cast=False).build(t, shape, int(rng.integers(0, 3)))
                except Reject:
                    continue
            e = Node(['Add', 'Sub', 'Mul', 'Maximum'][rng.integers(4)], t, t, [alias, other])
            try:
                want = np.broadcast_to(case.evaluate(e), shape)
            except Reject:
                continue
            fam.add(case, Node(case.fn, t, t, [dst, e]), [(np.array(want), t)], zs=T(t).is_float())
    return fam
