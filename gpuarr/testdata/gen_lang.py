#!/usr/bin/python3
"""Writes lang_goldens.json.gz: NumPy's (and SciPy's logsumexp) results
for gpuarr's array-language tests (lang_golden_test.go): indexing and
views, view writes, reshapes of views (copy or not), the constructors from
positions, the new reductions, and the matrix products.

Run with Debian's python3-numpy and python3-scipy (apt-get install -y
python3-numpy python3-scipy), from this directory:

    /usr/bin/python3 gen_lang.py

The tests never run NumPy: they read the file. Each case stores its
inputs (seeded here) and NumPy's outputs for its dtype.
"""

import gzip
import json
import math

import numpy as np
from scipy.special import logsumexp

rng = np.random.default_rng(27)
cases = []


def enc(x):
    x = np.asarray(x)
    single = x.dtype == np.float32
    data = []
    for v in x.ravel():
        if x.dtype == np.bool_:
            data.append(1.0 if v else 0.0)
            continue
        f = float(v)
        if math.isnan(f):
            data.append("nan")
        elif math.isinf(f):
            data.append("inf" if f > 0 else "-inf")
        elif single:
            data.append(float(np.format_float_scientific(v, unique=True)))
        else:
            data.append(f)
    return {"shape": list(x.shape), "data": data}


def add(op, dtype, inputs, outputs, **params):
    cases.append({"op": op, "dtype": dtype, "inputs": [enc(i) for i in inputs],
                  "outputs": [enc(o) for o in outputs], "params": params})


def rand(shape, dtype, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


# ---- Indexing: items as lists, applied to arange(n).reshape(shape). ----

def item_obj(it):
    k = it[0]
    if k == "at":
        return it[1]
    if k == "s":
        return slice(it[1], it[2], it[3] if len(it) > 3 else None)
    if k == "colon":
        return slice(None)
    if k == "newaxis":
        return None
    return Ellipsis


def rand_item(n):
    r = rng.integers(0, 10)
    if r < 2:
        return ["at", int(rng.integers(-n, n))] if n > 0 else ["colon"]
    if r < 3:
        return ["colon"]
    step = [None, 1, 2, 3, -1, -2, -3][rng.integers(0, 7)]
    def bound():
        c = rng.integers(0, 4)
        if c == 0:
            return None
        return int(rng.integers(-n - 2, n + 3))
    return ["s", bound(), bound(), step]


def rand_index(shape):
    items = []
    ax = 0
    ell = rng.integers(0, 5) == 0
    while ax < len(shape):
        if rng.integers(0, 6) == 0:
            items.append(["newaxis"])
            continue
        if ell and rng.integers(0, 3) == 0:
            items.append(["ellipsis"])
            ell = False
            ax = len(shape)  # the ellipsis takes the rest
            if rng.integers(0, 2) == 0 and len(shape) > 0:
                items.append(rand_item(shape[-1]))
            break
        if rng.integers(0, 5) == 0:
            break  # leave the rest whole
        items.append(rand_item(shape[ax]))
        ax += 1
    # An ellipsis followed by an item consumes one axis from the end:
    # keep the count valid by dropping that last item if it overflows.
    return items


shapes = [(7,), (5, 6), (4, 3, 5), (2, 3, 4, 5), (6, 1, 4), (0, 3), (3, 0, 2)]
for shape in shapes:
    n = int(np.prod(shape))
    kept = 0
    for _ in range(400):
        if kept == 40:
            break
        items = rand_index(shape)
        x = np.arange(n, dtype=np.float64).reshape(shape)
        try:
            v = x[tuple(item_obj(i) for i in items)]
        except IndexError:
            continue
        v = np.asarray(v)
        if v.size == 0 and n > 0 and rng.uniform() < 0.9:
            continue  # mostly cases that select something
        kept += 1
        # The view written: x[items] = -(x[items] + 1000).
        y = x.copy()
        y[tuple(item_obj(i) for i in items)] = -(v + 1000)
        add("index", "float64", [x], [v, y], items=items)

# Index of a view of a view (negative strides twice).
x = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
v1 = x[::-1, 1:, ::-2]
v2 = v1[1:, ::-1]
add("index2", "float64", [x], [v2], first=[["s", None, None, -1], ["s", 1, None, None], ["s", None, None, -2]],
    second=[["s", 1, None, None], ["s", None, None, -1]])

# ---- Reshape of views: values, and whether NumPy returns a view. ----
for shape, items, new in [
        ((4, 6), [["colon"], ["s", None, None, 2]], (4, 3)),
        ((4, 6), [["colon"], ["s", None, None, 2]], (12,)),
        ((4, 6), [["s", None, None, 2]], (12,)),
        ((4, 6), [["s", None, None, 2]], (2, 1, 6)),
        ((2, 3, 4), [["colon"], ["colon"], ["s", None, None, -1]], (6, 4)),
        ((2, 3, 4), [["colon"], ["colon"], ["s", None, None, -1]], (24,)),
        ((2, 3, 4), [["s", None, None, -1]], (2, 12)),
        ((2, 3, 4), [["s", None, None, -1]], (6, 2, 2)),
        ((6, 4), [["s", 1, 5]], (2, 2, 4)),
        ((6, 4), [["s", 1, 5], ["s", 1, 3]], (8,)),
        ((3, 1, 4), [["colon"], ["colon"], ["s", None, None, 2]], (3, 2, 1)),
        ((5, 4), [["s", None, None, 2], ["at", 1]], (3, 1)),
]:
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    v = x[tuple(item_obj(i) for i in items)]
    r = v.reshape(new)
    add("reshape_view", "float64", [x], [r], items=items, new=list(new),
        view=bool(np.shares_memory(r, x)))

# Transposes then reshape.
x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
for new in [(4, 6), (24,), (4, 3, 2), (2, 2, 6)]:
    r = x.T.reshape(new)
    add("reshape_t", "float64", [x], [r], new=list(new), view=bool(np.shares_memory(r, x)))

# ---- Views: squeeze, expand_dims, flip, broadcast_to, diagonal. ----
x = np.arange(12, dtype=np.float64).reshape(1, 3, 1, 4)
add("squeeze", "float64", [x], [np.squeeze(x)], axes=[])
add("squeeze", "float64", [x], [np.squeeze(x, axis=(0,))], axes=[0])
add("squeeze", "float64", [x], [np.squeeze(x, axis=(-2, 0))], axes=[-2, 0])
y = np.arange(12, dtype=np.float64).reshape(3, 4)
for axes in [[0], [-1], [1], [0, 2], [-1, 0], [1, 3]]:
    add("expand_dims", "float64", [y], [np.expand_dims(y, tuple(axes))], axes=axes)
z = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
for axes in [[], [0], [2], [-1, 0], [0, 1, 2]]:
    add("flip", "float64", [z], [np.flip(z, axis=tuple(axes) if axes else None)], axes=axes)
for shape, to in [((3,), (2, 3)), ((3, 1), (3, 4)), ((1,), (2, 2, 2)), ((2, 1, 3), (4, 2, 5, 3)), ((), (2, 3))]:
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    add("broadcast_to", "float64", [a], [np.broadcast_to(a, to)], to=list(to))
for shape, off, a1, a2 in [((4, 5), 0, 0, 1), ((4, 5), 2, 0, 1), ((4, 5), -1, 0, 1), ((4, 5), 7, 0, 1),
                           ((4, 5), 0, 1, 0), ((2, 3, 4), 1, 1, 2), ((2, 3, 4), -1, 0, 2), ((2, 3, 4), 0, -1, 0)]:
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    add("diagonal", "float64", [a], [np.diagonal(a, off, a1, a2)], offset=off, axis1=a1, axis2=a2)

# ---- Copies: roll, triu, tril, ravel of views. ----
z = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
for shift, axes in [(1, []), (-5, []), (30, []), (1, [0]), (2, [1]), (-1, [2]), (5, [2]), (1, [0, 2]), (-2, [1, 2])]:
    r = np.roll(z, shift, axis=tuple(axes) if axes else None)
    add("roll", "float64", [z], [r], shift=shift, axes=axes)
zt = z.transpose(2, 0, 1)[::-1]
add("roll_view", "float64", [z], [np.roll(zt, 3, axis=1)], shift=3, axes=[1])
add("roll_view", "float64", [z], [np.roll(zt, -2)], shift=-2, axes=[])
m = rand((2, 4, 5), np.float32)
for k in [0, 1, -1, 3, -4, 9]:
    add("triu", "float32", [m], [np.triu(m, k)], k=k)
    add("tril", "float32", [m], [np.tril(m, k)], k=k)

# ---- Constructors from positions. ----
for start, stop, step, dt in [(0, 10, 1, "int32"), (3, -7, -2, "int64"), (5, 5, 1, "int32"), (2, 20, 3, "uint8"),
                              (0.1, 1.0, 0.2, "float64"), (0.1, 1.0, 0.2, "float32"), (1.0, -1.0, -0.25, "float32"),
                              (-3.5, 7.25, 0.75, "float64"), (0.0, 1.0, 0.1, "float64"), (1e8, 1e8 + 96, 7.0, "float32"), (16777000.0, 16777300.0, 3.0, "float32")]:
    add("arange", dt, [], [np.arange(start, stop, step, dtype=dt)], start=start, stop=stop, step=step)
for start, stop, num, ep, dt in [(0.0, 1.0, 5, True, "float64"), (0.0, 1.0, 5, False, "float64"), (-2.5, 7.0, 11, True, "float32"),
                                 (1.0, 1.0, 4, True, "float64"), (3.0, -3.0, 1, True, "float32"), (0.0, 10.0, 0, True, "float64"),
                                 (0.1, 0.7, 13, False, "float32"), (1e-320, 2e-320, 3, True, "float64")]:
    add("linspace", dt, [], [np.linspace(start, stop, num, endpoint=ep, dtype=dt)], start=start, stop=stop, num=num, endpoint=ep)
for n, m_, k, dt in [(3, 3, 0, "float32"), (3, 5, 1, "float64"), (4, 2, -1, "int32"), (2, 2, 5, "float32"), (0, 3, 0, "float64")]:
    add("eye", dt, [], [np.eye(n, m_, k, dtype=dt)], n=n, m=m_, k=k)

# ---- Reductions. ----
def axes_param(axes):
    return None if axes is None else tuple(axes)


for dt in ["float32", "float64"]:
    for shape, axes in [((50,), None), ((6, 7), None), ((6, 7), [0]), ((6, 7), [1]), ((6, 7), [-1]),
                        ((3, 4, 5), [0, 2]), ((3, 4, 5), [1, 2]), ((3, 4, 5), [0, 1]), ((3, 4, 5), None), ((2, 3, 4, 5), [1, 3])]:
        x = rand(shape, dt)
        if rng.integers(0, 2) == 0:
            x = (x + np.asarray(1e3, dtype=dt)).astype(dt)  # a mean that dwarfs the spread
        for ddof in [0, 1]:
            for keep in [False, True]:
                add("var", dt, [x], [np.var(x, axis=axes_param(axes), ddof=ddof, keepdims=keep)], axes=axes, ddof=ddof, keepdims=keep)
                add("std", dt, [x], [np.std(x, axis=axes_param(axes), ddof=ddof, keepdims=keep)], axes=axes, ddof=ddof, keepdims=keep)
        y = x.copy()
        flat = y.reshape(-1)
        flat[rng.integers(0, flat.size, size=max(1, flat.size // 5))] = np.nan
        if len(shape) >= 2:
            y[0, ...] = np.nan  # an all-NaN group along the later axes
        with np.errstate(all="ignore"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for fn in ["nansum", "nanmean", "nanmin", "nanmax"]:
                    add(fn, dt, [y], [getattr(np, fn)(y, axis=axes_param(axes))], axes=axes)
        add("logsumexp", dt, [x], [logsumexp(x * 30, axis=axes_param(axes)).astype(dt)], axes=axes, scale=30)
        b = (rng.uniform(size=shape) < 0.3).astype(dt)
        b2 = np.zeros(shape, dtype=dt)
        b2.reshape(-1)[0] = np.nan
        add("any", dt, [b], [np.any(b, axis=axes_param(axes))], axes=axes)
        add("all", dt, [b], [np.all(b, axis=axes_param(axes))], axes=axes)
        add("any", dt, [b2], [np.any(b2, axis=axes_param(axes))], axes=axes)
        add("all", dt, [b2 + 1], [np.all(b2 + 1, axis=axes_param(axes))], axes=axes)

# Var and Std of a single element with ddof 1 (NaN), of NaN and Inf data.
with np.errstate(all="ignore"):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = np.array([[1.0, 2.0, np.inf], [1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
        add("var", "float64", [x], [np.var(x, axis=1)], axes=[1], ddof=0, keepdims=False)
        x1 = np.array([3.0])
        add("var", "float64", [x1], [np.var(x1, ddof=1)], axes=None, ddof=1, keepdims=False)
        add("std", "float64", [x1], [np.std(x1, ddof=2)], axes=None, ddof=2, keepdims=False)
        x = np.array([[-np.inf, -np.inf], [np.inf, 1.0], [np.nan, 1.0], [-np.inf, 0.0]])
        add("logsumexp", "float64", [x], [logsumexp(x, axis=1)], axes=[1], scale=1)
        x = np.array([[np.nan, np.inf], [np.inf, -np.inf], [1.0, np.nan]])
        add("nanmean", "float64", [x], [np.nanmean(x, axis=1)], axes=[1])
        add("nanmax", "float64", [x], [np.nanmax(x, axis=1)], axes=[1])
        add("nanmin", "float64", [x], [np.nanmin(x, axis=1)], axes=[1])
        add("nansum", "float64", [x], [np.nansum(x, axis=1)], axes=[1])

# Norms.
for dt in ["float32", "float64"]:
    v = rand((17,), dt)
    v[3] = 0
    for ordv in [None, 1, 2, np.inf, -np.inf, 0, 3, 0.5, -1]:
        add("norm", dt, [v], [np.asarray(np.linalg.norm(v, ordv), dtype=dt)], ord=ordv, axes=None, keepdims=False)
    m = rand((4, 6), dt)
    for ordv in [None, 1, -1, np.inf, -np.inf]:
        add("norm", dt, [m], [np.asarray(np.linalg.norm(m, ordv), dtype=dt)], ord=ordv, axes=None, keepdims=False)
        add("norm", dt, [m], [np.asarray(np.linalg.norm(m, ordv, axis=(1, 0)), dtype=dt)], ord=ordv, axes=[1, 0], keepdims=False)
    t3 = rand((3, 4, 5), dt)
    add("norm", dt, [t3], [np.asarray(np.linalg.norm(t3), dtype=dt)], ord=None, axes=None, keepdims=False)
    for ordv in [None, 1, np.inf, 2, 0]:
        add("norm", dt, [t3], [np.asarray(np.linalg.norm(t3, ordv, axis=1, keepdims=True), dtype=dt)], ord=ordv, axes=[1], keepdims=True)
    for ordv in [None, -1, np.inf]:
        add("norm", dt, [t3], [np.asarray(np.linalg.norm(t3, ordv, axis=(0, 2), keepdims=True), dtype=dt)], ord=ordv, axes=[0, 2], keepdims=True)
    big = np.full((5,), 1e30, dtype=dt)
    add("norm", dt, [big], [np.asarray(np.sqrt(np.sum(big.astype(np.float64) ** 2)), dtype=dt)], ord=None, axes=None, keepdims=False)

# ---- Matrix products. The stored inputs are transformed before use:
# "t" swaps the last two axes (a transposed view), "f" reverses the last
# axis (a negative stride: compacted), "s" takes every other row of the
# second-to-last axis (a row pitch). ----

def view(x, how):
    if how == "t":
        return np.swapaxes(x, -1, -2)
    if how == "f":
        return x[..., ::-1]
    if how == "s":
        return x[..., ::2, :]
    return x


def stored(shape, how, dt):
    # The array whose view(how) has the given shape.
    if how == "t":
        shape = shape[:-2] + (shape[-1], shape[-2])
    if how == "s":
        shape = shape[:-2] + (2 * shape[-2], shape[-1])
    return rand(shape, dt)


mm_shapes = [((3,), (3,)), ((4, 3), (3,)), ((3,), (3, 5)), ((2, 4, 3), (3,)), ((3,), (2, 3, 5)), ((4, 3), (3, 5)),
             ((2, 4, 3), (2, 3, 5)), ((2, 1, 4, 3), (5, 3, 6)), ((1, 4, 3), (2, 3, 5)), ((4, 0), (0, 5)), ((0, 3), (3, 2)),
             ((3, 2, 4, 3), (1, 3, 5)), ((6, 1, 7), (6, 7, 1)), ((1, 1), (1, 1)), ((2, 3, 1, 4), (3, 4, 2))]
for dt in ["float32", "float64"]:
    for sa, sb in mm_shapes:
        for ha, hb in [("", ""), ("t", ""), ("", "t"), ("t", "t"), ("f", ""), ("s", "t")]:
            if (ha and len(sa) < 2) or (hb and len(sb) < 2):
                continue
            a, b = stored(sa, ha, dt), stored(sb, hb, dt)
            add("matmul", dt, [a, b], [np.matmul(view(a, ha), view(b, hb))], ta=ha, tb=hb)
    for sa, sb in [((3,), (3,)), ((4, 3), (3, 5)), ((2, 4, 3), (3,)), ((2, 3), (4, 3, 5)), ((2, 2, 3), (4, 3, 5)),
                   ((3,), (2, 3, 4)), ((2, 3, 4), (4, 2)), ((), (2, 3)), ((2, 3), ())]:
        a, b = rand(sa, dt), rand(sb, dt)
        add("dot", dt, [a, b], [np.asarray(np.dot(a, b))])
    for sa, sb in [((3,), (4,)), ((2, 2), (3,)), ((0,), (2,))]:
        a, b = rand(sa, dt), rand(sb, dt)
        add("outer", dt, [a, b], [np.outer(a, b)])
    for subs, shapes in [("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
                         ("i,i->", [(5,), (5,)]), ("i,i", [(5,), (5,)]), ("i,j->ij", [(3,), (4,)]), ("ij->ji", [(3, 4)]),
                         ("ii->i", [(4, 4)]), ("ii", [(4, 4)]), ("ij->", [(3, 4)]), ("ij->j", [(3, 4)]),
                         ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]), ("ijk,kj->i", [(2, 3, 4), (4, 3)]),
                         ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]), ("...ij,jk->...ik", [(2, 2, 3, 4), (4, 5)]),
                         ("abc,cd->dba", [(2, 3, 4), (4, 5)]), ("ij,kl->ijkl", [(2, 3), (4, 5)]),
                         ("ijk,ikl->jl", [(3, 2, 4), (3, 4, 5)]), ("bi,bi->b", [(4, 6), (4, 6)]), ("ii,i->i", [(3, 3), (3,)]),
                         ("ij,j->i", [(3, 4), (4,)]), ("ij,ij->", [(3, 4), (3, 4)]), ("aij,ajk->aik", [(1, 3, 4), (2, 4, 2)])]:
        ops = [rand(sh, dt) for sh in shapes]
        try:
            r = np.einsum(subs, *ops)
        except ValueError:
            continue
        add("einsum", dt, ops, [np.asarray(r)], subs=subs)

for c in cases:
    p = c["params"]
    for k, v in list(p.items()):
        if isinstance(v, float) and math.isinf(v):
            p[k] = "inf" if v > 0 else "-inf"
with gzip.open("lang_goldens.json.gz", "wt") as f:
    json.dump({"cases": cases}, f)
print(len(cases), "cases")
