#!/usr/bin/python3
"""npfuncs_golden.py writes testdata/npfuncs.bin.gz: NumPy's results for issue
27's elementwise functions that have exact answers (floor division and
remainder, fmod (Go's %), shifts, bitwise operations, sign, rounding, fmin/fmax,
copysign, the float tests), on special values and random arguments of
every integer and float type, for the tests of every back end (the
results must match bit for bit).

    /usr/bin/python3 npfuncs_golden.py        (Debian: python3-numpy)

Needs NumPy only to regenerate; the Go tests read the generated file
(embedded in package testutil: npgolden.go reads the format written at
the end of this script).
"""

import gzip
import struct
import sys

import numpy as np

rng = np.random.default_rng(27)
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float32, np.float64]


def bits(arr):
    """Raw bits as uint64: integers sign- or zero-extended, floats' bit
    patterns."""
    arr = np.asarray(arr)
    if arr.dtype == np.float32:
        return arr.view(np.uint32).astype(np.uint64)
    if arr.dtype == np.float64:
        return arr.view(np.uint64)
    if arr.dtype.kind == "i":
        return arr.astype(np.int64).view(np.uint64)
    if arr.dtype == np.bool_:
        return arr.astype(np.uint64)
    return arr.astype(np.uint64)


def int_values(t):
    info = np.iinfo(t)
    w = info.bits
    vals = {0, 1, 2, 3, 7, w - 1, w, w + 1, info.max, info.max - 1, 13, 100 % (info.max + 1)}
    if info.min < 0:
        vals |= {-1, -2, -3, -7, -w, info.min, info.min + 1, -13}
    vals = sorted(v for v in vals if info.min <= v <= info.max)
    rand = rng.integers(info.min, info.max, size=8, dtype=t, endpoint=True)
    small = rng.integers(max(info.min, -70), min(info.max, 70), size=6, dtype=t, endpoint=True)
    return np.concatenate([np.array(vals, dtype=t), rand, small])


def float_values(t):
    fi = np.finfo(t)
    sub = fi.smallest_subnormal
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 2.0, -3.0, 7.0, -7.0, 0.1, -0.1, 1 / 3,
            np.inf, -np.inf, np.nan, sub, -sub, fi.tiny, fi.max, -fi.max, 1e10, -1e10, 3.5, 4.5, -4.5,
            2.0 ** 23, 2.0 ** 52, 2.0 ** 53 + 2, 0.49999997, 6.0, -6.0, 10.0, 1e-5]
    vals = np.array(vals, dtype=t)
    mags = rng.uniform(-1, 1, size=16) * 2.0 ** rng.integers(-40, 40, size=16)
    wide = rng.uniform(-1, 1, size=8) * 2.0 ** rng.integers(fi.minexp, fi.maxexp, size=8).astype(np.float64)
    return np.concatenate([vals, mags.astype(t), wide.astype(t)])


def pairs(a, b):
    A = np.repeat(a, len(b))
    B = np.tile(b, len(a))
    return A, B


out = []


def add(op, t, a, b, want):
    out.append((op, np.dtype(t).name, bits(a), None if b is None else bits(b), bits(want)))


with np.errstate(all="ignore"):
    for t in FLOATS:
        v = float_values(t)
        a, b = pairs(v, v)
        add("floordiv", t, a, b, np.floor_divide(a, b))
        add("mod", t, a, b, np.remainder(a, b))
        add("rem", t, a, b, np.fmod(a, b))
        add("fmin", t, a, b, np.fmin(a, b))
        add("fmax", t, a, b, np.fmax(a, b))
        add("minimum", t, a, b, np.minimum(a, b))
        add("maximum", t, a, b, np.maximum(a, b))
        add("copysign", t, a, b, np.copysign(a, b))
        for op, fn in (("sign", np.sign), ("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc),
                       ("round", np.rint), ("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
            add(op, t, v, None, fn(v))
        # Quotients of very different magnitudes (fmod's long division).
        x = (rng.uniform(-1, 1, 400) * 2.0 ** rng.integers(-60, 300, 400)).astype(t)
        y = (rng.uniform(-1, 1, 400) * 2.0 ** rng.integers(-60, 60, 400)).astype(t)
        add("floordiv", t, x, y, np.floor_divide(x, y))
        add("mod", t, x, y, np.remainder(x, y))
        add("rem", t, x, y, np.fmod(x, y))
    for t in INTS:
        v = int_values(t)
        a, b = pairs(v, v)
        add("floordiv", t, a, b, np.floor_divide(a, b))
        add("mod", t, a, b, np.remainder(a, b))
        add("rem", t, a, b, np.fmod(a, b))
        add("bitand", t, a, b, np.bitwise_and(a, b))
        add("bitor", t, a, b, np.bitwise_or(a, b))
        add("bitxor", t, a, b, np.bitwise_xor(a, b))
        add("shl", t, a, b, np.left_shift(a, b))
        add("shr", t, a, b, np.right_shift(a, b))
        add("fmin", t, a, b, np.fmin(a, b))
        add("fmax", t, a, b, np.fmax(a, b))
        add("invert", t, v, None, np.invert(v))
        add("sign", t, v, None, np.sign(v))


# Format: records of op, dtype (each a length byte and ASCII), n (uint32),
# a flag byte (1: binary, with B), then A, [B,] Want as n little-endian
# uint64 each; gzip-compressed.
buf = bytearray()
for op, t, a, b, want in out:
    for name in (op, t):
        buf += bytes([len(name)]) + name.encode()
    buf += struct.pack("<IB", len(a), 0 if b is None else 1)
    for arr in (a, b, want):
        if arr is not None:
            buf += np.asarray(arr, dtype="<u8").tobytes()
with open("testdata/npfuncs.bin.gz", "wb") as raw:
    with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(bytes(buf))
print("%d cases in %d sets, %d bytes" % (sum(len(w) for *_, w in out), len(out), len(buf)), file=sys.stderr)
