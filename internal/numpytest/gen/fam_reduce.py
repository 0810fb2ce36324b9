"""Reductions: gpuarr's (Sum, Prod, Min, Max, Mean, ArgMin, ArgMax and the
As forms) over exact trees with any axes and KeepDims, and those being
added (Var, Std, Any, All, CountNonzero, the Nan forms, LogSumExp, Norm).

Float references are exact sums (math.fsum) rounded once, or long double
computations; the case records n (the elements per reduced group) and a
scale per result element (the sum of magnitudes the error of a summation
is proportional to) for the Go runner's bounds.
"""

import math
import warnings
from fractions import Fraction

import numpy as np

from numerics import T, FLOATS, REALS, COMPLEX, round_float, generated
from tree import Node, Case, Reject, Input, cast_values
from golden import Family
from shapes import TreeBuilder, rand_shape, TODAY

ARG = {'ArgMin', 'ArgMax'}
EMPTY_OK = {'Sum', 'Prod', 'SumAs', 'ProdAs', 'Any', 'All', 'CountNonzero', 'NanSum'}


def group_rows(x, axes):
    """x's groups: (result shape without kept axes, rows [groups, glen],
    glen, the reduced axes)."""
    x = np.asarray(x)
    nd = x.ndim
    ax = list(range(nd)) if axes is None else sorted(set(a % nd for a in axes))
    keep = [d for d in range(nd) if d not in ax]
    xt = np.transpose(x, keep + ax)
    outer = tuple(x.shape[d] for d in keep)
    glen = int(np.prod([x.shape[d] for d in ax])) if ax else 1
    groups = int(np.prod(outer)) if outer else 1
    return outer, xt.reshape(groups, glen), glen, ax


def result_shape(xshape, ax, keepdims):
    if keepdims:
        return tuple(1 if d in ax else e for d, e in enumerate(xshape))
    return tuple(e for d, e in enumerate(xshape) if d not in ax)


def fsum_ieee(v):
    v = np.asarray(v, dtype=np.float64)
    if np.isnan(v).any():
        return math.nan
    pinf, ninf = bool((v == np.inf).any()), bool((v == -np.inf).any())
    if pinf and ninf:
        return math.nan
    if pinf or ninf:
        return math.inf if pinf else -math.inf
    try:
        return math.fsum(v)
    except OverflowError:
        raise Reject('the float64 sum overflows')


def abs_sum(v):
    v = np.abs(np.asarray(v, dtype=np.float64))
    return math.fsum(v[np.isfinite(v)])


def wrap(n, t):
    """The Python integer n wrapped into the integer type t."""
    tt = T(t)
    m = n % (1 << tt.bits)
    if tt.kind == 'i' and m >= 1 << (tt.bits - 1):
        m -= 1 << tt.bits
    return m


def int_result(vals, t):
    return np.array(vals, dtype=object).astype(T(t).np)


def reference(fn, rows, t, r, k, glen):
    """Per group: the result value (as r's values) and the error scale."""
    tt, rt = T(t), T(r)
    out, scale = [], []
    ddof = k.get('ddof', 0)
    for row in rows:
        if fn in ('SumAs', 'ProdAs'):
            row = cast_values(row, t, r)
        src = rt if fn in ('SumAs', 'ProdAs') else tt
        if fn in ('Sum', 'SumAs'):
            if src.is_int():
                out.append(wrap(sum(int(v) for v in row), r))
                scale.append(0.0)
            else:
                out.append(fsum_ieee(row))
                scale.append(abs_sum(row))
        elif fn in ('Prod', 'ProdAs'):
            if src.is_int():
                p = 1
                for v in row:
                    p = (p * int(v)) % (1 << 64)
                out.append(wrap(p, r))
                scale.append(0.0)
            else:
                f = np.asarray(row, np.float64)
                fin = f[np.isfinite(f) & (f != 0)]
                if len(fin) and (np.abs(np.log2(np.abs(fin))).sum() > 900):
                    raise Reject('a product that could over- or underflow float64 in some order')
                p = math.prod(f.tolist()) if len(f) else 1.0
                out.append(p)
                scale.append(abs(p) if math.isfinite(p) else 0.0)
        elif fn in ('Min', 'Max'):
            out.append((np.min if fn == 'Min' else np.max)(row))
            scale.append(0.0)
        elif fn in ARG:
            out.append(int((np.argmin if fn == 'ArgMin' else np.argmax)(row)))
            scale.append(0.0)
        elif fn in ('Mean', 'MeanAs'):
            if tt.is_int():
                q = Fraction(sum(int(v) for v in row), glen)
                out.append(float(q))  # correctly rounded to float64
                scale.append(0.0)
            else:
                s = fsum_ieee(row)
                out.append(s / glen)
                scale.append(abs_sum(row) / glen)
        elif fn in ('Var', 'Std'):
            x = np.asarray(row, dtype=np.float64)
            if not np.isfinite(x).all():
                out.append(math.nan)
                scale.append(0.0)
                continue
            xl = x.astype(np.longdouble)
            m = xl.sum() / glen
            var = float(((xl - m) ** 2).sum() / (glen - ddof))
            out.append(math.sqrt(var) if fn == 'Std' else var)
            scale.append(math.fsum(x * x) / (glen - ddof))
        elif fn in ('Any', 'All'):
            out.append(bool((np.any if fn == 'Any' else np.all)(np.asarray(row) != 0)))
            scale.append(0.0)
        elif fn == 'CountNonzero':
            out.append(int(np.count_nonzero(row)))
            scale.append(0.0)
        elif fn in ('NanSum', 'NanMean'):
            x = np.asarray(row, dtype=np.float64)
            x = x[~np.isnan(x)]
            s = fsum_ieee(x)
            if fn == 'NanMean':
                out.append(s / len(x) if len(x) else math.nan)
                scale.append(abs_sum(x) / max(len(x), 1))
            else:
                out.append(s)
                scale.append(abs_sum(x))
        elif fn in ('NanMax', 'NanMin'):
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                out.append((np.nanmax if fn == 'NanMax' else np.nanmin)(row))
            scale.append(0.0)
        elif fn == 'LogSumExp':
            x = np.asarray(row, dtype=np.float64)
            if np.isnan(x).any():
                out.append(math.nan)
            elif (x == np.inf).any():
                out.append(math.inf)
            elif (x == -np.inf).all():
                out.append(-math.inf)
            else:
                xl = x.astype(np.longdouble)
                m = xl.max()
                out.append(float(m + np.log(np.exp(xl - m).sum())))
            scale.append(0.0)
        elif fn == 'Norm':
            x = np.abs(np.asarray(row, dtype=np.float64))
            o = k['ord']
            if np.isnan(x).any():
                out.append(math.nan)
            elif o == 'inf':
                out.append(float(x.max()) if len(x) else 0.0)
            elif o == 1:
                out.append(fsum_ieee(x))
            else:
                xl = x.astype(np.longdouble)
                out.append(float(np.sqrt((xl * xl).sum())))
            scale.append(abs_sum(x) if o == 1 else 0.0)
        else:
            raise KeyError(fn)
    if rt.is_int():
        return int_result(out, r), scale
    if rt.kind == 'b':
        return np.array(out, dtype=bool), scale
    return round_float(np.array(out, dtype=np.float64), rt), scale


def pick_axes(rng, nd, fn):
    if nd == 0 or rng.random() < 0.35:
        return None
    if fn in ARG or fn == 'Norm':
        a = int(rng.integers(nd))
        return [a - nd if rng.random() < 0.3 else a]
    m = int(rng.integers(1, nd + 1))
    ax = sorted(int(a) for a in rng.choice(nd, size=m, replace=False))
    return [a - nd if rng.random() < 0.3 else a for a in ax]


def result_type(fn, t, r=None):
    if fn in ARG or fn == 'CountNonzero':
        return 'int64'
    if fn in ('Any', 'All'):
        return 'bool'
    return r or t


PROFILE = {'Prod': 'moderate', 'ProdAs': 'moderate', 'Var': 'moderate', 'Std': 'moderate',
           'LogSumExp': 'moderate', 'Norm': 'moderate'}


def reduce_case(fam, fn, t, r=None, diff=None, views=True, depth=None, k=None, shape=None, profile=None,
                sprinkle_nan=False):
    """One reduction case of fn over an exact tree of type t (r: the result
    type of an As form). Rejected draws are retried."""
    for _ in range(30):
        try:
            return _reduce_case(fam, fn, t, r, diff, views, depth, k, shape, profile, sprinkle_nan)
        except Reject:
            continue
    return None


def _reduce_case(fam, fn, t, r, diff, views, depth, k, shape, profile, sprinkle_nan):
    rng = fam.rng
    case = Case(rng, fn)
    prof = profile or PROFILE.get(fn, 'general')
    if T(t).is_float() and T(t).name == 'float64' and fn in ('Sum', 'SumAs', 'Mean', 'MeanAs', 'NanSum', 'NanMean'):
        prof = profile or 'finite'
    sh = shape if shape is not None else rand_shape(rng, max_elems=60)
    b = TreeBuilder(case, profile=prof, views=views, allow_cast=(diff is None))
    if diff is not None or depth == 0:
        operand = case.leaf(t, sh, prof, views=views)
    else:
        operand = b.build(t, sh, depth if depth is not None else int(rng.integers(0, 3)))
    x = case.evaluate(operand)
    if sprinkle_nan and x.size:
        x = np.array(x, copy=True)
        # NaNs in the stored inputs: replace the operand by a leaf of x
        case = Case(rng, fn)
        flat = x.reshape(-1)
        flat[rng.random(flat.size) < 0.3] = np.nan
        if rng.random() < 0.3 and x.ndim:
            x[(0,) * (x.ndim - 1)] = np.nan  # an all-NaN group along the last axis
        i = case.add_input(x, t)
        operand = Input(i, t)
    if T(t).name == 'float64' and fn in ('Sum', 'SumAs', 'Mean', 'MeanAs', 'NanSum', 'NanMean', 'Norm'):
        f = np.abs(x[np.isfinite(x)]) if x.size else np.zeros(0)
        if f.size and f.max() > 1e300 / max(x.size, 1):
            raise Reject('float64 sums of huge values depend on the order')
    nd = x.ndim
    axes = pick_axes(rng, nd, fn)
    keep = bool(rng.random() < 0.3)
    attrs = dict(k or {})
    if axes is not None:
        attrs['axis'] = axes
    if keep:
        attrs['keepdims'] = True
    outer, rows, glen, ax = group_rows(x, axes)
    out_shape = result_shape(x.shape, ax, keep)
    rt = result_type(fn, t, r)
    node_t = r if fn in ('SumAs', 'ProdAs', 'MeanAs') else t
    node = Node(fn, node_t, rt, [operand], attrs)
    groups = rows.shape[0]
    if glen == 0 and groups > 0 and fn not in EMPTY_OK:
        if fn in ('Min', 'Max') or fn in ARG:
            fam.add(case, node, err='ErrShape', note='NumPy: ValueError (no identity)')
            return case
        raise Reject('empty groups: NaN in NumPy')
    if fn in ('Var', 'Std') and glen <= attrs.get('ddof', 0):
        raise Reject('too few elements for ddof')
    if diff == 'narrow-sum':
        with np.errstate(all='ignore'):
            want = (np.sum if fn == 'Sum' else np.prod)(x, axis=None if axes is None else tuple(axes), keepdims=keep)
        node.r = np.asarray(want).dtype.name
        fam.add(case, node, [(np.asarray(want), node.r)])
        fam.cases[-1]['diff'] = diff
        return case
    if diff == 'int-mean':
        want = np.mean(x, axis=None if axes is None else tuple(axes), keepdims=keep)
        fam.add(case, node, [(np.asarray(want, dtype=np.float64), 'float64')], diff=diff, n=glen)
        return case
    vals, scale = reference(fn, rows, t, rt, attrs, glen)
    vals = np.asarray(vals).reshape(out_shape)
    scale = np.asarray(scale, dtype=np.float64).reshape(out_shape)
    zs = fn in ('Sum', 'SumAs', 'Mean', 'MeanAs', 'Prod', 'ProdAs', 'NanSum', 'NanMean', 'Var', 'Std') \
        and T(rt).is_float()
    if fn in ('Min', 'Max', 'NanMin', 'NanMax') and T(rt).is_float():
        zs = True
    needs_scale = T(rt).is_float() and fn not in ('Min', 'Max', 'NanMin', 'NanMax') and fn not in ARG
    fam.add(case, node, [(vals, rt)], n=glen, scale=scale if needs_scale else None, zs=zs)
    return case


def large_case(fam, fn, t, shape, axes, r=None, lo=-1.0, hi=1.0, transpose=False):
    """A reduction over a generated input (SplitMix64 values the Go side
    recomputes): long groups exercise the partial-results path."""
    rng = fam.rng
    case = Case(rng, fn)
    n = int(np.prod(shape))
    spec = {'seed': int(rng.integers(1 << 62)), 'lo': lo, 'hi': hi}
    x = generated(spec, t, n).reshape(shape)
    i = case.add_input(x, t, gen=spec)
    operand = Input(i, t)
    if transpose:
        operand = Node('Transpose', t, t, [operand])
        x = np.transpose(x)
    attrs = {} if axes is None else {'axis': axes}
    outer, rows, glen, ax = group_rows(x, axes)
    rt = result_type(fn, t, r)
    node = Node(fn, r if fn in ('SumAs', 'ProdAs', 'MeanAs') else t, rt, [operand], attrs)
    vals, scale = reference(fn, rows, t, rt, attrs, glen)
    out_shape = result_shape(x.shape, ax, False)
    needs_scale = T(rt).is_float() and fn not in ('Min', 'Max') and fn not in ARG
    fam.add(case, node, [(np.asarray(vals).reshape(out_shape), rt)], n=glen,
            scale=np.asarray(scale).reshape(out_shape) if needs_scale else None,
            zs=T(rt).is_float())


def reductions(seed, per=16):
    fam = Family('reductions', seed)
    for t in REALS:
        cnt = per if t in TODAY else 4
        tt = T(t)
        fns = ['Min', 'Max', 'ArgMin', 'ArgMax']
        if tt.is_float() or tt.bits == 64:
            fns += ['Sum', 'Prod']
        if tt.is_float():
            fns += ['Mean']
        for fn in fns:
            for _ in range(cnt):
                reduce_case(fam, fn, t)
    # the As forms
    as_pairs = [('int8', 'int64'), ('int16', 'int64'), ('int32', 'int64'), ('uint8', 'uint64'), ('uint16', 'uint64'),
                ('uint32', 'uint64'), ('int8', 'int32'), ('uint8', 'uint8'), ('int16', 'int16'), ('int32', 'float64'),
                ('float32', 'float64'), ('float64', 'float32'), ('int64', 'float64'), ('uint16', 'int64'),
                ('float32', 'int64'), ('int8', 'float32')]
    for t, r in as_pairs:
        for fn in ('SumAs', 'ProdAs'):
            for _ in range(5):
                reduce_case(fam, fn, t, r=r, profile='small' if fn == 'ProdAs' or T(r).is_int() else None)
    for t in TODAY:
        for r in ('float64', 'float32'):
            for _ in range(4):
                reduce_case(fam, 'MeanAs', t, r=r)
    # long groups on generated inputs
    for t in ('float32', 'float64'):
        large_case(fam, 'Sum', t, (200000,), None)
        large_case(fam, 'Sum', t, (400, 300), [0])
        large_case(fam, 'Sum', t, (400, 300), [1], transpose=True)
        large_case(fam, 'Mean', t, (64, 1000), [1])
        large_case(fam, 'Sum', t, (30, 40, 50), [0, 2])
        large_case(fam, 'Max', t, (100000,), None)
        large_case(fam, 'ArgMin', t, (300, 200), [0])
        large_case(fam, 'Prod', t, (2000, 16), [0], lo=0.9, hi=1.1)
        large_case(fam, 'Sum', t, (200000,), None, lo=1.0, hi=1.5)
    large_case(fam, 'SumAs', 'int8', (300000,), None, r='int64', lo=-128, hi=127)
    large_case(fam, 'SumAs', 'int32', (500, 400), [1], r='int64', lo=-2 ** 31, hi=2 ** 31 - 1)
    large_case(fam, 'Sum', 'int64', (100000,), None, lo=-2 ** 62, hi=2 ** 62)
    large_case(fam, 'MeanAs', 'int32', (1000, 100), [0], r='float64', lo=-2 ** 31, hi=2 ** 31 - 1)
    large_case(fam, 'Min', 'uint16', (100000,), None, lo=0, hi=65535)
    return fam


def new_reductions(seed, per=6):
    """Reductions being added (pending on the Go side until they land)."""
    fam = Family('reductions_new', seed)
    for t in FLOATS:
        for fn, ks in [('Var', [{'ddof': 0}, {'ddof': 1}]), ('Std', [{'ddof': 0}, {'ddof': 1}]),
                       ('LogSumExp', [{}])]:
            for k in ks:
                for _ in range(per):
                    reduce_case(fam, fn, t, k=k)
        for _ in range(per * 4):
            norm_case(fam, t)
        for fn in ('NanSum', 'NanMean', 'NanMax', 'NanMin'):
            for _ in range(per):
                reduce_case(fam, fn, t, sprinkle_nan=True, depth=0)
    for t in REALS:
        for fn in ('Any', 'All', 'CountNonzero'):
            for _ in range(3):
                reduce_case(fam, fn, t, profile='small')
    for t in ('bool',):
        for fn in ('Any', 'All', 'CountNonzero'):
            for _ in range(4):
                reduce_case(fam, fn, t, depth=0)
    for t in COMPLEX:
        for fn in ('Sum', 'Mean', 'Prod'):
            for _ in range(4):
                complex_reduce(fam, fn, t)
    for t in ('float16', 'bfloat16'):
        for fn in ('Sum', 'Mean', 'Max'):
            for _ in range(4):
                reduce_case(fam, fn, t, depth=0)
    return fam


def complex_reduce(fam, fn, t):
    rng = fam.rng
    case = Case(rng, fn)
    sh = rand_shape(rng, min_rank=1, max_elems=30, empty=0)
    operand = case.leaf(t, sh, 'moderate' if fn == 'Prod' else 'finite')
    x = case.evaluate(operand)
    axes = pick_axes(rng, x.ndim, fn)
    attrs = {} if axes is None else {'axis': axes}
    outer, rows, glen, ax = group_rows(x, axes)
    part = T(t).part
    vals, scale = [], []
    for row in rows:
        row = row.astype(np.complex128)
        if fn == 'Prod':
            p = np.prod(row.astype(np.clongdouble))
            vals.append(complex(p))
            scale.append(float(np.prod(np.abs(row))))
        else:
            s = complex(math.fsum(row.real), math.fsum(row.imag))
            if fn == 'Mean':
                s = s / glen
            vals.append(s)
            scale.append(float(np.abs(row).sum()) / (glen if fn == 'Mean' else 1))
    v = np.array(vals, dtype=np.complex128)
    v = (round_float(v.real, part).astype(np.float64) + 1j * round_float(v.imag, part).astype(np.float64))
    v = v.astype(T(t).np).reshape(result_shape(x.shape, ax, False))
    fam.add(case, Node(fn, t, t, [operand], attrs), [(v, t)], n=glen,
            scale=np.array(scale).reshape(result_shape(x.shape, ax, False)), zs=True)


def norm_case(fam, t):
    """np.linalg.norm: vector norms of a 1-D operand or along one axis
    (ord 1, 2, inf), matrix norms of a 2-D operand (Frobenius, ord 1 the
    largest column sum, inf the largest row sum), the 2-norm of all the
    elements of more axes."""
    rng = fam.rng
    for _ in range(30):
        case = Case(rng, 'Norm')
        kind = ['vector', 'axis', 'matrix', 'all'][rng.integers(4)]
        shape = {'vector': lambda: rand_shape(rng, min_rank=1, max_rank=1, max_elems=60),
                 'axis': lambda: rand_shape(rng, min_rank=2, max_rank=3, max_elems=60),
                 'matrix': lambda: rand_shape(rng, min_rank=2, max_rank=2, max_elems=60),
                 'all': lambda: rand_shape(rng, min_rank=3, max_rank=4, max_elems=60)}[kind]()
        try:
            operand = TreeBuilder(case, profile='moderate', allow_cast=False).build(t, shape, int(rng.integers(0, 2)))
            x = case.evaluate(operand)
        except Reject:
            continue
        if x.shape != shape:
            continue
        k, axis, ord_ = {}, None, None
        if kind in ('vector', 'axis'):
            ord_ = [1, 2, 'inf', None][rng.integers(4)]
        elif kind == 'matrix':
            ord_ = [1, 'inf', None][rng.integers(3)]
        if kind == 'axis':
            a = int(rng.integers(x.ndim))
            axis = a - x.ndim if rng.random() < 0.3 else a
            k['axis'] = [axis]
            if rng.random() < 0.3:
                k['keepdims'] = True
        if ord_ is not None:
            k['ord'] = ord_
        if kind in ('vector', 'axis') and ord_ == 'inf' and (x.size == 0 or (axis is not None and x.shape[axis] == 0)):
            continue  # NumPy: max of no elements
        if kind == 'matrix' and 0 in x.shape:
            continue
        npord = np.inf if ord_ == 'inf' else ord_
        xl = np.abs(x.astype(np.float64)).astype(np.longdouble)
        want = np.linalg.norm(xl, npord, axis, keepdims=bool(k.get('keepdims')))
        want = round_float(np.asarray(want, dtype=np.float64), t)
        if kind == 'matrix':
            n = x.shape[0] if ord_ == 1 else x.shape[1] if ord_ == 'inf' else x.size
        elif kind == 'axis':
            n = x.shape[axis]
        else:
            n = x.size
        sumlike = ord_ == 1 or (kind == 'matrix' and ord_ == 'inf')
        scale = np.abs(want.astype(np.float64)) if sumlike else None
        fam.add(case, Node('Norm', t, t, [operand], k), [(want, t)], n=max(n, 1), scale=scale)
        return
