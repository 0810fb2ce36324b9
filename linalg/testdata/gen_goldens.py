#!/usr/bin/python3
"""Writes goldens.json.gz: NumPy/SciPy results for linalg's differential tests.

Run with Debian's python3-numpy and python3-scipy (apt-get install -y
python3-numpy python3-scipy), from this directory:

    /usr/bin/python3 gen_goldens.py

The tests never run NumPy: they read goldens.json.gz. Inputs are generated
here (seeded) and stored with the outputs, so the file alone defines each
case. Outputs are NumPy's (or SciPy's, for lu and cho_solve) for the
case's dtype. Solve follows NumPy 2 (a 1-D b is one vector, broadcast
against a's stack) whatever the installed version. Lstsq uses NumPy 2's default rcond (machine epsilon times
max(m, n)), passed explicitly so any NumPy version gives it.
"""

import gzip
import json
import math

import numpy as np
import scipy.linalg as sla

rng = np.random.default_rng(20240530)
cases = []
# An error's info of -1 is not compared: the position of the zero pivot
# depends on whether a or aᵀ was factored.


def enc(x):
    x = np.asarray(x)
    single = x.dtype == np.float32
    data = []
    for v in x.ravel():
        f = float(v)
        if math.isnan(f):
            data.append("nan")
        elif math.isinf(f):
            data.append("inf" if f > 0 else "-inf")
        elif single:
            # The shortest digits that give back this float32 (the tests
            # parse float32 data with float32 rounding), as the float64
            # that prints as them.
            data.append(float(np.format_float_scientific(v, unique=True)))
        else:
            data.append(f)
    return {"shape": list(x.shape), "data": data}


def add(name, op, dtype, inputs, outputs=None, params=None, error=None, scale=1.0):
    cases.append({
        "name": name, "op": op, "dtype": dtype,
        "inputs": {k: enc(v) for k, v in inputs.items()},
        "outputs": {k: enc(v) for k, v in (outputs or {}).items()},
        "params": params or {}, "error": error, "scale": float(scale),
    })


def rand(shape, dt):
    return rng.standard_normal(shape).astype(dt)


def well(n, batch=(), dt=np.float64):
    # Diagonally weighted so the condition number stays moderate.
    a = rand(batch + (n, n), dt)
    return (a + n * np.eye(n, dtype=dt) * 0.5).astype(dt)


def spd(n, batch=(), dt=np.float64):
    m = rand(batch + (n, n), np.float64)
    a = m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
    return a.astype(dt)


def cond(a):
    a = np.asarray(a, dtype=np.float64)
    if a.size == 0:
        return 1.0
    return float(np.max(np.linalg.cond(a)))


def norm2(a):
    a = np.asarray(a, dtype=np.float64)
    if a.size == 0:
        return 1.0
    return float(np.max(np.linalg.norm(a, 2, axis=(-2, -1))))


def solve2(a, b):
    """np.linalg.solve with NumPy 2's rule: a 1-D b is one vector."""
    if b.ndim == 1:
        return np.linalg.solve(a, b[:, None])[..., 0]
    return np.linalg.solve(a, b)


DT = {"float32": np.float32, "float64": np.float64}

for dn, dt in DT.items():
    # Solve and Inv.
    for n in (1, 3, 8, 33):
        a = well(n, dt=dt)
        b = rand((n,), dt)
        add(f"solve/{dn}/n{n}/vector", "solve", dn, {"a": a, "b": b}, {"x": solve2(a, b)}, scale=cond(a))
        b = rand((n, 3), dt)
        add(f"solve/{dn}/n{n}/matrix", "solve", dn, {"a": a, "b": b}, {"x": solve2(a, b)}, scale=cond(a))
        add(f"inv/{dn}/n{n}", "inv", dn, {"a": a}, {"x": np.linalg.inv(a)}, scale=cond(a))
    a = well(5, (2, 3), dt)
    b = rand((5,), dt)
    add(f"solve/{dn}/stack-vector", "solve", dn, {"a": a, "b": b}, {"x": solve2(a, b)}, scale=cond(a))
    a = well(6, (4,), dt)
    b = rand((4, 6, 2), dt)
    add(f"solve/{dn}/stack-matrix", "solve", dn, {"a": a, "b": b}, {"x": solve2(a, b)}, scale=cond(a))
    a = well(4, (1,), dt)
    b = rand((3, 4, 2), dt)
    add(f"solve/{dn}/broadcast", "solve", dn, {"a": a, "b": b}, {"x": solve2(a, b)}, scale=cond(a))
    a = well(80, (), dt)
    b = rand((80, 2), dt)
    add(f"solve/{dn}/n80", "solve", dn, {"a": a, "b": b}, {"x": solve2(a, b)}, scale=cond(a))
    a = well(24, (3,), dt)
    add(f"inv/{dn}/stack", "inv", dn, {"a": a}, {"x": np.linalg.inv(a)}, scale=cond(a))
    h = sla.hilbert(6 if dn == "float32" else 10).astype(dt)
    b = rand((h.shape[0],), dt)
    add(f"solve/{dn}/hilbert", "solve", dn, {"a": h, "b": b}, {"x": solve2(h, b)}, scale=cond(h))
    # Singular with exact arithmetic in every elimination order (powers of
    # two, rows 0 and 2 proportional): a zero pivot whatever the library's
    # rounding (FMA or not) and whether a or aᵀ is factored. A matrix
    # singular only in exact arithmetic (multipliers like 1/3) can factor
    # with a rounding-size pivot instead, in LAPACK as in cuSOLVER.
    sing = np.array([[4, 8, 16], [2, 1, 3], [1, 2, 4]], dt)
    add(f"solve/{dn}/singular", "solve", dn, {"a": sing, "b": rand((3,), dt)}, error={"kind": "singular", "index": [], "info": -1})
    stack = np.stack([well(3, dt=dt), sing, well(3, dt=dt)])
    add(f"inv/{dn}/singular-in-stack", "inv", dn, {"a": stack}, error={"kind": "singular", "index": [1], "info": -1})
    add(f"solve/{dn}/zero", "solve", dn, {"a": np.zeros((2, 2), dt), "b": rand((2,), dt)}, error={"kind": "singular", "index": [], "info": 1})
    add(f"solve/{dn}/empty", "solve", dn, {"a": np.zeros((0, 0), dt), "b": np.zeros((0,), dt)}, {"x": np.zeros((0,), dt)})
    add(f"solve/{dn}/empty-batch", "solve", dn, {"a": np.zeros((0, 3, 3), dt), "b": np.zeros((0, 3, 2), dt)}, {"x": np.zeros((0, 3, 2), dt)})
    add(f"inv/{dn}/empty", "inv", dn, {"a": np.zeros((2, 0, 0), dt)}, {"x": np.zeros((2, 0, 0), dt)})

    # Det and Slogdet.
    for n in (1, 2, 5, 12):
        a = rand((n, n), dt)
        sign, logdet = np.linalg.slogdet(a)
        add(f"det/{dn}/n{n}", "det", dn, {"a": a}, {"det": np.linalg.det(a), "sign": sign, "logabsdet": logdet}, scale=cond(a))
    a = rand((3, 2, 4, 4), dt)
    sign, logdet = np.linalg.slogdet(a)
    add(f"det/{dn}/stack", "det", dn, {"a": a}, {"det": np.linalg.det(a), "sign": sign, "logabsdet": logdet}, scale=cond(a))
    a = rand((150, 5, 5), dt)  # many small matrices: the batched path
    sign, logdet = np.linalg.slogdet(a)
    add(f"det/{dn}/many", "det", dn, {"a": a}, {"det": np.linalg.det(a), "sign": sign, "logabsdet": logdet}, scale=cond(a))
    a = (rand((60, 60), dt) * 8).astype(dt)  # |det| overflows float32
    sign, logdet = np.linalg.slogdet(a)
    add(f"det/{dn}/large", "det", dn, {"a": a}, {"sign": sign, "logabsdet": logdet}, scale=cond(a))
    sing = np.array([[1, 2], [2, 4]], dt)
    sign, logdet = np.linalg.slogdet(sing)
    add(f"det/{dn}/singular", "det", dn, {"a": sing}, {"det": np.linalg.det(sing), "sign": sign, "logabsdet": logdet})
    add(f"det/{dn}/empty", "det", dn, {"a": np.zeros((3, 0, 0), dt)}, {"det": np.ones(3, dt), "sign": np.ones(3, dt), "logabsdet": np.zeros(3, dt)})

    # Cholesky and CholeskySolve.
    for n in (1, 4, 17):
        a = spd(n, dt=dt)
        add(f"cholesky/{dn}/n{n}/lower", "cholesky", dn, {"a": a}, {"l": np.linalg.cholesky(a)}, params={"tri": "L"}, scale=cond(a))
        add(f"cholesky/{dn}/n{n}/upper", "cholesky", dn, {"a": a}, {"l": np.linalg.cholesky(a).T.conj()}, params={"tri": "U"}, scale=cond(a))
        b = rand((n, 2), dt)
        c = np.linalg.cholesky(a)
        add(f"cholesky_solve/{dn}/n{n}/lower", "cholesky_solve", dn, {"c": c, "b": b}, {"x": sla.cho_solve((c, True), b)}, params={"tri": "L"}, scale=cond(a))
        add(f"cholesky_solve/{dn}/n{n}/upper", "cholesky_solve", dn, {"c": c.T.copy(), "b": b[:, 0].copy()}, {"x": sla.cho_solve((c.T, False), b[:, 0])}, params={"tri": "U"}, scale=cond(a))
    a = spd(5, (6,), dt)
    add(f"cholesky/{dn}/stack", "cholesky", dn, {"a": a}, {"l": np.linalg.cholesky(a)}, params={"tri": "L"}, scale=cond(a))
    c = np.linalg.cholesky(a)
    b = rand((6, 5, 1), dt)
    add(f"cholesky_solve/{dn}/stack", "cholesky_solve", dn, {"c": c, "b": b}, {"x": np.stack([sla.cho_solve((c[i], True), b[i]) for i in range(6)])}, params={"tri": "L"}, scale=cond(a))
    a = spd(70, (), dt)
    add(f"cholesky/{dn}/n70", "cholesky", dn, {"a": a}, {"l": np.linalg.cholesky(a)}, params={"tri": "L"}, scale=cond(a))
    # Only the lower triangle is read: garbage above it changes nothing.
    a = spd(4, dt=dt)
    g = np.tril(a) + np.triu(rand((4, 4), dt), 1)
    add(f"cholesky/{dn}/lower-only", "cholesky", dn, {"a": g}, {"l": np.linalg.cholesky(a)}, params={"tri": "L"}, scale=cond(a))
    notpd = np.array([[4, 2, 0], [2, 1, 0], [0, 0, 1]], dt)  # the order-2 minor is singular
    add(f"cholesky/{dn}/not-pd", "cholesky", dn, {"a": notpd}, params={"tri": "L"}, error={"kind": "notpd", "index": [], "info": 2})
    stack = np.stack([spd(3, dt=dt), spd(3, dt=dt), -np.eye(3, dtype=dt)])
    add(f"cholesky/{dn}/not-pd-in-stack", "cholesky", dn, {"a": stack}, params={"tri": "L"}, error={"kind": "notpd", "index": [2], "info": 1})
    bad = spd(4, dt=dt)
    bad[2, 1] = bad[1, 2] = np.nan
    add(f"cholesky/{dn}/nan", "cholesky", dn, {"a": bad}, params={"tri": "L"}, error={"kind": "notpd", "index": [], "info": -1})
    add(f"cholesky/{dn}/empty", "cholesky", dn, {"a": np.zeros((0, 0), dt)}, {"l": np.zeros((0, 0), dt)}, params={"tri": "L"})

    # LU (SciPy's).
    for shape in ((4, 4), (6, 3), (3, 6), (1, 1), (25, 25)):
        a = rand(shape, dt)
        p, l, u = sla.lu(a)
        add(f"lu/{dn}/{shape[0]}x{shape[1]}", "lu", dn, {"a": a}, {"p": p, "l": l, "u": u}, scale=cond(a))
    a = rand((2, 3, 4, 4), dt)
    ps, ls, us = zip(*[sla.lu(m) for m in a.reshape(-1, 4, 4)])
    add(f"lu/{dn}/stack", "lu", dn, {"a": a}, {"p": np.reshape(ps, (2, 3, 4, 4)), "l": np.reshape(ls, (2, 3, 4, 4)), "u": np.reshape(us, (2, 3, 4, 4))}, scale=cond(a))
    # Singular at the last pivot only, with exact elimination (see solve's
    # singular case): the factors are unique. Where a zero pivot comes
    # earlier, or rounding decides it, the multipliers below it are not.
    sing = np.array([[4, 8, 16], [2, 1, 3], [1, 2, 4]], dt)
    p, l, u = sla.lu(sing)
    add(f"lu/{dn}/singular", "lu", dn, {"a": sing}, {"p": p, "l": l, "u": u})
    add(f"lu/{dn}/empty", "lu", dn, {"a": np.zeros((3, 0), dt)}, {"p": np.eye(3, dtype=dt), "l": np.zeros((3, 0), dt), "u": np.zeros((0, 0), dt)})

    # QR.
    for shape in ((5, 5), (7, 3), (3, 7), (24, 10)):
        a = rand(shape, dt)
        for mode in ("reduced", "complete", "r"):
            if mode == "r":
                outs = {"r": np.linalg.qr(a, mode="r")}
            else:
                q, r = np.linalg.qr(a, mode=mode)
                outs = {"q": q, "r": r}
            add(f"qr/{dn}/{shape[0]}x{shape[1]}/{mode}", "qr", dn, {"a": a}, outs, params={"mode": mode}, scale=cond(a))
    a = rand((3, 6, 4), dt)
    q, r = np.linalg.qr(a)
    add(f"qr/{dn}/stack", "qr", dn, {"a": a}, {"q": q, "r": r}, params={"mode": "reduced"}, scale=cond(a))
    q, r = np.linalg.qr(a, mode="complete")
    add(f"qr/{dn}/stack/complete", "qr", dn, {"a": a}, {"q": q, "r": r}, params={"mode": "complete"}, scale=cond(a))
    q, r = np.linalg.qr(np.zeros((3, 0), dt), mode="complete")
    add(f"qr/{dn}/empty/complete", "qr", dn, {"a": np.zeros((3, 0), dt)}, {"q": q, "r": r}, params={"mode": "complete"})

    # SVD.
    for shape in ((5, 5), (8, 3), (3, 8), (30, 12), (12, 30)):
        a = rand(shape, dt)
        for full in (True, False):
            u, s, vh = np.linalg.svd(a, full_matrices=full)
            add(f"svd/{dn}/{shape[0]}x{shape[1]}/full={full}", "svd", dn, {"a": a}, {"u": u, "s": s, "vh": vh}, params={"full": full}, scale=norm2(a))
        add(f"svdvals/{dn}/{shape[0]}x{shape[1]}", "svdvals", dn, {"a": a}, {"s": np.linalg.svd(a, compute_uv=False)}, scale=norm2(a))
    a = rand((40, 6, 4), dt)  # the batched Jacobi path
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    add(f"svd/{dn}/stack-small", "svd", dn, {"a": a}, {"u": u, "s": s, "vh": vh}, params={"full": False}, scale=norm2(a))
    u, s, vh = np.linalg.svd(a, full_matrices=True)
    add(f"svd/{dn}/stack-small/full", "svd", dn, {"a": a}, {"u": u, "s": s, "vh": vh}, params={"full": True}, scale=norm2(a))
    a = rand((2, 36, 34), dt)  # a stack of large ones: one call each
    add(f"svdvals/{dn}/stack-large", "svdvals", dn, {"a": a}, {"s": np.linalg.svd(a, compute_uv=False)}, scale=norm2(a))
    # Rank 2, 6×5.
    a = (rand((6, 2), dt) @ rand((2, 5), dt)).astype(dt)
    u, s, vh = np.linalg.svd(a)
    add(f"svd/{dn}/rank2", "svd", dn, {"a": a}, {"u": u, "s": s, "vh": vh}, params={"full": True}, scale=norm2(a))
    u, s, vh = np.linalg.svd(np.zeros((3, 0), dt))
    add(f"svd/{dn}/empty", "svd", dn, {"a": np.zeros((3, 0), dt)}, {"u": u, "s": s, "vh": vh}, params={"full": True})
    bad = rand((4, 4), dt)
    bad[1, 2] = np.nan
    add(f"svd/{dn}/nan", "svd", dn, {"a": bad}, params={"full": True}, error={"kind": "noconv", "index": [], "info": -1})

    # Eigh.
    for n in (1, 4, 30, 48):
        a = rand((n, n), dt)
        a = ((a + a.T) / 2).astype(dt)
        w, v = np.linalg.eigh(a)
        add(f"eigh/{dn}/n{n}", "eigh", dn, {"a": a}, {"w": w, "v": v}, params={"tri": "L"}, scale=norm2(a))
        add(f"eigvalsh/{dn}/n{n}", "eigvalsh", dn, {"a": a}, {"w": np.linalg.eigvalsh(a)}, params={"tri": "L"}, scale=norm2(a))
    a = rand((5, 5), dt)
    for tri in ("L", "U"):
        w, v = np.linalg.eigh(a, UPLO=tri)  # one triangle of a non-symmetric array
        sym = np.tril(a) + np.tril(a, -1).T if tri == "L" else np.triu(a) + np.triu(a, 1).T
        add(f"eigh/{dn}/triangle-{tri}", "eigh", dn, {"a": a}, {"w": w, "v": v, "sym": sym}, params={"tri": tri}, scale=norm2(sym))
    a = rand((40, 6, 6), dt)  # the batched Jacobi path
    a = ((a + np.swapaxes(a, -1, -2)) / 2).astype(dt)
    w, v = np.linalg.eigh(a)
    add(f"eigh/{dn}/stack-small", "eigh", dn, {"a": a}, {"w": w, "v": v}, params={"tri": "L"}, scale=norm2(a))
    a = rand((2, 36, 36), dt)
    a = ((a + np.swapaxes(a, -1, -2)) / 2).astype(dt)
    w, v = np.linalg.eigh(a)
    add(f"eigh/{dn}/stack-large", "eigh", dn, {"a": a}, {"w": w, "v": v}, params={"tri": "L"}, scale=norm2(a))
    bad = np.stack([np.eye(3, dtype=dt), np.eye(3, dtype=dt)])
    bad[1, 0, 0] = np.nan
    add(f"eigh/{dn}/nan-in-stack", "eigh", dn, {"a": bad}, params={"tri": "L"}, error={"kind": "noconv", "index": [1], "info": -1})
    w, v = np.linalg.eigh(np.zeros((0, 0), dt))
    add(f"eigh/{dn}/empty", "eigh", dn, {"a": np.zeros((0, 0), dt)}, {"w": w, "v": v}, params={"tri": "L"})

    # Lstsq, Pinv, MatrixRank.
    eps = float(np.finfo(dt).eps)
    for shape, kb in (((8, 3), 0), ((8, 3), 2), ((3, 8), 0), ((6, 6), 1)):
        a = rand(shape, dt)
        b = rand((shape[0],) if kb == 0 else (shape[0], kb), dt)
        rc = eps * max(shape)
        x, res, rank, s = np.linalg.lstsq(a, b, rcond=rc)
        add(f"lstsq/{dn}/{shape[0]}x{shape[1]}/k{kb}", "lstsq", dn, {"a": a, "b": b}, {"x": x, "residuals": res, "rank": np.array(rank), "s": s}, params={"rcond": -1}, scale=cond(a))
    a = (rand((7, 2), dt) @ rand((2, 4), dt)).astype(dt)  # rank 2: the minimum-norm solution
    b = rand((7,), dt)
    x, res, rank, s = np.linalg.lstsq(a, b, rcond=1e-4)
    add(f"lstsq/{dn}/rank2", "lstsq", dn, {"a": a, "b": b}, {"x": x, "residuals": res, "rank": np.array(rank), "s": s}, params={"rcond": 1e-4}, scale=norm2(a) / s[1])
    x, res, rank, s = np.linalg.lstsq(np.ones((3, 0), dt), np.ones(3, dt), rcond=None)
    add(f"lstsq/{dn}/empty", "lstsq", dn, {"a": np.ones((3, 0), dt), "b": np.ones(3, dt)}, {"x": x, "residuals": res, "rank": np.array(rank), "s": s}, params={"rcond": -1})
    for shape in ((5, 3), (3, 5), (4, 4)):
        a = rand(shape, dt)
        add(f"pinv/{dn}/{shape[0]}x{shape[1]}", "pinv", dn, {"a": a}, {"x": np.linalg.pinv(a)}, params={"rcond": -1}, scale=cond(a))
    a = (rand((3, 6, 2), dt) @ rand((3, 2, 5), dt)).astype(dt)
    add(f"pinv/{dn}/stack-rank2", "pinv", dn, {"a": a}, {"x": np.linalg.pinv(a, rcond=1e-4)}, params={"rcond": 1e-4}, scale=30.0)
    for name, a in (("full", rand((6, 4), dt)), ("rank2", (rand((6, 2), dt) @ rand((2, 4), dt)).astype(dt)),
                    ("zero", np.zeros((3, 3), dt)), ("stack", np.stack([rand((5, 5), dt), np.diag([1, 1, 0, 0, 1]).astype(dt)]))):
        add(f"matrix_rank/{dn}/{name}", "matrix_rank", dn, {"a": a}, {"rank": np.linalg.matrix_rank(a)}, params={"tol": -1})
    a = np.diag([1, 1e-3, 1e-6]).astype(dt)
    add(f"matrix_rank/{dn}/tol", "matrix_rank", dn, {"a": a}, {"rank": np.linalg.matrix_rank(a, tol=1e-4)}, params={"tol": 1e-4})

doc = json.dumps({"numpy": np.__version__, "scipy": __import__("scipy").__version__, "cases": cases}, separators=(",", ":"))
with open("goldens.json.gz", "wb") as f:
    # mtime 0: the same inputs give the same bytes.
    with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=9, mtime=0) as z:
        z.write(doc.encode())
print(len(cases), "cases")
