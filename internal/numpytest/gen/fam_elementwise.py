"""Elementwise families: exact trees, casts, NumPy differences, math
functions, integer functions, complex arithmetic."""

import math

import numpy as np

from numerics import T, TYPES, INTS, FLOATS, REALS, COMPLEX, NUMBERS, sample, specials, to_type, round_float
from tree import Node, Case, Reject, Scalar, Input, finish
from golden import Family
from shapes import TreeBuilder, rand_shape, TODAY

try:
    import mpmath
except ImportError:  # only erf/erfc's float64 references need it
    mpmath = None


def attempts(fam, n, make, tries=20):
    """Calls make() until it succeeds n times (a Reject draws again)."""
    done = 0
    for _ in range(n * tries):
        if done == n:
            break
        try:
            make()
            done += 1
        except Reject:
            continue
    return done


# ------------------------------------------------------------------ trees

# A fused kernel takes at most 64 parameters (device/driver.MaxArgs): a
# strided operand of rank r takes r+1, so trees keep to ten leaves.
MAX_LEAVES = 10

def trees(seed, per_type=120):
    fam = Family('trees', seed)
    rng = fam.rng
    for t in REALS:
        count = per_type if t in TODAY else 25

        def make(t=t):
            case = Case(rng, 'tree')
            b = TreeBuilder(case)
            shape = rand_shape(rng)
            depth = int(rng.integers(1, 5))
            r = rng.random()
            if r < 0.15:
                node = b.mask(shape, depth, t if T(t).is_half() else t)
                case.fn = node.op
            else:
                node = b.build(t, shape, depth)
                if node.op in ('in', 'Scalar') or node.op in ('Transpose', 'Permute', 'Step', 'Slice', 'Reshape'):
                    node = Node('Neg', t, t, [node])
                case.fn = node.op
            if sum(1 for op in node.ops() if op in ('in', 'Scalar')) > MAX_LEAVES:
                raise Reject('too many operands for one kernel')
            fam.add_tree(case, node)
        attempts(fam, count, make)
    return fam


def broadcasting(seed, n=200):
    """Binary operations over operands of different ranks and extents 1,
    rank-0 arrays and empty arrays."""
    fam = Family('broadcast', seed)
    rng = fam.rng

    def make():
        t = TODAY[rng.integers(len(TODAY))]
        case = Case(rng, 'Add')
        out = rand_shape(rng, min_rank=1)
        sa = tuple(1 if (d and rng.random() < 0.4) else d for d in out[rng.integers(0, len(out) + 1):])
        sb = tuple(1 if (d and rng.random() < 0.4) else d for d in out)
        ops = ['Add', 'Sub', 'Mul', 'Maximum', 'Minimum']
        op = ops[rng.integers(len(ops))]
        case.fn = op
        a = case.leaf(t, sa)
        bnode = case.leaf(t, sb)
        if rng.random() < 0.5:
            a, bnode = bnode, a
        fam.add_tree(case, Node(op, t, t, [a, bnode]))
    attempts(fam, n, make)
    return fam


# ------------------------------------------------------------------ casts

def in_range_values(rng, src, dst, n, profile='general'):
    """Values of src whose conversion to dst is defined (no NumPy difference)."""
    v = sample(rng, src, n, profile)
    s, d = T(src), T(dst)
    if d.is_int() and s.is_float():
        i = d.info()
        x = v.astype(np.float64)
        bad = ~np.isfinite(x) | (np.trunc(x) < i.min) | (np.trunc(x) > i.max)
        lo, hi = max(float(i.min), -s.max_finite()), min(float(i.max), s.max_finite())
        repl = to_type(np.trunc(rng.uniform(lo / 2, hi / 2, n)) + rng.uniform(-0.9, 0.9, n), s)
        repl_x = repl.astype(np.float64)
        ok = np.isfinite(repl_x) & (np.trunc(repl_x) >= i.min) & (np.trunc(repl_x) <= i.max)
        repl = np.where(ok, repl, to_type(np.zeros(n), s))
        v = np.where(bad, repl, v)
    return v


def casts(seed, per_pair=2):
    fam = Family('casts', seed)
    rng = fam.rng
    types = ['bool'] + NUMBERS
    for src in types:
        for dst in types:
            if src == dst or (T(src).is_complex() and not T(dst).is_complex()):
                continue
            for _ in range(per_pair):
                case = Case(rng, 'Cast')
                shape = rand_shape(rng)
                leaf = case.leaf(src, shape, sampler=lambda r, tt, n, src=src, dst=dst: in_range_values(r, src, dst, n))
                try:
                    fam.add_tree(case, Node('Cast', dst, dst, [leaf]), id_type='%s_to_%s' % (src, dst))
                except Reject:
                    continue
    return fam


# ------------------------------------------------------------ differences

def differences(seed):
    """The rows of gpuarr's NumPy-differences table: NumPy's answer, which
    the Go runner turns into gpuarr's documented one (or an error)."""
    fam = Family('differences', seed)
    rng = fam.rng

    # Div of integers: NumPy's floor division, gpuarr's truncation.
    for t in INTS:
        for k in range(5):
            case = Case(rng, 'Div')
            shape = rand_shape(rng, min_rank=1)
            i = T(t).info()
            a = case.leaf(t, shape, views=False)
            av = case.inputs[-1]
            if k == 0:
                b = Scalar(T(t).np.type(-1 if i.min < 0 else 3), t)
            else:
                b = case.leaf(t, shape if rng.random() < 0.7 else shape[-1:], views=False)
                bv = case.inputs[-1]
                # zeros, -1 and signs mixed in
                bv.flat[::3] = 0
                if i.min < 0:
                    bv.flat[1::4] = -1
                case.set_input(len(case.inputs) - 1, bv)
            if i.min < 0:
                av.flat[::5] = i.min
                case.set_input(0, av)
            node = Node('Div', t, t, [a, b], allow_diff=True)
            fam.add_tree(case, node, diff='int-div')

    # Cast of floats to integers out of range: NumPy's (undefined) answer,
    # gpuarr's saturation.
    for src in FLOATS:
        for dst in INTS:
            for _ in range(2):
                case = Case(rng, 'Cast')
                shape = rand_shape(rng, min_rank=1, empty=0)
                leaf = case.leaf(src, shape, views=False)
                v = case.inputs[-1]
                i = T(dst).info()
                extremes = to_type(np.array([np.nan, np.inf, -np.inf, float(i.max) * 4 + 3, float(i.min) * 4 - 3,
                                             -0.75, 0.75, float(i.max), float(i.min), 1e30, -1e30]), src)
                flat = v.reshape(-1)
                for j in range(min(len(flat), len(extremes))):
                    flat[int(rng.integers(len(flat)))] = extremes[j]
                case.set_input(len(case.inputs) - 1, v)
                node = Node('Cast', dst, dst, [leaf], allow_diff=True)
                fam.add_tree(case, node, diff='cast-saturate', id_type='%s_to_%s' % (src, dst))

    # Sum and Prod of narrow integers: NumPy widens to int64/uint64;
    # gpuarr refuses and names SumAs/ProdAs.
    from fam_reduce import reduce_case
    for t in ['int8', 'int16', 'int32', 'uint8', 'uint16', 'uint32']:
        for fn in ['Sum', 'Prod']:
            for _ in range(2):
                reduce_case(fam, fn, t, diff='narrow-sum', views=False)

    # Mean of integers: NumPy's float64 mean; gpuarr's truncated exact mean.
    for t in INTS:
        for _ in range(3):
            reduce_case(fam, 'Mean', t, diff='int-mean', views=False)

    # Mean of no elements: NumPy's NaN; gpuarr's ErrShape.
    for t in ['float32', 'float64', 'int32', 'uint8']:
        for shape, axes in [((0,), None), ((3, 0), [1]), ((0, 2), [0]), ((2, 0, 3), [1, 2])]:
            case = Case(rng, 'Mean')
            leaf = case.leaf(t, shape, views=False)
            with np.errstate(all='ignore'):
                import warnings
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore')
                    want = np.mean(case.inputs[-1], axis=None if axes is None else tuple(axes))
            k = {} if axes is None else {'axis': axes}
            node = Node('Mean', t, t, [leaf], k)
            fam.add(case, node, [(np.asarray(want), 'float64')], diff='mean-empty')

    # Mixed element types: NumPy promotes; gpuarr needs a Cast to the
    # promoted type written out (Go converts nothing implicitly).
    pairs = [(a, b) for a in TODAY for b in TODAY if a != b]
    for _ in range(80):
        a, b = pairs[rng.integers(len(pairs))]
        p = np.result_type(T(a).np, T(b).np).name
        if p not in TYPES:
            continue
        op = ['Add', 'Sub', 'Mul', 'Maximum', 'Less', 'Equal'][rng.integers(6)]
        case = Case(rng, op)
        shape = rand_shape(rng, min_rank=1)
        x = case.leaf(a, shape, profile='small')
        y = case.leaf(b, shape, profile='small')
        xv, yv = case.evaluate(x), case.evaluate(y)
        with np.errstate(all='ignore'):
            fn = {'Add': np.add, 'Sub': np.subtract, 'Mul': np.multiply, 'Maximum': np.maximum,
                  'Less': np.less, 'Equal': np.equal}[op]
            want = fn(xv, yv)
        r = 'bool' if op in ('Less', 'Equal') else p
        node = Node(op, p, r, [x, y])
        fam.add(case, node, [(want, r)], diff='promotion')
    return fam


# ------------------------------------------------------------------- math

def ld(x):
    return np.asarray(x, dtype=np.float64).astype(np.longdouble)


def mp_map(f, x):
    mpmath.mp.prec = 120
    out = np.empty(np.shape(x), dtype=np.float64)
    for idx, v in np.ndenumerate(np.asarray(x, dtype=np.float64)):
        if math.isnan(v):
            out[idx] = math.nan
        else:
            out[idx] = float(f(mpmath.mpf(v)))
    return out


def erf_ref(x):
    # mpmath has no -0: erf(±0) is ±0 (C99), so zeros are x itself
    r = mp_map(lambda v: mpmath.sign(v) if abs(v) > 30 else mpmath.erf(v), x)
    x = np.asarray(x, dtype=np.float64)
    return np.where(x == 0, x, r)


def erfc_ref(x):
    # erfc(x) underflows float64 beyond 27.3; mpmath's series overflows for huge x
    return mp_map(lambda v: (2 if v < 0 else 0) if abs(v) > 1e5 else mpmath.erfc(v), x)


def mix(lo, hi, extra=()):
    """A sampler: uniform in [lo, hi] (in units the type's range fixes via
    callables), with the type's special values and some extra points."""
    def s(rng, t, n):
        tt = T(t)
        a = lo(tt) if callable(lo) else lo
        b = hi(tt) if callable(hi) else hi
        v = rng.uniform(a, b, n)
        sp = specials(tt).astype(np.float64)
        for k in range(n):
            r = rng.random()
            if r < 0.15:
                v[k] = sp[rng.integers(len(sp))]
            elif r < 0.25 and extra:
                v[k] = extra[rng.integers(len(extra))]
            elif r < 0.3:
                v[k] = math.copysign(10.0 ** rng.uniform(-6, 0), rng.random() - 0.5)
        return to_type(v, tt)
    return s


def lnmax(t):
    return math.log(t.max_finite())


def positive(rng, t, n):
    tt = T(t)
    v = sample(rng, tt, n, 'positive').astype(np.float64)
    sp = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, tt.min_subnormal(), 2.0, 10.0, 0.5]
    for k in range(n):
        if rng.random() < 0.2:
            v[k] = sp[rng.integers(len(sp))]
    return to_type(v, tt)


def halfway(rng, t, n):
    tt = T(t)
    v = sample(rng, tt, n, 'general').astype(np.float64)
    for k in range(n):
        if rng.random() < 0.4:
            v[k] = rng.integers(-20, 20) + 0.5
    return to_type(v, tt)


def general(rng, t, n):
    return sample(rng, t, n, 'general')


# name: (reference on long double or float64 values, sampler, exact)
UNARY = {
    'Exp': (np.exp, mix(lambda t: -1.05 * lnmax(t) - 5, lambda t: 1.05 * lnmax(t)), False),
    'Exp2': (np.exp2, mix(lambda t: -(t.prec - t.emin) - 2, lambda t: t.emax + 2), False),
    'Expm1': (np.expm1, mix(lambda t: -30, lambda t: 1.05 * lnmax(t), (1e-5, -1e-5, 1e-10)), False),
    'Log': (np.log, positive, False),
    'Log2': (np.log2, positive, False),
    'Log10': (np.log10, positive, False),
    'Log1p': (np.log1p, mix(-1.5, 10, (-1.0, -0.999, 1e-8, -1e-8)), False),
    'Sqrt': (np.sqrt, positive, True),
    'Cbrt': (np.cbrt, general, False),
    'Rsqrt': (lambda x: 1 / np.sqrt(x), positive, False),
    'Sin': (np.sin, mix(-10, 10, (1e5, -1e5, 3.14159265, 1e22, 1e30)), False),
    'Cos': (np.cos, mix(-10, 10, (1e5, -1e5, 1.5707963, 1e22, 1e30)), False),
    'Tan': (np.tan, mix(-10, 10, (1e5, 1.5707963, -1.5707963, 1e22)), False),
    'Asin': (np.arcsin, mix(-1.1, 1.1, (1.0, -1.0, 0.5)), False),
    'Acos': (np.arccos, mix(-1.1, 1.1, (1.0, -1.0, 0.5)), False),
    'Atan': (np.arctan, general, False),
    'Sinh': (np.sinh, mix(lambda t: -1.05 * lnmax(t), lambda t: 1.05 * lnmax(t)), False),
    'Cosh': (np.cosh, mix(lambda t: -1.05 * lnmax(t), lambda t: 1.05 * lnmax(t)), False),
    'Tanh': (np.tanh, mix(-20, 20), False),
    'Asinh': (np.arcsinh, general, False),
    'Acosh': (np.arccosh, mix(0.5, 30, (1.0, 1e10, 1e30)), False),
    'Atanh': (np.arctanh, mix(-1.1, 1.1, (1.0, -1.0, 0.999)), False),
    'Erf': (erf_ref, mix(-6, 6), False),
    'Erfc': (erfc_ref, mix(-6, 28), False),
    'Floor': (np.floor, halfway, True),
    'Ceil': (np.ceil, halfway, True),
    'Trunc': (np.trunc, halfway, True),
    'Round': (np.rint, halfway, True),
    'Sign': (np.sign, general, True),
    'Abs': (np.abs, general, True),
    'Neg': (np.negative, general, True),
    'Sigmoid': (lambda x: 1 / (1 + np.exp(-x)), mix(-110, 110), False),
    'IsNaN': (np.isnan, general, True),
    'IsInf': (np.isinf, general, True),
    'IsFinite': (np.isfinite, general, True),
}

BOOL_RESULT = {'IsNaN', 'IsInf', 'IsFinite'}
MP_REFS = {'Erf', 'Erfc'}


def pow_x(rng, t, n):
    tt = T(t)
    v = sample(rng, tt, n, 'positive').astype(np.float64)
    sp = [0.0, -0.0, 1.0, -1.0, -2.0, -3.0, 2.0, np.inf, -np.inf, np.nan, 0.5, 10.0, -0.5]
    for k in range(n):
        r = rng.random()
        if r < 0.3:
            v[k] = sp[rng.integers(len(sp))]
        elif r < 0.5:
            v[k] = rng.uniform(0.5, 2)
    return to_type(v, tt)


def pow_y(rng, t, n):
    tt = T(t)
    v = rng.uniform(-8, 8, n)
    sp = [0.0, -0.0, 1.0, -1.0, 2.0, 3.0, 0.5, -0.5, np.inf, -np.inf, np.nan, 1 / 3, 100.0, -100.0]
    for k in range(n):
        r = rng.random()
        if r < 0.3:
            v[k] = sp[rng.integers(len(sp))]
        elif r < 0.5:
            v[k] = float(rng.integers(-10, 10))
    return to_type(v, tt)


def fdiv_b(rng, t, n):
    tt = T(t)
    v = sample(rng, tt, n, 'general').astype(np.float64)
    for k in range(n):
        r = rng.random()
        if r < 0.15:
            v[k] = [0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 0.5][rng.integers(7)]
        elif r < 0.5:
            v[k] = rng.uniform(-10, 10)
    return to_type(v, tt)


# name: (reference, sampler a, sampler b, exact)
BINARY = {
    'Pow': (np.power, pow_x, pow_y, False),
    'Atan2': (np.arctan2, general, general, False),
    'Hypot': (np.hypot, general, general, False),
    'Copysign': (np.copysign, general, general, True),
    'Fmin': (np.fmin, general, general, True),
    'Fmax': (np.fmax, general, general, True),
    'FloorDiv': (np.floor_divide, general, fdiv_b, True),
    'Mod': (np.remainder, general, fdiv_b, True),
    'Rem': (np.fmod, general, fdiv_b, True),
}


def math_ref(fn, args, t, exact):
    """The reference for a float function: exact functions in t itself
    (NumPy's answer is exact), others in long double (float64 for the
    half types' and float32's via float64), rounded once to t."""
    tt = T(t)
    with np.errstate(all='ignore'):
        if exact:
            if tt.name == 'bfloat16':
                r = fn(*[a.astype(np.float32) for a in args])
            else:
                r = fn(*args)
            if r.dtype == np.bool_:
                return r
            return finish(r, t)
        if fn in (erf_ref, erfc_ref):
            r = fn(args[0].astype(np.float64))
        else:
            r = fn(*[ld(a) for a in args]).astype(np.float64)
    return round_float(r, tt)


def math_fns(seed, per=(14, 5)):
    """Each float function at the root of a case, over a view or a small
    exact tree, for every float type (existing functions get more cases)."""
    fam = Family('math', seed)
    rng = fam.rng
    existing = {'Exp', 'Log', 'Sqrt', 'Tanh', 'Pow', 'Sigmoid', 'Abs', 'Neg'}
    for name, (ref, samp, exact) in UNARY.items():
        if name in MP_REFS and mpmath is None:
            continue
        for t in FLOATS:
            count = per[0] if name in existing else per[1]
            for _ in range(count):
                case = Case(rng, name)
                shape = rand_shape(rng, max_elems=48)
                leaf = case.leaf(t, shape, sampler=samp)
                x = case.evaluate(leaf)
                r = 'bool' if name in BOOL_RESULT else t
                want = math_ref(ref, [x], t, exact)
                fam.add(case, Node(name, t, r, [leaf]), [(want, r)])
    for name, (ref, sa, sb, exact) in BINARY.items():
        for t in FLOATS:
            count = per[0] if name in existing else per[1]
            for _ in range(count):
                case = Case(rng, name)
                shape = rand_shape(rng, max_elems=48)
                bshape = shape if rng.random() < 0.7 else shape[len(shape) // 2:]
                a = case.leaf(t, shape, sampler=sa)
                b = case.leaf(t, bshape, sampler=sb)
                want = math_ref(ref, [case.evaluate(a), case.evaluate(b)], t, exact)
                fam.add(case, Node(name, t, t, [a, b]), [(want, t)])
    # Pow where |y·ln x| is large: the error of exp(y·ln x) in T grows with it
    for t in FLOATS:
        case = Case(rng, 'Pow')
        xs = to_type(np.array([1.0000001, 1.01, 2.966826057690751e290, 0.999999, 1.5, 1e-300, 3.0]), t)
        ys = to_type(np.array([1e6, 70000, 0.22851687119061737, 3e5, 1000, 0.9, -600.5]), t)
        a = Input(case.add_input(xs, t), t)
        b = Input(case.add_input(ys, t), t)
        want = math_ref(np.power, [xs, ys], t, False)
        fam.add(case, Node('Pow', t, t, [a, b]), [(want, t)], note='large |y·ln x|')
    # Clip over every real type, with array bounds (gpuarr's Clamp takes
    # scalars: the difference 'clip' writes Minimum(Maximum(x, lo), hi))
    for t in REALS:
        for _ in range(4):
            case = Case(rng, 'Clip')
            shape = rand_shape(rng, min_rank=1)
            x = case.leaf(t, shape)
            lo = case.leaf(t, shape[-1:], profile='small')
            hi = case.leaf(t, shape[-1:], profile='small')
            try:
                fam.add_tree(case, Node('Clip', t, t, [x, lo, hi]), diff='clip')
            except Reject:
                pass
    # Existing functions inside larger expressions: fn(exact tree)
    for name in ['Exp', 'Log', 'Tanh', 'Sigmoid', 'Sqrt']:
        ref, samp, exact = UNARY[name]
        for t in ['float32', 'float64']:
            for _ in range(6):
                case = Case(rng, name)
                shape = rand_shape(rng)

                def make():
                    b = TreeBuilder(case, profile='small', allow_cast=False)
                    sub = b.build(t, shape, 2)
                    x = case.evaluate(sub)
                    return sub, x
                try:
                    sub, x = make()
                except Reject:
                    continue
                want = math_ref(ref, [x], t, exact)
                fam.add(case, Node(name, t, t, [sub]), [(want, t)])
    return fam


def clip_eval():
    from tree import EVAL, _minmax

    def ev(node, a, env):
        mx = _minmax(np.maximum)(node, [a[0], a[1]], env)
        return _minmax(np.minimum)(node, [mx, a[2]], env)
    EVAL['Clip'] = ev


clip_eval()


# ---------------------------------------------------------- integer functions

def int_b(rng, t, n):
    tt = T(t)
    v = sample(rng, tt, n, 'general')
    i = tt.info()
    for k in range(n):
        r = rng.random()
        if r < 0.15:
            v[k] = 0
        elif r < 0.25 and i.min < 0:
            v[k] = -1
        elif r < 0.5:
            v[k] = rng.integers(max(i.min, -9), min(i.max, 9), endpoint=True)
    return v


def shift_b(rng, t, n):
    tt = T(t)
    return rng.integers(0, tt.bits + 3, size=n).astype(tt.np)


INT_BINARY = {
    'FloorDiv': (np.floor_divide, int_b),
    'Mod': (np.remainder, int_b),
    'Rem': (np.fmod, int_b),
    'BitAnd': (np.bitwise_and, None),
    'BitOr': (np.bitwise_or, None),
    'BitXor': (np.bitwise_xor, None),
    'LeftShift': (np.left_shift, shift_b),
    'RightShift': (np.right_shift, shift_b),
}
INT_UNARY = {'BitNot': np.invert, 'Sign': np.sign, 'Abs': np.abs, 'Neg': np.negative}


def int_fns(seed, per=5):
    fam = Family('intops', seed)
    rng = fam.rng
    for t in INTS:
        for name, (ref, sb) in INT_BINARY.items():
            for _ in range(per):
                case = Case(rng, name)
                shape = rand_shape(rng, min_rank=0)
                a = case.leaf(t, shape)
                bshape = shape if rng.random() < 0.7 else shape[len(shape) // 2:]
                b = case.leaf(t, bshape, sampler=sb)
                with np.errstate(all='ignore'):
                    want = ref(case.evaluate(a), case.evaluate(b)).astype(T(t).np)
                fam.add(case, Node(name, t, t, [a, b]), [(want, t)])
        for name, ref in INT_UNARY.items():
            for _ in range(per if name not in ('Abs', 'Neg') else 2):
                case = Case(rng, name)
                shape = rand_shape(rng)
                a = case.leaf(t, shape)
                with np.errstate(all='ignore'):
                    want = ref(case.evaluate(a)).astype(T(t).np)
                fam.add(case, Node(name, t, t, [a]), [(want, t)])
    return fam


# ---------------------------------------------------------------- complex

def complex_fns(seed, per=6):
    fam = Family('complex', seed)
    rng = fam.rng
    for t in COMPLEX:
        tt = T(t)
        part = tt.part
        wide = np.clongdouble
        for name in ['Add', 'Sub', 'Mul', 'Div', 'Neg', 'Conj', 'Real', 'Imag', 'Abs', 'Angle', 'Equal', 'NotEqual']:
            for _ in range(per):
                case = Case(rng, name)
                shape = rand_shape(rng)
                prof = 'moderate' if name in ('Mul', 'Div') else 'finite'
                a = case.leaf(t, shape, profile=prof)
                args = [a]
                if name in ('Add', 'Sub', 'Mul', 'Div', 'Equal', 'NotEqual'):
                    b = case.leaf(t, shape if rng.random() < 0.7 else shape[len(shape) // 2:], profile=prof)
                    if name in ('Equal', 'NotEqual') and rng.random() < 0.5:
                        b = a
                    args.append(b)
                vals = [case.evaluate(x) for x in args]
                with np.errstate(all='ignore'):
                    if name in ('Add', 'Sub', 'Neg', 'Conj'):
                        f = {'Add': np.add, 'Sub': np.subtract, 'Neg': np.negative, 'Conj': np.conj}[name]
                        want, r = f(*vals).astype(tt.np), t
                    elif name in ('Mul', 'Div'):
                        f = np.multiply if name == 'Mul' else np.true_divide
                        w = f(*[v.astype(wide) for v in vals])
                        want = (round_float(w.real.astype(np.float64), part) +
                                1j * round_float(w.imag.astype(np.float64), part).astype(np.float64)).astype(tt.np)
                        r = t
                    elif name in ('Real', 'Imag'):
                        want = (np.real if name == 'Real' else np.imag)(vals[0]).astype(T(part).np)
                        r = part
                    elif name == 'Abs':
                        want, r = round_float(np.abs(vals[0].astype(wide)).astype(np.float64), part), part
                    elif name == 'Angle':
                        want, r = round_float(np.angle(vals[0].astype(wide)).astype(np.float64), part), part
                    else:
                        want = (np.equal if name == 'Equal' else np.not_equal)(*vals)
                        r = 'bool'
                fam.add(case, Node(name, t, r, args), [(want, r)])
    return fam
