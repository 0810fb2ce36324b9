package numpytest_test

import (
	"fmt"
	"math"
)

// Tolerances: how far a result element may be from NumPy's. Integer and
// bool results, and the results of every op without a row here, are
// compared exactly: the same bits, except that any NaN matches any NaN
// and, in cases marked zs (an op that may return either zero, or a sum
// that cancels to zero), −0 matches +0. The rules, in words:
//
//   - exact: integer and bool results, views, copies, casts, comparisons,
//     Where, Add, Sub, Mul, Div, Sqrt, FMA, Minimum/Maximum, Abs, Neg,
//     Floor, Ceil, Trunc, Round, Sign, Copysign, Fmin/Fmax, FloorDiv, Mod,
//     Rem, Min/Max/ArgMin/ArgMax, sorting, indexing, joining;
//   - Exp, Log, Tanh, Pow: the accuracy internal/fusion/expr documents (4
//     ulp in float32, 1e-14 relative in float64) + 1 ulp for the
//     reference; Sigmoid 6 ulp + 1;
//   - the math functions being added: CUDA's documented maximum ulp error
//     (CUDA C++ Programming Guide, Mathematical Functions) + 1 ulp: in
//     float32/float64, Exp2 2/1, Expm1 1/1, Log2 1/1, Log10 2/1, Log1p
//     1/1, Cbrt 1/1, Rsqrt 2/1, Sin and Cos 2/2, Tan 4/2, Asin, Acos, Atan
//     2/2, Atan2 3/2, Sinh 3/2, Cosh 2/1, Asinh 3/3, Acosh 4/3, Atanh 3/2,
//     Erf 2/2, Erfc 4/5, Hypot 3/2; float16 and bfloat16 within 1 ulp;
//   - sums and means (Sum, SumAs, Mean, MeanAs, NanSum, NanMean, Cumsum,
//     L1 Norm): 2(n+1)·u·Σ|x| + 1 ulp, u the accumulation's unit roundoff
//     (2⁻⁵² for gpuarr's float64 accumulation of float32 and float64,
//     2⁻²³ for the half types, T's own for functions being added);
//     MeanAs of integers within 1 ulp of the exact mean;
//   - products (Prod, ProdAs, Cumprod): 2(n+1)·u·|Π| + 1 ulp;
//   - Var: 2(n+4)·eps·Σx²/(n−ddof) + 2 ulp, Std its square root;
//     LogSumExp (n+6)·eps + 3 ulp; Norm: L1 and the matrix 1- and
//     ∞-norms as sums, 2-norms (n+4)·eps relative, L∞ exact;
//   - matrix products (Matmul and its 1-D, batched and strided forms, Dot,
//     Einsum): (k+2)·u·(|A||B|)ᵢⱼ + 1 ulp, u of T (float32 for the half
//     types), four times that for complex;
//   - complex Mul 4·eps, Div 8·eps relative to |want| (normwise), Abs and
//     Angle as Hypot and Atan2; Linspace and Histogram's edges
//     4·eps·max(|start|, |stop|).
//
// The references are exact or nearly so: exact sums (math.fsum) and
// products rounded once, long double or mpmath values of math functions
// rounded once to the type, NumPy itself for exact operations.

// tolerance: an element passes when it is within ulps representable
// values of NumPy's, or when |got − want| ≤ ulps·ulp(want) + rel·|want| +
// abs[i]. For complex results each part is held to the bound, with |want|
// the modulus.
type tolerance struct {
	ulps float64
	rel  float64
	abs  []float64
	why  string
}

func (t tolerance) exact() bool { return t.ulps == 0 && t.rel == 0 && t.abs == nil }

// tolContext is what a rule reads: the case, the result's index and
// format, the result's element type, and the case's error scale.
type tolContext struct {
	c     *goldenCase
	out   int
	f     format // the real format (a complex type's part)
	t     string // the result's element type
	scale []float64
}

// eps of the result's real format.
func (x tolContext) eps() float64 { return x.f.eps() }

// n is the elements per group of a reduction (the inner extent of a
// product), at least 1.
func (x tolContext) n() float64 { return float64(max(x.c.N, 1)) }

func (x tolContext) scaled(k float64) []float64 {
	if x.scale == nil {
		return nil
	}
	out := make([]float64, len(x.scale))
	for i, s := range x.scale {
		out[i] = k * s
	}
	return out
}

type rule func(x tolContext) tolerance

// ulpBound is CUDA's documented maximum error of a math function in
// float32 and float64 ulps (CUDA C++ Programming Guide, "Mathematical
// Functions": Standard Functions, single and double precision), plus one
// ulp for the reference's own rounding; float16 and bfloat16 results
// (computed in float32, rounded once) within one ulp.
func ulpBound(f32, f64 float64) rule {
	return func(x tolContext) tolerance {
		switch x.t {
		case "float32":
			return tolerance{ulps: f32 + 1, why: fmt.Sprintf("CUDA's %g ulp + 1", f32)}
		case "float64":
			return tolerance{ulps: f64 + 1, why: fmt.Sprintf("CUDA's %g ulp + 1", f64)}
		}
		return tolerance{ulps: 1, why: "1 ulp (computed in float32, rounded once)"}
	}
}

// contractBound is the accuracy gpuarr's fusion compiler documents for
// its math ops (internal/fusion/expr: within 4 ulp in float32, 1e-14
// relative in float64), plus one ulp for the reference.
func contractBound(f32ulps float64) rule {
	return func(x tolContext) tolerance {
		switch x.t {
		case "float32":
			return tolerance{ulps: f32ulps + 1, why: fmt.Sprintf("%g ulp + 1", f32ulps)}
		case "float64":
			return tolerance{ulps: 1, rel: 1e-14, why: "1e-14 relative + 1 ulp"}
		}
		return tolerance{ulps: 2, why: "2 ulp"}
	}
}

// sigmoidBound: Sigmoid is 1/(1+exp(−x)) computed in T (gpuarr's doc
// builds it from Exp, Neg, Add and Div): exp's 4 ulp and two roundings,
// and below −log(MaxT) exp(−x) overflows to +Inf, giving 0 where the
// exact value is a subnormal below 1/MaxT.
func sigmoidBound(x tolContext) tolerance {
	t := contractBound(6)(x)
	big := math.Ldexp(2-x.eps(), x.f.emax)
	t.abs = constant(x, 1/big)
	t.why += ", or 0 below 1/MaxT (exp(−x) overflows)"
	return t
}

// accEps is the unit roundoff of the accumulation gpuarr documents for
// its float sums, products and means: float64 for float32 and float64
// values, float32 for the half types (computed in float32); complex
// sums at the parts' own precision.
func accEps(x tolContext) float64 {
	if formats[x.t].kind == kindComplex {
		return x.eps() // not documented yet: the parts' own
	}
	if x.f.prec >= 24 {
		return 0x1p-52
	}
	return 0x1p-23
}

// sumBound: a sum of n terms in any order has an error of at most
// (n−1)·u·Σ|x| (u the accumulation's unit roundoff); the reference is
// exact, and the result is rounded once more: 2(n+1)·u·Σ|x| + 1 ulp.
// scale is Σ|x| per result element (Σ|x|/n for means).
func sumBound(eps func(tolContext) float64) rule {
	return func(x tolContext) tolerance {
		u := eps(x)
		return tolerance{ulps: 1, abs: x.scaled(2 * (x.n() + 1) * u), why: fmt.Sprintf("2(n+1)·%.3g·Σ|x| + 1 ulp, n=%d", u, x.c.N)}
	}
}

// prodBound: a product of n factors is within n·u relative of the exact
// one in any order: 2(n+1)·u·|Π| + 1 ulp (scale is |Π|).
func prodBound(eps func(tolContext) float64) rule {
	return func(x tolContext) tolerance {
		u := eps(x)
		return tolerance{ulps: 1, abs: x.scaled(2 * (x.n() + 1) * u), why: fmt.Sprintf("2(n+1)·%.3g·|Π| + 1 ulp", u)}
	}
}

// productBound: a matrix product's element, k products summed in T (in
// float32 for the half types), has an error of at most (k+2)·u·(|A||B|)ᵢⱼ
// + 1 ulp; complex products four times that.
func productBound(x tolContext) tolerance {
	u := x.eps()
	if x.f.prec < 24 {
		u = 0x1p-23
	}
	k := 1.0
	if formats[x.t].kind == kindComplex {
		k = 4
	}
	return tolerance{ulps: 1, abs: x.scaled(k * (x.n() + 2) * u), why: fmt.Sprintf("%g(k+2)·%.3g·(|A||B|) + 1 ulp, k=%d", k, u, x.c.N)}
}

func epsT(x tolContext) float64 { return x.eps() }

var tolerances = map[string]rule{
	// gpuarr's math ops today, at the accuracy its fusion compiler documents
	"Exp":     contractBound(4),
	"Log":     contractBound(4),
	"Tanh":    contractBound(4),
	"Pow":     contractBound(4),
	"Sigmoid": sigmoidBound,

	// math functions being added: CUDA's bounds
	"Exp2":  ulpBound(2, 1),
	"Expm1": ulpBound(1, 1),
	"Log2":  ulpBound(1, 1),
	"Log10": ulpBound(2, 1),
	"Log1p": ulpBound(1, 1),
	"Cbrt":  ulpBound(1, 1),
	"Rsqrt": ulpBound(2, 1),
	"Sin":   ulpBound(2, 2),
	"Cos":   ulpBound(2, 2),
	"Tan":   ulpBound(4, 2),
	"Asin":  ulpBound(2, 2),
	"Acos":  ulpBound(2, 2),
	"Atan":  ulpBound(2, 2),
	"Atan2": ulpBound(3, 2),
	"Sinh":  ulpBound(3, 2),
	"Cosh":  ulpBound(2, 1),
	"Asinh": ulpBound(3, 3),
	"Acosh": ulpBound(4, 3),
	"Atanh": ulpBound(3, 2),
	"Erf":   ulpBound(2, 2),
	"Erfc":  ulpBound(4, 5),
	"Hypot": ulpBound(3, 2),
	"Angle": ulpBound(3, 2), // atan2 of the parts

	// reductions gpuarr has: float64 accumulation (float32 for the half types)
	"Sum":    sumBound(accEps),
	"SumAs":  sumBound(accEps),
	"Mean":   sumBound(accEps),
	"MeanAs": meanAsBound,
	"Prod":   prodRule,
	"ProdAs": prodBound(accEps),

	// reductions and scans being added: accumulation in T at worst
	"NanSum":    sumBound(epsT),
	"NanMean":   sumBound(epsT),
	"Cumsum":    sumBound(epsT),
	"Cumprod":   prodBound(epsT),
	"Var":       varBound(false),
	"Std":       varBound(true),
	"LogSumExp": lseBound,
	"Norm":      normBound,

	// matrix products
	"Matmul":        productBound,
	"Matmul1D":      productBound,
	"MatmulBatched": productBound,
	"MatmulStrided": productBound,
	"Dot":           productBound,
	"Einsum":        productBound,
	"Outer":         complexOnly(4),

	// complex arithmetic (the parts' roundings; normwise)
	"Mul": complexOnly(4),
	"Div": complexOnly(8),
	"Abs": complexAbs,

	// constructors computing values
	"Linspace":  linspaceBound,
	"Histogram": histogramBound,
}

// prodRule: Prod of complex numbers is held normwise; of reals, prodBound.
func prodRule(x tolContext) tolerance {
	if formats[x.t].kind == kindComplex {
		return tolerance{ulps: 1, rel: 4 * (x.n() + 2) * x.eps(), why: "4(n+2)·eps relative"}
	}
	return prodBound(accEps)(x)
}

// meanAsBound: MeanAs of integers is the exact mean rounded to float64
// ("within an ulp"); of floats, a sum.
func meanAsBound(x tolContext) tolerance {
	if len(x.c.Expr.A) > 0 && formats[x.c.Expr.A[0].R].kind != kindFloat {
		return tolerance{ulps: 1, why: "1 ulp"}
	}
	return sumBound(accEps)(x)
}

// varBound: a variance of n values computed in T (two passes or
// Welford's) is within 2(n+4)·u·Σx²/(n−ddof) of the exact one (scale);
// the standard deviation within the square root of that.
func varBound(std bool) rule {
	return func(x tolContext) tolerance {
		abs := x.scaled(2 * (x.n() + 4) * x.eps())
		if std {
			for i := range abs {
				abs[i] = math.Sqrt(abs[i])
			}
		}
		return tolerance{ulps: 2, abs: abs, why: "2(n+4)·eps·Σx²/(n−ddof) (square root for Std) + 2 ulp"}
	}
}

// lseBound: log Σ exp(x − max) + max: the sum's relative error (n+2)·u
// and exp's, as an absolute error of the logarithm, plus log's ulps.
func lseBound(x tolContext) tolerance {
	n := x.n()
	abs := make([]float64, len(x.scale))
	for i := range abs {
		abs[i] = (n + 6) * x.eps()
	}
	return tolerance{ulps: 3, abs: abs, why: "(n+6)·eps + 3 ulp"}
}

// normBound: sums of magnitudes (L1, and a matrix's largest column or
// row sum; the case's scale is the norm itself) as sums; L∞ of a vector
// exactly; 2-norms (and Frobenius) within (n+4)·eps relative.
func normBound(x tolContext) tolerance {
	if x.c.Scale != nil {
		return sumBound(epsT)(x)
	}
	if raw, ok := x.c.Expr.K["ord"]; ok && string(raw) == `"inf"` {
		return tolerance{}
	}
	return tolerance{ulps: 2, rel: (x.n() + 4) * x.eps(), why: "(n+4)·eps relative + 2 ulp"}
}

// complexOnly holds complex results normwise to k·eps relative; real
// results of the op are exact.
func complexOnly(k float64) rule {
	return func(x tolContext) tolerance {
		if formats[x.t].kind != kindComplex && !(x.c.Expr != nil && formats[x.c.Expr.T].kind == kindComplex) {
			return tolerance{}
		}
		return tolerance{ulps: 1, rel: k * x.eps(), why: fmt.Sprintf("%g·eps relative (normwise)", k)}
	}
}

// complexAbs: |z| of a complex z is a hypot (CUDA: 3 ulp in float32, 2 in
// float64); Abs of reals is exact.
func complexAbs(x tolContext) tolerance {
	if x.c.Expr == nil || formats[x.c.Expr.T].kind != kindComplex {
		return tolerance{}
	}
	return ulpBound(3, 2)(x)
}

// linspaceBound: start + i·step and other formulas differ by a few
// roundings of the endpoints' magnitude.
func linspaceBound(x tolContext) tolerance {
	m := math.Max(math.Abs(x.c.Expr.float("start")), math.Abs(x.c.Expr.float("stop")))
	return tolerance{ulps: 2, rel: 0, abs: constant(x, 4*x.eps()*m), why: "4·eps·max(|start|, |stop|)"}
}

// histogramBound: counts exact, edges like Linspace.
func histogramBound(x tolContext) tolerance {
	if x.out == 0 {
		return tolerance{}
	}
	m := math.Max(math.Abs(x.c.Expr.float("lo")), math.Abs(x.c.Expr.float("hi")))
	return tolerance{ulps: 2, abs: constant(x, 4*x.eps()*m), why: "4·eps·max(|lo|, |hi|)"}
}

func constant(x tolContext, v float64) []float64 {
	h, err := x.c.Out[x.out].host()
	if err != nil {
		return nil
	}
	out := make([]float64, h.len())
	for i := range out {
		out[i] = v
	}
	return out
}

// toleranceFor is the bound of result out of case c.
func toleranceFor(c *goldenCase, out int, want hostArray) tolerance {
	f := formats[want.t]
	if f.kind == kindComplex {
		f = formats[f.part]
	}
	if f.kind != kindFloat {
		return tolerance{}
	}
	r, ok := tolerances[c.Expr.Op]
	if !ok {
		return tolerance{}
	}
	x := tolContext{c: c, out: out, f: f, t: want.t}
	if c.Scale != nil {
		if s, err := c.Scale.host(); err == nil {
			sf := formats["float64"]
			x.scale = make([]float64, s.len())
			for i := range x.scale {
				x.scale[i] = sf.float(s.raw, i)
			}
		}
	}
	if x.scale == nil {
		x.scale = make([]float64, want.len())
	}
	return r(x)
}

// compareArrays checks got against want with tolerance tol; the error
// names the first few elements that differ.
func compareArrays(want, got hostArray, tol tolerance, anyZeroSign bool) error {
	if want.t != got.t {
		return fmt.Errorf("element type %s, want %s", got.t, want.t)
	}
	if !equalShapes(want.shape, got.shape) {
		return fmt.Errorf("shape %v, want %v", got.shape, want.shape)
	}
	f := formats[want.t]
	n := want.len()
	var bad []string
	worst := 0.0
	for i := 0; i < n; i++ {
		ok, detail := elementOK(f, want, got, i, tol, anyZeroSign)
		if !ok {
			if len(bad) < 5 {
				bad = append(bad, detail)
			}
			worst++
		}
	}
	if len(bad) > 0 {
		b := "exactly"
		if !tol.exact() {
			b = "within " + tol.why
		}
		return fmt.Errorf("%d of %d elements differ from NumPy's (compared %s): %v", int(worst), n, b, bad)
	}
	return nil
}

func equalShapes(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func elementOK(f format, want, got hostArray, i int, tol tolerance, anyZeroSign bool) (bool, string) {
	switch f.kind {
	case kindBool:
		w, g := want.raw[i] != 0, got.raw[i] != 0
		return w == g, fmt.Sprintf("[%d] %v, want %v", i, g, w)
	case kindSigned, kindUnsigned:
		w, g := f.integer(want.raw, i), f.integer(got.raw, i)
		return w.Cmp(g) == 0, fmt.Sprintf("[%d] %v, want %v", i, g, w)
	case kindComplex:
		p := formats[f.part]
		// the parts are elements 2i and 2i+1 of the part's format
		wr, wi := p.float(want.raw, 2*i), p.float(want.raw, 2*i+1)
		mod := math.Hypot(wr, wi)
		okR, _ := floatOK(p, want.raw, got.raw, 2*i, tol, anyZeroSign, mod, i)
		okI, _ := floatOK(p, want.raw, got.raw, 2*i+1, tol, anyZeroSign, mod, i)
		gr, gi := p.float(got.raw, 2*i), p.float(got.raw, 2*i+1)
		return okR && okI, fmt.Sprintf("[%d] (%v%+vi), want (%v%+vi)", i, gr, gi, wr, wi)
	}
	w := f.float(want.raw, i)
	ok, _ := floatOK(f, want.raw, got.raw, i, tol, anyZeroSign, math.Abs(w), i)
	return ok, fmt.Sprintf("[%d] %v, want %v", i, f.float(got.raw, i), w)
}

// floatOK compares element j of a real format; mag is |want| for the
// relative bound (the modulus, for a complex part), i the element's index
// for the absolute bound.
func floatOK(f format, wantRaw, gotRaw []byte, j int, tol tolerance, anyZeroSign bool, mag float64, i int) (bool, string) {
	w, g := f.float(wantRaw, j), f.float(gotRaw, j)
	switch {
	case math.IsNaN(w) || math.IsNaN(g):
		return math.IsNaN(w) && math.IsNaN(g), ""
	case w == g:
		if w == 0 && !anyZeroSign && f.signbit(wantRaw, j) != f.signbit(gotRaw, j) {
			return false, "sign of zero"
		}
		return true, ""
	case tol.exact():
		return false, ""
	}
	d := f.ordered(wantRaw, j) - f.ordered(gotRaw, j)
	if d < 0 {
		d = -d
	}
	if float64(d) <= tol.ulps {
		return true, ""
	}
	if math.IsInf(w, 0) || math.IsInf(g, 0) {
		return false, ""
	}
	bound := tol.ulps*f.ulp(w) + tol.rel*mag
	if tol.abs != nil && i < len(tol.abs) {
		bound += tol.abs[i]
	}
	return math.Abs(g-w) <= bound, ""
}
