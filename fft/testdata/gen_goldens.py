#!/usr/bin/python3
"""Writes goldens.json.gz: NumPy's numpy.fft results for package fft's
differential tests.

Run with Debian's python3-numpy (apt-get install -y python3-numpy), from
this directory:

    /usr/bin/python3 gen_goldens.py

The tests never run NumPy: they read goldens.json.gz. Inputs are generated
here (seeded) and stored with the outputs, so the file alone defines each
case. Single-precision inputs are rounded to float32 / complex64 first and
transformed in double precision (NumPy before 2.0 always does; NumPy 2's
pocketfft would compute in single precision), so each output is the exact
transform of the stored input to within double rounding, and the tests
judge both precisions against it.
"""

import gzip
import json
import math

import numpy as np

rng = np.random.default_rng(20261126)
cases = []


def enc(x):
    x = np.asarray(x)
    out = {"shape": list(x.shape)}
    if np.iscomplexobj(x):
        out["re"] = [float(v) for v in x.real.ravel()]
        out["im"] = [float(v) for v in x.imag.ravel()]
    else:
        out["re"] = [float(v) for v in x.ravel()]
    return out


def data(shape, dtype):
    if dtype in ("complex64", "complex128"):
        x = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    else:
        x = rng.standard_normal(shape)
    return x.astype(dtype)


def add(op, dtype, shape, params):
    x = data(shape, dtype)
    wide = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    kw = {}
    for k in ("n", "axis", "s", "axes", "norm"):
        if k in params:
            kw[k] = tuple(params[k]) if k in ("s", "axes") else params[k]
    y = getattr(np.fft, op)(wide, **kw)
    name = "%s %s %s %s" % (op, dtype, list(shape), params)
    cases.append({"name": name, "op": op, "dtype": dtype, "params": params,
                  "x": enc(x), "y": enc(y)})


SIZES = [1, 2, 3, 7, 8, 17, 64, 97, 100, 1024]
NORMS = ["backward", "ortho", "forward"]

for dt in ("complex128", "complex64"):
    for i, n in enumerate(SIZES):
        norm = NORMS[i % 3]
        add("fft", dt, (n,), {"norm": norm})
        add("ifft", dt, (n,), {"norm": NORMS[(i + 1) % 3]})
    for norm in NORMS:
        add("fft", dt, (5, 12), {"norm": norm})
        add("ifft", dt, (12, 5), {"axis": 0, "norm": norm})
    add("fft", dt, (8,), {"n": 12})
    add("fft", dt, (8,), {"n": 5})
    add("ifft", dt, (3, 7), {"n": 4, "axis": 0})
    add("fft", dt, (3, 5, 4), {"axis": -2, "n": 9})
    add("fft", dt, (4, 6, 3), {"axis": 1})
    add("fft2", dt, (6, 8), {})
    add("ifft2", dt, (3, 8, 6), {"axes": [0, 2], "norm": "ortho"})
    add("fft2", dt, (5, 7), {"s": [8, 4]})
    add("fftn", dt, (4, 5, 6), {})
    add("ifftn", dt, (4, 5, 6), {"axes": [2, 0], "norm": "forward"})
    add("fftn", dt, (2, 3, 4, 5), {})
    add("fftn", dt, (2, 3, 4, 5), {"axes": [3, 1]})
    add("fftn", dt, (3, 4, 5), {"s": [6, 3]})
    add("ifftn", dt, (3, 4, 2, 5), {"axes": [1, 2, 3], "s": [3, 3, 7]})

for dt in ("float64", "float32"):
    cdt = "complex128" if dt == "float64" else "complex64"
    for i, n in enumerate(SIZES):
        add("rfft", dt, (n,), {"norm": NORMS[i % 3]})
        m = n // 2 + 1
        add("irfft", cdt, (m,), {"n": n, "norm": NORMS[(i + 2) % 3]})
    for m in (2, 5, 9, 33):
        add("irfft", cdt, (m,), {})
    add("irfft", cdt, (4, 5), {"n": 9})
    add("irfft", cdt, (6, 3), {"axis": 0, "n": 4})
    add("irfft", cdt, (5, 3), {"axis": 0, "n": 13, "norm": "ortho"})
    add("rfft", dt, (8,), {"n": 12})
    add("rfft", dt, (9,), {"n": 5})
    add("rfft", dt, (5, 7), {"axis": 0})
    add("rfft", dt, (3, 6, 4), {"axis": 1, "norm": "forward"})
    add("rfft2", dt, (6, 8), {})
    add("rfft2", dt, (4, 6, 5), {"axes": [0, 2]})
    add("rfftn", dt, (4, 5, 6), {})
    add("rfftn", dt, (4, 5, 6), {"axes": [2, 0], "norm": "ortho"})
    add("rfftn", dt, (2, 3, 4, 5), {})
    add("rfftn", dt, (3, 5), {"s": [4, 8]})
    add("irfft2", cdt, (6, 5), {})
    add("irfft2", cdt, (3, 6, 4), {"axes": [0, 2], "s": [5, 7]})
    add("irfftn", cdt, (4, 5, 4), {})
    add("irfftn", cdt, (4, 5, 4), {"axes": [2, 0], "norm": "forward"})
    add("irfftn", cdt, (2, 3, 4, 3), {"s": [3, 4, 4]})
    add("irfftn", cdt, (2, 3, 4, 3), {})

with gzip.open("goldens.json.gz", "wt") as f:
    json.dump({"numpy": np.__version__, "cases": cases}, f)
print(len(cases), "cases")
