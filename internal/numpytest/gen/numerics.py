"""Element types, exact rounding and value sampling for the NumPy goldens.

Every element type the goldens know is one row of TYPES. A row says how the
type is stored (the little-endian bytes the Go side reads), how NumPy
computes with it, and which class of functions applies. bfloat16 has no
NumPy dtype: it is emulated by float32 arrays whose values are all bfloat16
values, rounded to bfloat16 after every operation (compute in float32,
round on store, as gpuarr and PyTorch do).
"""

import base64
import math
from fractions import Fraction

import numpy as np


class TypeSpec:
    """One element type.

    name:    the Go-side name (device/dtype's String)
    kind:    'b' bool, 'i' signed, 'u' unsigned, 'f' real float, 'c' complex
    np:      the NumPy dtype values are computed in (float32 for bfloat16)
    store:   the NumPy dtype of the stored bytes (uint16 for bfloat16)
    prec, emin, emax: a real float's precision in bits (with the hidden
             bit), least normal exponent and greatest exponent
    """

    def __init__(self, name, kind, np_dtype, store=None, prec=None, emin=None, emax=None, part=None):
        self.name = name
        self.kind = kind
        self.np = np.dtype(np_dtype)
        self.store = np.dtype(store or np_dtype)
        self.prec, self.emin, self.emax = prec, emin, emax
        self.part = part  # a complex type's real part's name

    @property
    def size(self):
        return self.store.itemsize

    @property
    def bits(self):
        return 8 * self.size

    def is_int(self):
        return self.kind in 'iu'

    def is_float(self):
        return self.kind == 'f'

    def is_complex(self):
        return self.kind == 'c'

    def is_half(self):
        return self.name in ('float16', 'bfloat16')

    def info(self):
        return np.iinfo(self.np) if self.is_int() else None

    def max_finite(self):
        return (2 - 2.0 ** (1 - self.prec)) * 2.0 ** self.emax

    def min_normal(self):
        return 2.0 ** self.emin

    def min_subnormal(self):
        return 2.0 ** (self.emin - self.prec + 1)

    def eps(self):
        return 2.0 ** (1 - self.prec)

    def __repr__(self):
        return self.name


TYPES = {t.name: t for t in [
    TypeSpec('bool', 'b', np.bool_),
    TypeSpec('int8', 'i', np.int8),
    TypeSpec('int16', 'i', np.int16),
    TypeSpec('int32', 'i', np.int32),
    TypeSpec('int64', 'i', np.int64),
    TypeSpec('uint8', 'u', np.uint8),
    TypeSpec('uint16', 'u', np.uint16),
    TypeSpec('uint32', 'u', np.uint32),
    TypeSpec('uint64', 'u', np.uint64),
    TypeSpec('float16', 'f', np.float16, prec=11, emin=-14, emax=15),
    TypeSpec('bfloat16', 'f', np.float32, store=np.uint16, prec=8, emin=-126, emax=127),
    TypeSpec('float32', 'f', np.float32, prec=24, emin=-126, emax=127),
    TypeSpec('float64', 'f', np.float64, prec=53, emin=-1022, emax=1023),
    TypeSpec('complex64', 'c', np.complex64, part='float32'),
    TypeSpec('complex128', 'c', np.complex128, part='float64'),
]}

INTS = [n for n, t in TYPES.items() if t.is_int()]
FLOATS = [n for n, t in TYPES.items() if t.is_float()]
COMPLEX = [n for n, t in TYPES.items() if t.is_complex()]
# Types gpuarr stores today; the rest are being added (their cases are
# pending in the Go runner until the type's row exists there).
REALS = INTS + FLOATS
NUMBERS = REALS + COMPLEX


def T(name):
    return TYPES[name]


# ---------------------------------------------------------------- rounding

def round_float(x, t):
    """x (float64 array) rounded to nearest-even in the real float type t,
    returned as an array of t.np (for bfloat16: float32 values that are all
    bfloat16 values). One rounding, including subnormal results and
    overflow to infinity."""
    t = T(t) if isinstance(t, str) else t
    x = np.asarray(x, dtype=np.float64)
    if t.name == 'float64':
        return x.copy()
    out = np.array(x, dtype=np.float64, copy=True)
    fin = np.isfinite(x) & (x != 0)
    if fin.any():
        v = x[fin]
        _, e = np.frexp(v)            # v = m·2^e, m in [0.5, 1)
        q = np.maximum(e - t.prec, t.emin - t.prec + 1)   # the quantum's exponent
        r = np.ldexp(np.rint(np.ldexp(v, -q)), q)         # exact scaling, RNE
        r[np.abs(r) > t.max_finite()] = np.inf * np.sign(r[np.abs(r) > t.max_finite()])
        out[fin] = r
    return out.astype(t.np)


def round_fraction(q, t):
    """The exact rational q rounded to nearest-even in the real float type t,
    as a Python float."""
    t = T(t) if isinstance(t, str) else t
    if q == 0:
        return 0.0
    sign = -1.0 if q < 0 else 1.0
    a = abs(q)
    # e: the exponent of a's leading bit, 2^e <= a < 2^(e+1)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    quantum = max(e - t.prec + 1, t.emin - t.prec + 1)
    scaled = a / Fraction(2) ** quantum
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
        n += 1
    r = Fraction(n) * Fraction(2) ** quantum
    if r > Fraction(t.max_finite()):
        return sign * math.inf
    return sign * float(r)


def to_type(x, t):
    """Values converted to type t with NumPy's conversion (floats rounded
    once to nearest), as an array of t.np."""
    t = T(t) if isinstance(t, str) else t
    x = np.asarray(x)
    if t.name == 'bfloat16':  # (integers: exact in float64 below 2^53; casts round from the integer)
        return round_float(x.astype(np.float64), t)
    with np.errstate(all='ignore'):
        return x.astype(t.np)


# ------------------------------------------------------------ serializing

def bf16_bits(x32):
    """float32 values that are bfloat16 values -> their uint16 bits."""
    b = np.asarray(x32, dtype=np.float32).view(np.uint32)
    return (b >> 16).astype(np.uint16)


def bf16_from_bits(b16):
    return (np.asarray(b16, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def stored_bytes(x, t):
    """The little-endian bytes the Go side reads for array x of type t."""
    t = T(t) if isinstance(t, str) else t
    x = np.ascontiguousarray(x)
    if t.name == 'bfloat16':
        x = bf16_bits(x)
    else:
        x = x.astype(t.store, copy=False)
    return x.astype(x.dtype.newbyteorder('<'), copy=False).tobytes()


def b64(data):
    return base64.b64encode(data).decode('ascii')


def encode_array(x, t, shape=None):
    """The JSON object of an array: type, shape, base64 of its bytes."""
    t = T(t) if isinstance(t, str) else t
    x = np.asarray(x)
    return {'t': t.name, 's': list(x.shape if shape is None else shape), 'd': b64(stored_bytes(x, t))}


# ---------------------------------------------------------------- splitmix

MASK64 = (1 << 64) - 1


def splitmix64(seed, n):
    """n outputs of SplitMix64 from seed (the Go runner computes the same)."""
    out = np.empty(n, dtype=np.uint64)
    s = seed & MASK64
    for i in range(n):
        s = (s + 0x9E3779B97F4A7C15) & MASK64
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        out[i] = z ^ (z >> 31)
    return out


def generated(spec, t, n):
    """The values of a generated input {"seed", "lo", "hi"}: floats
    lo + (hi-lo)·u with u = (x >> 11)·2⁻⁵³ in float64, then rounded to t;
    integers lo + x mod (hi-lo+1). Must match the Go runner bit for bit."""
    t = T(t) if isinstance(t, str) else t
    x = splitmix64(spec['seed'], n)
    if t.is_int():
        lo, hi = int(spec['lo']), int(spec['hi'])
        span = hi - lo + 1
        vals = [lo + int(v) % span for v in x]
        return np.array(vals, dtype=object).astype(t.np)
    u = (x >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    lo, hi = float(spec['lo']), float(spec['hi'])
    v = lo + (hi - lo) * u
    return to_type(v, t)


# ---------------------------------------------------------------- sampling

def specials(t):
    """The special values of a real float type: zeros, infinities, NaN,
    subnormals, the extremes, values around 1 and halfway cases."""
    t = T(t) if isinstance(t, str) else t
    tiny, mn, mx, e = t.min_subnormal(), t.min_normal(), t.max_finite(), t.eps()
    v = [0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -tiny, 3 * tiny, mn, -mn, mn * (1 - e),
         mx, -mx, mx / 2, 1.0, -1.0, 1 + e, 1 - e / 2, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, 0.1, -7.0]
    return to_type(np.array(v, dtype=np.float64), t)


def int_specials(t):
    t = T(t) if isinstance(t, str) else t
    i = t.info()
    v = [0, 1, -1, 2, -2, 7, -7, i.max, i.min, i.max - 1, i.min + 1, i.max // 2, i.min // 2, 100, -100]
    v = [x for x in v if i.min <= x <= i.max]
    return np.array(v, dtype=object).astype(t.np)


def sample(rng, t, n, profile='general'):
    """n values of type t (an array of t.np, or complex) from a profile:

    general   a mix of everything, with specials (NaN, ±Inf, ±0, subnormals,
              extremes) in about a quarter of the places
    finite    like general without NaN and infinities
    moderate  finite values of modest magnitude (sums, products, matmul)
    small     integers of small magnitude (exact in every type)
    positive  positive finite values, from tiny to huge
    unit      values in [-1, 1] with a few outside
    """
    t = T(t) if isinstance(t, str) else t
    if t.kind == 'b':
        return rng.random(n) < 0.5
    if t.is_complex():
        p = T(t.part)
        re = sample(rng, p, n, profile).astype(np.float64)
        im = sample(rng, p, n, profile).astype(np.float64)
        return (re + 1j * im).astype(t.np)
    if t.is_int():
        return _sample_int(rng, t, n, profile)
    return _sample_float(rng, t, n, profile)


def _sample_int(rng, t, n, profile):
    i = t.info()
    if profile in ('small', 'moderate'):
        lo, hi = max(i.min, -20), min(i.max, 20)
        return rng.integers(lo, hi, size=n, endpoint=True).astype(t.np)
    if profile == 'positive':
        return rng.integers(1, min(i.max, 1000), size=n, endpoint=True).astype(t.np)
    out = np.empty(n, dtype=t.np)
    sp = int_specials(t)
    for k in range(n):
        r = rng.random()
        if r < 0.25:
            out[k] = sp[rng.integers(len(sp))]
        elif r < 0.6:
            out[k] = rng.integers(max(i.min, -100), min(i.max, 100), endpoint=True)
        else:
            out[k] = rng.integers(i.min, i.max, endpoint=True, dtype=t.np.type)
    return out


def _sample_float(rng, t, n, profile):
    mx = t.max_finite()
    if profile == 'moderate':
        mag = 10.0 ** rng.uniform(-3, 3, n)
        return to_type(np.where(rng.random(n) < 0.5, -mag, mag), t)
    if profile == 'small':
        return to_type(rng.integers(-20, 20, size=n, endpoint=True).astype(np.float64), t)
    if profile == 'positive':
        lmax = math.log10(mx) * 0.95
        lmin = math.log10(t.min_subnormal()) * 0.95
        return to_type(10.0 ** rng.uniform(lmin, lmax, n), t)
    if profile == 'unit':
        v = rng.uniform(-1, 1, n)
        v[rng.random(n) < 0.1] *= 1.5
        return to_type(v, t)
    sp = specials(t).astype(np.float64)
    if profile == 'finite':
        sp = sp[np.isfinite(sp)]
    lmax = math.log10(mx)
    v = np.empty(n, dtype=np.float64)
    for k in range(n):
        r = rng.random()
        if r < 0.25:
            v[k] = sp[rng.integers(len(sp))]
        elif r < 0.55:
            v[k] = rng.uniform(-10, 10)
        elif r < 0.7:
            v[k] = float(rng.integers(-50, 50))
        else:
            s = -1.0 if rng.random() < 0.5 else 1.0
            v[k] = s * 10.0 ** rng.uniform(-lmax * 0.9, lmax * 0.99)
    return to_type(v, t)
