#!/usr/bin/python3
"""coef.py writes coef.go: the minimax polynomial coefficients of the
elementwise math functions (internal/fusion/ptxgen's PTX math library and
internal/fusion/hosteval's float64 functions read them).

Each approximation is a weighted Remez exchange in mpmath: the polynomial
sum c_i z^(e_i) that minimizes max |w(z)·(f(z) − sum c_i z^(e_i))| over
[a, b]; w makes the error relative to the function the kernel finally
computes. The coefficients are then rounded to float32 or float64 one at a
time, lowest order first, each rounding followed by a new exchange for the
coefficients not yet rounded (they absorb its error). The file records the
weighted error of the rounded polynomial, measured on a dense grid.

    /usr/bin/python3 coef.py [NAME…]   (go generate ./internal/fusion/mathcoef)

writes coef.go in the current directory; with names, only those
approximations are computed again.

Needs python3-mpmath (Debian: apt-get install python3-mpmath); the Go
build and tests never run it.
"""

import re
import struct
import sys

import mpmath as mp

mp.mp.prec = 160


def to_f32(x):
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


def to_f64(x):
    return float(x)


class Spec:
    """One approximation: f(z) ≈ fixed(z) + sum c_i z^(exps[i]) on [a, b],
    error weighted by w(z)."""

    def __init__(self, name, kind, doc, f, w, exps, a, b):
        self.name, self.kind, self.doc = name, kind, doc
        self.f, self.w, self.exps = f, w, exps
        a, b = mp.mpf(a), mp.mpf(b)
        # An end where the weight vanishes (the error there is zero
        # whatever the coefficients) moves inward a little: the exchange
        # needs points where the weight is not zero.
        if w(a) < mp.mpf("1e-30"):
            a += (b - a) * mp.mpf("1e-7")
        if w(b) < mp.mpf("1e-30"):
            b -= (b - a) * mp.mpf("1e-7")
        self.a, self.b = a, b


def grid(a, b, n):
    """n+1 points on [a, b], denser at the ends (Chebyshev nodes)."""
    pts = [a + (b - a) * (1 - mp.cos(mp.pi * k / n)) / 2 for k in range(n + 1)]
    return pts


def solve_ref(fs, ws, zs, exps):
    n = len(exps)
    A = mp.matrix(n + 1, n + 1)
    y = mp.matrix(n + 1, 1)
    for j, z in enumerate(zs):
        for i, e in enumerate(exps):
            A[j, i] = z ** e
        A[j, n] = (-1) ** j / ws[j]
        y[j] = fs[j]
    sol = mp.lu_solve(A, y)
    return [sol[i] for i in range(n)], sol[n]


def remez(f, w, exps, a, b, fixed, gridn=None):
    """Coefficients of exps (fixed: {index: value} already chosen) and the
    max weighted error on the grid."""
    free = [i for i in range(len(exps)) if i not in fixed]
    fe = [exps[i] for i in free]
    n = len(fe)
    gridn = gridn or max(400, 60 * n)
    G = grid(a, b, gridn)
    FG = []
    WG = []
    for z in G:
        fz = f(z) - sum(fixed[i] * z ** exps[i] for i in fixed)
        FG.append(fz)
        WG.append(max(w(z), mp.mpf("1e-60")))
    if n == 0:
        return [], max(abs(WG[j] * FG[j]) for j in range(len(G)))
    # Initial reference: n+1 Chebyshev extrema.
    idx = [round(gridn * k / n) for k in range(n + 1)]
    best = None
    for it in range(60):
        zs = [G[j] for j in idx]
        c, E = solve_ref([FG[j] for j in idx], [WG[j] for j in idx], zs, fe)
        err = [WG[j] * (FG[j] - sum(ci * G[j] ** e for ci, e in zip(c, fe))) for j in range(len(G))]
        # Local extrema of alternating sign: one per run of constant sign.
        runs = []
        j = 0
        while j < len(G):
            s = err[j] >= 0
            k = j
            m = j
            while k < len(G) and (err[k] >= 0) == s:
                if abs(err[k]) > abs(err[m]):
                    m = k
                k += 1
            runs.append(m)
            j = k
        while len(runs) > n + 1:
            if abs(err[runs[0]]) < abs(err[runs[-1]]):
                runs.pop(0)
            else:
                runs.pop()
        emax = max(abs(e) for e in err)
        if best is None or emax < best[1]:
            best = (c, emax)
        if len(runs) < n + 1:
            break
        emin = min(abs(err[j]) for j in runs)
        idx = runs
        if emax - emin <= emax * mp.mpf("1e-4"):
            break
    c, emax = best
    out = dict(fixed)
    for i, ci in zip(free, c):
        out[i] = ci
    return [out[i] for i in range(len(exps))], emax


def weighted_error(spec, coefs):
    """The polynomial's max weighted error on a dense grid."""
    err = 0
    for z in grid(spec.a, spec.b, 3000):
        p = sum(mp.mpf(c) * z ** e for c, e in zip(coefs, spec.exps))
        err = max(err, abs(spec.w(z) * (spec.f(z) - p)))
    return err


def fit(spec):
    """The better of two roundings of the minimax coefficients: each to
    nearest, and one at a time with a new exchange for the others."""
    rnd = to_f32 if spec.kind == "f32" else to_f64
    c, _ = remez(spec.f, spec.w, spec.exps, spec.a, spec.b, {})
    plain = [rnd(ci) for ci in c]
    fixed = {}
    for i in range(len(spec.exps)):
        if i > 0:
            c, _ = remez(spec.f, spec.w, spec.exps, spec.a, spec.b, fixed)
        fixed[i] = mp.mpf(rnd(c[i]))
    refit = [float(fixed[i]) for i in range(len(spec.exps))]
    best = None
    for coefs in (plain, refit):
        err = weighted_error(spec, coefs)
        if best is None or err < best[1]:
            best = (coefs, err)
    return best


def series_limit(fn, z, z0=mp.mpf("1e-30")):
    """fn at z, with z below z0 moved up to z0 (the limit at 0 of the
    functions below is smooth; the error there is negligible)."""
    return fn(max(z, z0))


# Helpers for odd functions g(x) ≈ x + x³·P(x²) in z = x²: the target P and
# the weight that makes the error relative to g.
def odd_tail(g):
    def f(z):
        z = max(z, mp.mpf("1e-40"))
        x = mp.sqrt(z)
        return (g(x) - x) / (x * z)
    return f


def odd_weight(g):
    def w(z):
        z = max(z, mp.mpf("1e-40"))
        x = mp.sqrt(z)
        return x * z / g(x)
    return w


PI4 = mp.pi / 4
SPECS = []


def spec(*a):
    SPECS.append(Spec(*a))


# exp2: 2^f = 1 + f·Q(f), f in [−½, ½].
for kind, n in (("f32", 6), ("f64", 12)):
    spec("exp2Q" + kind.upper(), kind, "2^f = 1 + f·Q(f) for f in [−½, ½]",
         lambda f: mp.log(2) if f == 0 else (2 ** f - 1) / f,
         lambda f: abs(f) / 2 ** f if f != 0 else mp.mpf("1e-40"),
         list(range(n)), -0.5, 0.5)

# 2^f = 1 + f·Q(f) to float32's needs in float64 (pow_f32).
spec("exp2QF32in64", "f64", "2^f = 1 + f·Q(f) for f in [−½, ½] (float32's, evaluated in float64)",
     lambda f: mp.log(2) if f == 0 else (2 ** f - 1) / f,
     lambda f: abs(f) / 2 ** f if f != 0 else mp.mpf("1e-40"),
     list(range(8)), -0.5, 0.5)

# e^r = 1 + r + r²/2 + r³·G(r), |r| ≤ ln2/2 (+ margin): the exponential's
# tail, for expm1, sinh, cosh and erfc (r²/2 is exact in a double-double,
# so only the small r³·G(r) is rounded).
def exp_tail3(r):
    if abs(r) < mp.mpf("1e-30"):
        return mp.mpf(1) / 6
    return (mp.expm1(r) - r - r * r / 2) / r ** 3


for name, kind, n in (("expGF32", "f32", 4), ("expGF64", "f64", 10)):
    spec(name, kind, "e^r = 1 + r + r²/2 + r³·G(r) for |r| ≤ 0.347",
         exp_tail3, lambda r: abs(r ** 3 / mp.exp(r)) if r != 0 else mp.mpf("1e-40"),
         list(range(n)), -0.347, 0.347)


# e^r = 1 + r + r²·F(r): float32's expm1.
def exp_tail(r):
    if abs(r) < mp.mpf("1e-30"):
        return mp.mpf(1) / 2
    return (mp.expm1(r) - r) / (r * r)


spec("expm1FF32", "f32", "e^r = 1 + r + r²·F(r) for |r| ≤ 0.347",
     exp_tail, lambda r: abs(r * r / mp.expm1(r)) if r != 0 else mp.mpf("1e-40"), list(range(5)), -0.347, 0.347)


# log(1+f) = f + f²·Q(f), f in [−⅓, ⅓]: float32's logarithms.
def log_tail(f):
    if abs(f) < mp.mpf("1e-30"):
        return mp.mpf(-1) / 2
    return (mp.log1p(f) - f) / (f * f)


spec("logQF32", "f32", "log(1+f) = f + f²·Q(f) for f in [−⅓, ⅓]",
     log_tail, lambda f: abs(f * f / mp.log1p(f)) if f != 0 else mp.mpf("1e-40"),
     list(range(9)), -1 / mp.mpf(3), 1 / mp.mpf(3))

# float32's logarithms after the reduction to m = 1 + f in [√½, √2) (the
# exponent field's split at √½'s bits): f in [√½−1, √2−1] (+ margin).
LOGLO, LOGHI = mp.mpf("-0.2929"), mp.mpf("0.41422")
spec("lnQF32", "f32", "log(1+f) = f + f²·Q(f) for f in [√½−1, √2−1]",
     log_tail, lambda f: abs(f * f / mp.log1p(f)) if f != 0 else mp.mpf("1e-40"),
     list(range(9)), LOGLO, LOGHI)
# The same with one coefficient fewer, for functions whose bounds have room
# (float32 acosh and atanh: 4 and 3 ulp).
spec("lnQ8F32", "f32", "log(1+f) = f + f²·Q(f) for f in [√½−1, √2−1], 8 terms",
     log_tail, lambda f: abs(f * f / mp.log1p(f)) if f != 0 else mp.mpf("1e-40"),
     list(range(8)), LOGLO, LOGHI)


def log_base_p(base):
    def p(f):
        if abs(f) < mp.mpf("1e-30"):
            return 1 / mp.log(base)
        return mp.log1p(f) / mp.log(base) / f
    return p


def log_base_w(base):
    def w(f):
        if abs(f) < mp.mpf("1e-30"):
            return mp.log(base)
        return abs(f * mp.log(base) / mp.log1p(f))
    return w


for name, base in (("log2PF32", 2), ("log10PF32", 10)):
    spec(name, "f32", "log_%d(1+f) = f·P(f) for f in [√½−1, √2−1]" % base,
         log_base_p(base), log_base_w(base), list(range(10)), LOGLO, LOGHI)

# sin r = r + r³·S(r²), cos r = 1 − r²/2 + r⁴·C(r²), |r| ≤ π/4 (+ margin).
ZTRIG = (PI4 * (1 + mp.mpf("1e-6"))) ** 2


def cos_tail(z):
    if z < mp.mpf("1e-30"):
        return mp.mpf(1) / 24
    x = mp.sqrt(z)
    return (mp.cos(x) - 1 + z / 2) / (z * z)


for kind, ns, nc in (("f32", 4, 4), ("f64", 7, 7)):
    spec("sinS" + kind.upper(), kind, "sin r = r + r³·S(r²) for |r| ≤ π/4",
         odd_tail(mp.sin), odd_weight(mp.sin), list(range(ns)), 0, ZTRIG)
    spec("cosC" + kind.upper(), kind, "cos r = 1 − r²/2 + r⁴·C(r²) for |r| ≤ π/4",
         cos_tail, lambda z: z * z / mp.cos(mp.sqrt(z)), list(range(nc)), 0, ZTRIG)

# asin x = x + x³·P(x²), |x| ≤ ½.
for kind, n in (("f32", 5), ("f64", 12)):
    spec("asinP" + kind.upper(), kind, "asin x = x + x³·P(x²) for |x| ≤ ½",
         odd_tail(mp.asin), odd_weight(mp.asin), list(range(n)), 0, 0.25)

# atan u = u + u³·P(u²), |u| ≤ tan(π/8) (+ margin).
ZATAN = (mp.tan(mp.pi / 8) * (1 + mp.mpf("1e-6"))) ** 2
for kind, n in (("f32", 4), ("f64", 11)):
    spec("atanP" + kind.upper(), kind, "atan u = u + u³·P(u²) for |u| ≤ tan(π/8)",
         odd_tail(mp.atan), odd_weight(mp.atan), list(range(n)), 0, ZATAN)

# sinh x = x + x³·S(x²), cosh x = 1 + x²/2 + x⁴·C(x²), |x| ≤ 1: float64's
# small arguments (float32 has one path for every x).
def cosh_tail(z):
    if z < mp.mpf("1e-30"):
        return mp.mpf(1) / 24
    x = mp.sqrt(z)
    return (mp.cosh(x) - 1 - z / 2) / (z * z)


for kind, ns, nc in (("f64", 8, 8),):
    spec("sinhS" + kind.upper(), kind, "sinh x = x + x³·S(x²) for |x| ≤ 1",
         odd_tail(mp.sinh), odd_weight(mp.sinh), list(range(ns)), 0, 1)
    spec("coshC" + kind.upper(), kind, "cosh x = 1 + x²/2 + x⁴·C(x²) for |x| ≤ 1",
         cosh_tail, lambda z: z * z / mp.cosh(mp.sqrt(z)), list(range(nc)), 0, 1)


# erf x = x + x·P(x²), |x| ≤ erfSmall.
def erf_tail(z):
    if z < mp.mpf("1e-30"):
        return 2 / mp.sqrt(mp.pi) - 1
    x = mp.sqrt(z)
    return mp.erf(x) / x - 1


# float32 takes the polynomial up to 1 (its common path, the rest a branch),
# float64 up to 0.875.
for kind, n, small in (("f32", 7, "1"), ("f64", 13, "0.875")):
    spec("erfP" + kind.upper(), kind, "erf x = x + x·P(x²) for |x| ≤ " + small,
         erf_tail, lambda z: mp.sqrt(z) / mp.erf(mp.sqrt(z)) if z > 0 else mp.mpf(1) / (2 / mp.sqrt(mp.pi)),
         list(range(n)), 0, mp.mpf(small) ** 2)


# erfc x = e^{−x²}·Q(t)/(x + K), t = (x − K)/(x + K), for x ≥ 0 (float32)
# or x ≥ ½ (float64) (the substitution of Shepherd and Laframboise, with K
# chosen for the range: one smooth function of t).
def erfc_q(K):
    K = mp.mpf(K)

    def q(t):
        x = K * (1 + t) / (1 - t)
        return (x + K) * mp.exp(x * x) * mp.erfc(x)
    return q


for name, kind, n, K, xlo, xhi in (("erfcQF32", "f32", 10, 2, 0, 10.1), ("erfcQF64", "f64", 24, 3, 0.5, 27.3)):
    q = erfc_q(K)
    spec(name, kind,
         "erfc x = e^{−x²}·Q(t)/(x + %g), t = (x − %g)/(x + %g), for x in [%g, %g]" % (K, K, K, xlo, xhi),
         q, lambda t, q=q: 1 / q(t), list(range(n)), (xlo - mp.mpf(K)) / (xlo + K), (xhi - mp.mpf(K)) / (xhi + K))

# float32 erf's side beyond |x| = 1 (x in [1, 4]): erf = 1 − 2^−3·2^L(x)
# with L(x) = log₂ erfc x + 3 (smooth: erfc's logarithm is nearly −x²·log₂e),
# its error absolute in erf (weight erfc x), where E = erfc x ≤ 0.16 hides
# it. The + 3 keeps L small and positive near x = 1, where E is largest.
spec("erfLog2F32", "f32", "log₂ erfc x + 3 = L(x) for x in [1, 4] (error weighted by erfc x)",
     lambda x: mp.log(mp.erfc(x), 2) + 3, lambda x: mp.erfc(x), list(range(7)), 1, 4)

# asinh a = a + a³·P(a²) for |a| ≤ 1: float32's common path.
spec("asinhPF32", "f32", "asinh a = a + a³·P(a²) for |a| ≤ 1",
     odd_tail(mp.asinh), odd_weight(mp.asinh), list(range(7)), 0, 1)

# asinh a = P(a − 2) for a in [1, 3]: float32's second path (normal
# samples rarely go beyond 3, so a warp seldom pays for the logarithm).
spec("asinhP2F32", "f32", "asinh a = P(a − 2) for a in [1, 3]",
     lambda v: mp.asinh(v + 2), lambda v: 1 / mp.asinh(v + 2), list(range(11)), -1, 1)

# asin s = s + s³·P(s²) for |s| ≤ √½: float32 acos's one path, 2·asin of
# √((1 − |x|)/2) for every x.
spec("asinWideF32", "f32", "asin s = s + s³·P(s²) for |s| ≤ √½",
     odd_tail(mp.asin), odd_weight(mp.asin), list(range(7)), 0, 0.5)

# atan a = a + a³·P(a²) for |a| ≤ 1: float32's atan at min(|x|, 1/|x|).
spec("atanWideF32", "f32", "atan a = a + a³·P(a²) for |a| ≤ 1",
     odd_tail(mp.atan), odd_weight(mp.atan), list(range(9)), 0, 1)

# tan r = r + r³·T(r²) for |r| ≤ π/4 (+ margin: k·2/π may round across a
# half): float32 tan's one path, −1/tan r in the odd quadrants.
spec("tanTF32", "f32", "tan r = r + r³·T(r²) for |r| ≤ π/4 (+ 0.1 %)",
     odd_tail(mp.tan), odd_weight(mp.tan), list(range(6)), 0, (PI4 * mp.mpf("1.001")) ** 2)

# tanh a = a + a³·T(a²) for |a| ≤ 1: float32's common path.
spec("tanhTF32", "f32", "tanh a = a + a³·T(a²) for |a| ≤ 1",
     odd_tail(mp.tanh), odd_weight(mp.tanh), list(range(7)), 0, 1)

# tanh a = a + a³·T(a²) for |a| < 0.55 (float64's, below its exponential form).
spec("tanhTF64", "f64", "tanh a = a + a³·T(a²) for |a| ≤ 0.55",
     odd_tail(mp.tanh), odd_weight(mp.tanh), list(range(15)), 0, mp.mpf("0.55") ** 2)

# cbrt: m^(−1/3) ≈ R(m) for m in [1, 8], the first guess of Newton's
# iteration for the reciprocal cube root.
for kind in ("f32", "f64"):
    spec("rcbrtR" + kind.upper(), kind, "m^(−1/3) ≈ R(m) for m in [1, 8] (a first guess)",
         lambda m: m ** (-mp.mpf(1) / 3), lambda m: m ** (mp.mpf(1) / 3), list(range(4)), 1, 8)

# pow_f32's log₂: log₂((1+s)/(1−s)) = C·s + s·z·R(z), z = s², C = 2·log₂e,
# |s| ≤ 3 − 2√2 (+ margin); the error relative to log₂((1+s)/(1−s)).
LOG2C = 2 / mp.log(2)
spec("powLog2RF32", "f32", "log₂((1+s)/(1−s)) = C·s + s·z·R(z) for z = s² ≤ (3−2√2)², C = 2·log₂e",
     lambda z: LOG2C * odd_tail(mp.atanh)(z), lambda z: odd_weight(mp.atanh)(z) / LOG2C,
     list(range(4)), 0, (3 - 2 * mp.sqrt(2)) ** 2 * (1 + mp.mpf("1e-6")))



def go_float(x, kind):
    """x as an exact hexadecimal Go literal, trailing zero digits dropped."""
    h = float(x).hex()
    m = re.fullmatch(r"(-?0x1\.[0-9a-f]*?)0*(p[-+]\d+)", h)
    if m:
        h = m.group(1).rstrip(".") + m.group(2)
    return h


def main():
    """coef.py [NAME…]: with names, only those approximations are
    computed again and the others are kept from coef.go."""
    only = set(sys.argv[1:])
    path = "coef.go"
    old = {}
    try:
        text = open(path).read()
        for m in re.finditer(r"(// (\w+): .*?\n}\n)", text, re.S):
            old[m.group(2)[0].lower() + m.group(2)[1:]] = m.group(1)
    except FileNotFoundError:
        pass
    out = []
    out.append("// Code generated by coef.py; DO NOT EDIT.\n")
    out.append("package mathcoef\n")
    out.append("// Minimax coefficients of the elementwise math functions, lowest order")
    out.append("// first (the order of Horner's scheme), from coef.py's Remez exchange. Each")
    out.append("// comment states the approximation and the weighted (relative) error of")
    out.append("// the rounded polynomial on its interval, before the rounding of its")
    out.append("// evaluation.\n")
    for s in SPECS:
        if only and s.name not in only and s.name in old:
            out.append(old[s.name])
            continue
        coefs, err = fit(s)
        bits = -mp.log(err, 2) if err > 0 else mp.inf
        print("%s: %d coefficients, error 2^-%.1f" % (s.name, len(coefs), bits), file=sys.stderr)
        typ = "float32" if s.kind == "f32" else "float64"
        block = ["// %s: %s; error 2^-%.1f." % (s.name[0].upper() + s.name[1:], s.doc, bits)]
        block.append("var %s = []%s{" % (s.name[0].upper() + s.name[1:], typ))
        for c in coefs:
            block.append("\t%s," % go_float(c, s.kind))
        block.append("}\n")
        out.append("\n".join(block))
    with open(path, "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
