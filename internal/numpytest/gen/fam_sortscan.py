"""Sorting, scans, indexing and joining (being added; pending on the Go
side until they land). Multi-result functions (TopK, Unique, Split,
Nonzero, Histogram) have one golden array per result, in NumPy's order."""

import math

import numpy as np

from numerics import T, sample, round_float, to_type
from tree import Node, Case, Reject, Input
from golden import Family
from shapes import TreeBuilder, rand_shape, TODAY
from fam_reduce import fsum_ieee, abs_sum, wrap

SORT_TYPES = TODAY + ['float16', 'bfloat16']


def index_input(case, values, shape=None):
    v = np.asarray(values, dtype=np.int64)
    if shape is not None:
        v = v.reshape(shape)
    i = case.add_input(v, 'int64')
    return Input(i, 'int64')


def no_nan(x):
    x = np.array(x, copy=True)
    if x.dtype.kind == 'f':
        x[np.isnan(x)] = 0
    return x


def sortscan(seed, per=4):
    fam = Family('sortscan', seed)
    rng = fam.rng
    for t in SORT_TYPES:
        tt = T(t)
        cnt = per if t in TODAY else 2
        for _ in range(cnt):
            # Sort and Argsort, ascending (NaN last, stable) and descending
            for fn in ('Sort', 'Argsort'):
                for desc in (False, True):
                    case = Case(rng, fn)
                    shape = rand_shape(rng, min_rank=1, max_elems=48)
                    x = case.leaf(t, shape, 'small' if rng.random() < 0.5 else 'general')
                    xv = case.evaluate(x)
                    if desc:
                        xv = no_nan(xv)
                        x = Input(case.add_input(xv, t), t)
                    ax = int(rng.integers(-xv.ndim, xv.ndim))
                    k = {'axis': ax}
                    if desc:
                        k['descending'] = True
                    idx = stable_argsort(xv, ax, desc)
                    if fn == 'Argsort':
                        fam.add(case, Node(fn, t, 'int64', [x], k), [(idx, 'int64')])
                    else:
                        fam.add(case, Node(fn, t, t, [x], k), [(np.take_along_axis(xv, idx, ax), t)],
                                zs=tt.is_float())
            # TopK: distinct values
            case = Case(rng, 'TopK')
            shape = rand_shape(rng, min_rank=1, max_elems=48, empty=0)
            n = shape[-1]
            base = distinct(rng, t, int(np.prod(shape))).reshape(shape)
            x = Input(case.add_input(base, t), t)
            kk = int(rng.integers(0, n + 1))
            largest = bool(rng.random() < 0.7)
            idx = stable_argsort(base, -1, largest)[..., :kk]
            fam.add(case, Node('TopK', t, t, [x], {'k': kk, 'largest': largest}),
                    [(np.take_along_axis(base, idx, -1), t), (idx, 'int64')])
            # Unique with counts and inverse
            case = Case(rng, 'Unique')
            shape = rand_shape(rng, min_rank=1, max_elems=40)
            x = case.leaf(t, shape, 'small')
            xv = no_nan(case.evaluate(x))
            if tt.is_float():
                xv = xv + to_type(np.zeros(xv.shape), t)  # -0 → +0
                x = Input(case.add_input(xv, t), t)
            u, inv, cnts = np.unique(xv, return_inverse=True, return_counts=True)
            fam.add(case, Node('Unique', t, t, [x]), [(u, t), (cnts.astype(np.int64), 'int64'),
                                                      (inv.reshape(-1).astype(np.int64), 'int64')])
            # SearchSorted
            case = Case(rng, 'SearchSorted')
            a = np.sort(no_nan(sample(rng, t, int(rng.integers(0, 12)), 'small')))
            ia = Input(case.add_input(a, t), t)
            v = case.leaf(t, rand_shape(rng, max_elems=20), 'small')
            side = 'left' if rng.random() < 0.5 else 'right'
            want = np.searchsorted(a, case.evaluate(v), side=side).astype(np.int64)
            fam.add(case, Node('SearchSorted', t, 'int64', [ia, v], {'side': side}), [(want, 'int64')])
            # scans
            for fn in ('Cumsum', 'Cumprod', 'Cummax', 'Cummin'):
                if fn in ('Cumsum', 'Cumprod') and tt.is_int() and tt.bits < 64:
                    continue
                for excl in (False, True):
                    scan_case(fam, fn, t, excl)
            # indexing
            take_cases(fam, t)
            # joining
            join_cases(fam, t)
        # Nonzero, MaskedSelect
        for _ in range(cnt):
            case = Case(rng, 'Nonzero')
            x = case.leaf(t, rand_shape(rng, max_elems=30, min_rank=1), 'small')
            nz = np.nonzero(case.evaluate(x))
            fam.add(case, Node('Nonzero', t, 'int64', [x]), [(np.asarray(a, np.int64), 'int64') for a in nz])
            case = Case(rng, 'MaskedSelect')
            shape = rand_shape(rng, max_elems=30)
            x = case.leaf(t, shape)
            y = case.leaf(t, shape, 'small')
            m = Node('Greater', t, 'bool', [y, Node('Scalar', t, t, k={'v': scalar_bits(0, t)})])
            xv, mv = case.evaluate(x), case.evaluate(m)
            xb = np.broadcast_to(xv, np.broadcast_shapes(xv.shape, mv.shape))
            mb = np.broadcast_to(mv, xb.shape)
            fam.add(case, Node('MaskedSelect', t, t, [x, m]), [(xb[mb], t)])
        # Nonzero of a 0-d array: deprecated in NumPy 1.17, an error since 2.1
        case = Case(rng, 'Nonzero')
        x = case.leaf(t, (), 'small')
        fam.add(case, Node('Nonzero', t, 'int64', [x]), err='ErrShape', note='NumPy 2.1: ValueError (0-d)')
    for t in ('int64', 'int32', 'uint8'):
        for _ in range(4):
            bincount_case(fam, t)
    for t in ('float32', 'float64'):
        for _ in range(4):
            histogram_case(fam, t)
    return fam


def scalar_bits(v, t):
    from numerics import b64, stored_bytes
    return b64(stored_bytes(np.array([v], dtype=T(t).np), t))


def stable_argsort(x, axis, descending):
    """Stable order of x along axis: ascending with NaN last, or descending
    (x without NaN) with equal elements in their original order."""
    if not descending:
        return np.argsort(x, axis=axis, kind='stable').astype(np.int64)
    xm = np.moveaxis(x, axis, -1)
    out = np.empty(xm.shape, dtype=np.int64)
    for idx in np.ndindex(*xm.shape[:-1]):
        row = xm[idx]
        key = [(-int(v) if row.dtype.kind in 'iu' else -float(v)) for v in row]
        out[idx] = sorted(range(len(row)), key=lambda i: key[i])
    return np.moveaxis(out, -1, axis)


def distinct(rng, t, n):
    tt = T(t)
    if tt.is_int():
        i = tt.info()
        pool = rng.choice(min(int(i.max) - int(i.min) + 1, 1 << 20), size=n, replace=False)
        return (pool + max(int(i.min), -(1 << 19))).astype(tt.np) if tt.kind == 'i' else pool.astype(tt.np)
    v = rng.permutation(n).astype(np.float64) * 0.75 - n / 3
    return to_type(v, tt)


def scan_case(fam, fn, t, exclusive):
    rng = fam.rng
    tt = T(t)
    case = Case(rng, fn)
    shape = rand_shape(rng, min_rank=1, max_elems=40)
    prof = 'moderate' if fn == 'Cumprod' else ('finite' if t == 'float64' else 'general')
    b = TreeBuilder(case, profile=prof, allow_cast=False)
    try:
        x = b.build(t, shape, int(rng.integers(0, 2)))
        xv = case.evaluate(x)
    except Reject:
        return
    axis = None if rng.random() < 0.2 or xv.ndim == 0 else int(rng.integers(-xv.ndim, xv.ndim))
    a = xv.reshape(-1) if axis is None else xv
    ax = 0 if axis is None else axis % max(a.ndim, 1)
    am = np.moveaxis(a, ax, -1)
    n = am.shape[-1] if am.ndim else 1
    out = np.empty(am.shape, dtype=tt.np)
    scale = np.zeros(am.shape, dtype=np.float64)
    for idx in np.ndindex(*am.shape[:-1]):
        row = am[idx]
        vals, sc = [], []
        for j in range(len(row)):
            pre = row[:j] if exclusive else row[:j + 1]
            vals.append(scan_value(fn, pre, t))
            sc.append(abs_sum(pre) if fn == 'Cumsum' else 0.0)
        if tt.is_int():
            out[idx] = np.array(vals, dtype=object).astype(tt.np) if len(vals) else []
        else:
            out[idx] = round_float(np.array(vals, dtype=np.float64), tt) if len(vals) else []
        scale[idx] = sc
    out = np.moveaxis(out, -1, ax)
    scale = np.moveaxis(scale, -1, ax)
    k = {}
    if axis is not None:
        k['axis'] = axis
    if exclusive:
        k['exclusive'] = True
    if fn == 'Cumprod':
        scale = np.abs(out.astype(np.float64))
        scale[~np.isfinite(scale)] = 0
    fam.add(case, Node(fn, t, t, [x], k), [(out, t)], n=n,
            scale=scale if (tt.is_float() and fn in ('Cumsum', 'Cumprod')) else None,
            zs=tt.is_float())


def scan_value(fn, pre, t):
    tt = T(t)
    if fn == 'Cumsum':
        if tt.is_int():
            return wrap(sum(int(v) for v in pre), t)
        return fsum_ieee(pre)
    if fn == 'Cumprod':
        if tt.is_int():
            p = 1
            for v in pre:
                p = p * int(v) % (1 << 64)
            return wrap(p, t)
        return math.prod(np.asarray(pre, np.float64).tolist()) if len(pre) else 1.0
    if len(pre) == 0:
        if tt.is_int():
            return int(tt.info().min if fn == 'Cummax' else tt.info().max)
        return -math.inf if fn == 'Cummax' else math.inf
    r = (np.max if fn == 'Cummax' else np.min)(pre)
    return int(r) if tt.is_int() else float(r)


def take_cases(fam, t):
    rng = fam.rng
    # Take along an axis, or of the flattened array
    case = Case(rng, 'Take')
    shape = rand_shape(rng, min_rank=1, max_elems=30, empty=0)
    x = case.leaf(t, shape)
    xv = case.evaluate(x)
    axis = None if rng.random() < 0.3 else int(rng.integers(xv.ndim))
    ext = xv.size if axis is None else xv.shape[axis]
    ishape = rand_shape(rng, max_rank=2, max_elems=8, empty=0.1)
    iv = rng.integers(0, ext, size=ishape) if ext else np.zeros(ishape, np.int64)
    if ext == 0 and iv.size:
        return
    negative = rng.random() < 0.2
    if negative and iv.size:
        iv = iv - ext * (rng.random(iv.shape) < 0.5)
    ind = index_input(case, iv, ishape)
    k = {} if axis is None else {'axis': axis}
    fam.add(case, Node('Take', t, t, [x, ind], k), [(np.take(xv, iv, axis=axis), t)])
    # an index out of range: an error naming it
    case = Case(rng, 'Take')
    x = case.leaf(t, (4, 3))
    ind = index_input(case, [0, 2, 7, 1])
    fam.add(case, Node('Take', t, t, [x, ind], {'axis': 0}), err='ErrIndex', note='NumPy: IndexError')
    # TakeAlongAxis
    case = Case(rng, 'TakeAlongAxis')
    shape = rand_shape(rng, min_rank=1, max_elems=30, empty=0)
    x = case.leaf(t, shape)
    xv = case.evaluate(x)
    ax = int(rng.integers(xv.ndim))
    ishape = list(xv.shape)
    ishape[ax] = int(rng.integers(0, 5))
    iv = rng.integers(0, xv.shape[ax], size=ishape)
    ind = index_input(case, iv, ishape)
    fam.add(case, Node('TakeAlongAxis', t, t, [x, ind], {'axis': ax}),
            [(np.take_along_axis(xv, iv, ax), t)])
    # Put: distinct flat indices
    case = Case(rng, 'Put')
    shape = rand_shape(rng, min_rank=1, max_elems=30, empty=0)
    x = case.leaf(t, shape, views=False)
    xv = np.array(case.evaluate(x))
    m = int(rng.integers(0, xv.size + 1))
    iv = rng.choice(xv.size, size=m, replace=False)
    vals = sample(rng, t, m)
    ind = index_input(case, iv)
    vin = Input(case.add_input(vals, t), t)
    want = xv.copy()
    np.put(want, iv, vals)
    fam.add(case, Node('Put', t, t, [x, ind, vin]), [(want, t)])
    # IndexAdd (small integers: exact in any order, duplicates allowed)
    case = Case(rng, 'IndexAdd')
    shape = rand_shape(rng, min_rank=1, max_elems=30, empty=0)
    x = case.leaf(t, shape, 'small', views=False)
    xv = np.array(case.evaluate(x))
    ax = int(rng.integers(xv.ndim))
    m = int(rng.integers(0, 7))
    iv = rng.integers(0, xv.shape[ax], size=m)
    sshape = list(xv.shape)
    sshape[ax] = m
    src = sample(rng, t, int(np.prod(sshape)), 'small').reshape(sshape)
    ind = index_input(case, iv)
    sin = Input(case.add_input(src, t), t)
    want = xv.copy()
    with np.errstate(all='ignore'):
        idx = [slice(None)] * xv.ndim
        for j, i in enumerate(iv):
            idx[ax] = i
            sidx = [slice(None)] * xv.ndim
            sidx[ax] = j
            want[tuple(idx)] = want[tuple(idx)] + src[tuple(sidx)]
    fam.add(case, Node('IndexAdd', t, t, [x, ind, sin], {'axis': ax}), [(want, t)])


def join_cases(fam, t):
    rng = fam.rng
    # Concatenate, Stack
    case = Case(rng, 'Concatenate')
    shape = rand_shape(rng, min_rank=1, max_elems=20)
    ax = int(rng.integers(len(shape)))
    parts, vals = [], []
    for _ in range(int(rng.integers(1, 4))):
        sh = list(shape)
        sh[ax] = int(rng.integers(0, 4))
        p = case.leaf(t, tuple(sh))
        parts.append(p)
        vals.append(case.evaluate(p))
    fam.add(case, Node('Concatenate', t, t, parts, {'axis': ax}), [(np.concatenate(vals, axis=ax), t)])
    case = Case(rng, 'Stack')
    shape = rand_shape(rng, max_elems=20)
    ax = int(rng.integers(-len(shape) - 1, len(shape) + 1))
    parts = [case.leaf(t, shape) for _ in range(int(rng.integers(1, 4)))]
    fam.add(case, Node('Stack', t, t, parts, {'axis': ax}),
            [(np.stack([case.evaluate(p) for p in parts], axis=ax), t)])
    # Split into equal sections, or at indices
    case = Case(rng, 'Split')
    shape = rand_shape(rng, min_rank=1, max_elems=24)
    ax = int(rng.integers(len(shape)))
    x = case.leaf(t, shape)
    xv = case.evaluate(x)
    ext = xv.shape[ax]
    if rng.random() < 0.5 and ext:
        divs = [d for d in range(1, ext + 1) if ext % d == 0]
        sec = int(divs[rng.integers(len(divs))])
        k = {'sections': sec, 'axis': ax}
        outs = np.split(xv, sec, axis=ax)
    else:
        cuts = sorted(int(c) for c in rng.integers(0, ext + 1, size=int(rng.integers(0, 3))))
        k = {'indices': cuts, 'axis': ax}
        outs = np.split(xv, cuts, axis=ax)
    fam.add(case, Node('Split', t, t, [x], k), [(o, t) for o in outs])
    # Pad with a constant
    case = Case(rng, 'Pad')
    shape = rand_shape(rng, max_elems=20)
    x = case.leaf(t, shape)
    widths = [[int(rng.integers(0, 3)), int(rng.integers(0, 3))] for _ in shape]
    v = sample(rng, t, 1, 'small')[0]
    want = np.pad(case.evaluate(x), widths, mode='constant', constant_values=v) if shape else case.evaluate(x)
    fam.add(case, Node('Pad', t, t, [x], {'widths': widths, 'v': scalar_bits(v, t)}), [(want, t)])


def bincount_case(fam, t):
    rng = fam.rng
    case = Case(rng, 'Bincount')
    n = int(rng.integers(0, 30))
    xv = rng.integers(0, 12, size=n).astype(T(t).np)
    x = Input(case.add_input(xv, t), t)
    minlength = int(rng.integers(0, 15))
    if rng.random() < 0.5:
        w = rng.integers(-5, 6, size=n).astype(np.float64)
        wi = Input(case.add_input(w, 'float64'), 'float64')
        want = np.bincount(xv, weights=w, minlength=minlength)
        fam.add(case, Node('Bincount', t, 'float64', [x, wi], {'minlength': minlength}), [(want, 'float64')])
    else:
        want = np.bincount(xv, minlength=minlength).astype(np.int64)
        fam.add(case, Node('Bincount', t, 'int64', [x], {'minlength': minlength}), [(want, 'int64')])


def histogram_case(fam, t):
    rng = fam.rng
    case = Case(rng, 'Histogram')
    bins = int(rng.integers(1, 10))
    lo, hi = -4.0, 4.0
    width = (hi - lo) / bins
    n = int(rng.integers(0, 40))
    # values inside bins, away from the edges (the count is then exact)
    centers = lo + (rng.integers(0, bins, size=n) + 0.5) * width
    xv = to_type(centers + rng.uniform(-0.3, 0.3, n) * width, t)
    x = Input(case.add_input(xv, t), t)
    counts, edges = np.histogram(xv.astype(np.float64), bins=bins, range=(lo, hi))
    # NumPy's edges of float32 data are float32; gpuarr's are float64
    # holding them exactly (a row of gpuarr's differences table)
    fam.add(case, Node('Histogram', t, 'int64', [x], {'bins': bins, 'lo': lo, 'hi': hi}),
            [(counts.astype(np.int64), 'int64'), (round_float(edges, t), t)],
            diff='histogram-edges' if t == 'float32' else None)
