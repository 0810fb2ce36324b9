package main

import (
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// The operands of the elementwise functions, each in the domain of the
// functions that read it: u, uniform in [uLo, uHi) (inside (-1, 1), for
// Asin, Acos and Atanh); p, uniform in [pLo, pHi) (at least 1, for Log,
// Sqrt, Rsqrt, Acosh and Pow's base); a, int32 uniform in [0, aHi); k,
// int32 shift counts uniform in [0, 32); w, standard normal (about a third
// of it beyond |x| = 1, where the float32 functions that branch on |x|
// take their other side: every warp takes both; finite through Sinh, Cosh
// and Expm1 without clipping, as |w| < 89 in every practical sample).
// kernels_peers.py draws its own from the same distributions.
const (
	uLo, uHi = -0.99, 0.99
	pLo, pHi = 1.0, 4.0
	aHi      = 1_000_000_000
	kHi      = 32
)

// fn is one elementwise function of the list, timed as
// EvalInto(o, f(...)) of preallocated arrays; kernels_peers.py times the
// torch function named in its own table against the row named name.
type fn struct {
	name string // the row's name: the function and its element type
	path string // the row's path label: the call timed and its operands
	// One of these is set: a float32 function of u and p, a mask of u, an
	// int32 function of a and k.
	f    func(u, p *gpuarr.Array[float32]) gpuarr.Expr[float32]
	mask func(u *gpuarr.Array[float32]) gpuarr.Mask
	i    func(a, k *gpuarr.Array[int32]) gpuarr.Expr[int32]
	// wide: f's first operand is w instead of u.
	wide bool
	// ref is the function of u (w where wide) and p in float64 on the host (for masks: 1
	// for true), for checking the first results; iref, of a and k.
	ref   func(u, p float64) float64
	iref  func(a, k int32) int32
	bytes float64 // bytes moved per element: inputs read and output written
}

// The elementwise functions of issue 27's list (Math), in its order; Clip
// is Clamp (the name Clip is Take's index mode). Unary float32 functions
// move 8 B per element, binary ones 12 B, masks 5 B (4 in, 1 out).
var functions = func() []fn {
	type F = gpuarr.Array[float32]
	type E = gpuarr.Expr[float32]
	unaryU := func(name string, f func(gpuarr.Operand[float32]) E, ref func(float64) float64) fn {
		return fn{name: name + ", float32", path: "gpuarr.EvalInto(o, " + name + "(u)), u in [-0.99, 0.99)",
			f: func(u, _ *F) E { return f(u) }, ref: func(u, _ float64) float64 { return ref(u) }, bytes: 8}
	}
	// unaryW is unaryU on w: the functions whose float32 arithmetic
	// changes with |x| (at 1; Erfc at ½), timed on data on both sides.
	unaryW := func(name string, f func(gpuarr.Operand[float32]) E, ref func(float64) float64) fn {
		return fn{name: name + ", float32, w ~ N(0,1)", path: "gpuarr.EvalInto(o, " + name + "(w)), w ~ N(0, 1)", wide: true,
			f: func(w, _ *F) E { return f(w) }, ref: func(w, _ float64) float64 { return ref(w) }, bytes: 8}
	}
	unaryP := func(name string, f func(gpuarr.Operand[float32]) E, ref func(float64) float64) fn {
		return fn{name: name + ", float32", path: "gpuarr.EvalInto(o, " + name + "(p)), p in [1, 4)",
			f: func(_, p *F) E { return f(p) }, ref: func(_, p float64) float64 { return ref(p) }, bytes: 8}
	}
	binary := func(name string, f func(x, y gpuarr.Operand[float32]) E, ref func(x, y float64) float64) fn {
		return fn{name: name + ", float32", path: "gpuarr.EvalInto(o, " + name + "(u, p)), u in [-0.99, 0.99), p in [1, 4)",
			f: func(u, p *F) E { return f(u, p) }, ref: ref, bytes: 12}
	}
	// swapped is binary with the operands the other way round: f(p, u).
	swapped := func(name string, f func(x, y gpuarr.Operand[float32]) E, ref func(x, y float64) float64) fn {
		return fn{name: name + ", float32", path: "gpuarr.EvalInto(o, " + name + "(p, u)), u in [-0.99, 0.99), p in [1, 4)",
			f: func(u, p *F) E { return f(p, u) }, ref: func(u, p float64) float64 { return ref(p, u) }, bytes: 12}
	}
	mask := func(name string, f func(gpuarr.Operand[float32]) gpuarr.Mask, ref bool) fn {
		want := 0.0
		if ref {
			want = 1
		}
		return fn{name: name + ", float32 → bool", path: "gpuarr.EvalInto(m, " + name + "(u)), u in [-0.99, 0.99)",
			mask: func(u *F) gpuarr.Mask { return f(u) }, ref: func(float64, float64) float64 { return want }, bytes: 5}
	}
	integer := func(name, call string, f func(a, k *gpuarr.Array[int32]) gpuarr.Expr[int32], ref func(a, k int32) int32, bytes float64) fn {
		return fn{name: name + ", int32", path: "gpuarr.EvalInto(o, " + call + "), a in [0, 1e9), k in [0, 32)", i: f, iref: ref, bytes: bytes}
	}
	sign := func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x
	}
	return []fn{
		unaryU("Sin", gpuarr.Sin[float32], math.Sin),
		unaryU("Cos", gpuarr.Cos[float32], math.Cos),
		unaryU("Tan", gpuarr.Tan[float32], math.Tan),
		unaryU("Asin", gpuarr.Asin[float32], math.Asin),
		unaryU("Acos", gpuarr.Acos[float32], math.Acos),
		unaryU("Atan", gpuarr.Atan[float32], math.Atan),
		binary("Atan2", gpuarr.Atan2[float32], math.Atan2),
		unaryU("Sinh", gpuarr.Sinh[float32], math.Sinh),
		unaryU("Cosh", gpuarr.Cosh[float32], math.Cosh),
		unaryU("Tanh", gpuarr.Tanh[float32], math.Tanh),
		unaryU("Asinh", gpuarr.Asinh[float32], math.Asinh),
		unaryP("Acosh", gpuarr.Acosh[float32], math.Acosh),
		unaryU("Atanh", gpuarr.Atanh[float32], math.Atanh),
		unaryU("Exp", gpuarr.Exp[float32], math.Exp),
		unaryU("Exp2", gpuarr.Exp2[float32], math.Exp2),
		unaryU("Expm1", gpuarr.Expm1[float32], math.Expm1),
		unaryP("Log", gpuarr.Log[float32], math.Log),
		unaryP("Log2", gpuarr.Log2[float32], math.Log2),
		unaryP("Log10", gpuarr.Log10[float32], math.Log10),
		unaryP("Log1p", gpuarr.Log1p[float32], math.Log1p),
		unaryP("Sqrt", gpuarr.Sqrt[float32], math.Sqrt),
		unaryP("Cbrt", gpuarr.Cbrt[float32], math.Cbrt),
		unaryP("Rsqrt", gpuarr.Rsqrt[float32], func(x float64) float64 { return 1 / math.Sqrt(x) }),
		unaryU("Floor", gpuarr.Floor[float32], math.Floor),
		unaryU("Ceil", gpuarr.Ceil[float32], math.Ceil),
		unaryU("Trunc", gpuarr.Trunc[float32], math.Trunc),
		unaryU("Round", gpuarr.Round[float32], math.RoundToEven),
		unaryU("Sign", gpuarr.Sign[float32], sign),
		unaryU("Abs", gpuarr.Abs[float32], math.Abs),
		unaryU("Erf", gpuarr.Erf[float32], math.Erf),
		unaryU("Erfc", gpuarr.Erfc[float32], math.Erfc),
		binary("Hypot", gpuarr.Hypot[float32], math.Hypot),
		swapped("Copysign", gpuarr.Copysign[float32], math.Copysign),
		swapped("Pow", gpuarr.Pow[float32], math.Pow),
		binary("FloorDiv", gpuarr.FloorDiv[float32], func(u, p float64) float64 { return math.Floor(u / p) }),
		binary("Mod", gpuarr.Mod[float32], func(u, p float64) float64 { return u - math.Floor(u/p)*p }),
		binary("Rem", gpuarr.Rem[float32], math.Mod),
		mask("IsNaN", gpuarr.IsNaN[float32], false),
		mask("IsInf", gpuarr.IsInf[float32], false),
		mask("IsFinite", gpuarr.IsFinite[float32], true),
		binary("Minimum", gpuarr.Minimum[float32], math.Min),
		binary("Maximum", gpuarr.Maximum[float32], math.Max),
		binary("Fmin", gpuarr.Fmin[float32], math.Min),
		binary("Fmax", gpuarr.Fmax[float32], math.Max),
		{name: "Clamp (NumPy's clip), float32", path: "gpuarr.EvalInto(o, Clamp(u, -0.5, 0.5)), u in [-0.99, 0.99)",
			f:   func(u, _ *F) E { return gpuarr.Clamp(u, -0.5, 0.5) },
			ref: func(u, _ float64) float64 { return min(max(u, -0.5), 0.5) }, bytes: 8},
		unaryW("Atan", gpuarr.Atan[float32], math.Atan),
		unaryW("Sinh", gpuarr.Sinh[float32], math.Sinh),
		unaryW("Cosh", gpuarr.Cosh[float32], math.Cosh),
		unaryW("Tanh", gpuarr.Tanh[float32], math.Tanh),
		unaryW("Asinh", gpuarr.Asinh[float32], math.Asinh),
		unaryW("Expm1", gpuarr.Expm1[float32], math.Expm1),
		unaryW("Erf", gpuarr.Erf[float32], math.Erf),
		unaryW("Erfc", gpuarr.Erfc[float32], math.Erfc),
		integer("BitAnd", "BitAnd(a, k)", func(a, k *gpuarr.Array[int32]) gpuarr.Expr[int32] { return gpuarr.BitAnd(a, k) },
			func(a, k int32) int32 { return a & k }, 12),
		integer("BitOr", "BitOr(a, k)", func(a, k *gpuarr.Array[int32]) gpuarr.Expr[int32] { return gpuarr.BitOr(a, k) },
			func(a, k int32) int32 { return a | k }, 12),
		integer("BitXor", "BitXor(a, k)", func(a, k *gpuarr.Array[int32]) gpuarr.Expr[int32] { return gpuarr.BitXor(a, k) },
			func(a, k int32) int32 { return a ^ k }, 12),
		integer("Invert", "Invert(a)", func(a, _ *gpuarr.Array[int32]) gpuarr.Expr[int32] { return gpuarr.Invert(a) },
			func(a, _ int32) int32 { return ^a }, 8),
		integer("LeftShift", "LeftShift(a, k)", func(a, k *gpuarr.Array[int32]) gpuarr.Expr[int32] { return gpuarr.LeftShift(a, k) },
			func(a, k int32) int32 { return a << k }, 12),
		integer("RightShift", "RightShift(a, k)", func(a, k *gpuarr.Array[int32]) gpuarr.Expr[int32] { return gpuarr.RightShift(a, k) },
			func(a, k int32) int32 { return a >> k }, 12),
	}
}()

// benchFunctions times every elementwise function of the list at
// cfg.n elements, EvalInto a preallocated result (a bool array for the
// masks), the functions of each group (float32, then int32) interleaved
// as the a + b case's paths are, cfg.mathSamples samples each. The
// operands are made once per group: at most three arrays of cfg.n
// elements and one of bools are held at a time. After timing, each
// function runs once more and its first results are checked against Go's
// math in float64.
func benchFunctions(rep *report.Report, dev *device.Device, cfg config) error {
	s := dev.DefaultStream()
	mc := cfg
	mc.samples = cfg.mathSamples
	if err := floatFunctions(rep, s, mc); err != nil {
		return err
	}
	if err := intFunctions(rep, s, mc); err != nil {
		return err
	}
	rep.Note("Elementwise functions: each EvalInto(o, f(...)) of preallocated arrays of n = %d elements, %d samples × %d ops per function after 3 warm-up ops, the functions of a group (float32, int32) interleaved; gbps counts the bytes read and written per element (unary 8 B, binary 12 B, a mask 5 B) over the median device time. Operands: u uniform in [%g, %g), p in [%g, %g) (the domain of Log, Sqrt, Acosh, Pow's base), w ~ N(0, 1) (the rows so named: a third of it beyond |x| = 1, where float32 Atan, Sinh, Cosh, Tanh, Asinh, Expm1 and Erf change arithmetic, and Erfc at ½: every warp holds both sides), int32 a in [0, %d), shift counts k in [0, %d). The target (≥ %.2f× the torch function's throughput, out=) is checked by kernels_peers.py.",
		cfg.n, mc.samples, mc.opBatch, uLo, uHi, pLo, pHi, aHi, kHi, targetMathVsTorch)
	return nil
}

func floatFunctions(rep *report.Report, s *device.Stream, cfg config) error {
	sh := gpuarr.Shape{cfg.n}
	u, err := uniform(s, sh, uLo, uHi, 271)
	if err != nil {
		return err
	}
	defer u.Release()
	p, err := uniform(s, sh, pLo, pHi, 272)
	if err != nil {
		return err
	}
	defer p.Release()
	w, err := gpuarr.Eval(gpuarr.NormalExpr[float32](gpuarr.NewRNG(275), sh), gpuarr.On(s))
	if err != nil {
		return err
	}
	defer w.Release()
	o, err := gpuarr.Empty[float32](sh, gpuarr.On(s))
	if err != nil {
		return err
	}
	defer o.Release()
	m, err := gpuarr.Empty[bool](sh, gpuarr.On(s))
	if err != nil {
		return err
	}
	defer m.Release()
	var fs []fn
	var paths []*path
	for _, f := range functions {
		var op func() error
		switch {
		case f.f != nil && f.wide:
			op = func() error { return gpuarr.EvalInto(o, f.f(w, p), gpuarr.On(s)) }
		case f.f != nil:
			op = func() error { return gpuarr.EvalInto(o, f.f(u, p), gpuarr.On(s)) }
		case f.mask != nil:
			op = func() error { return gpuarr.EvalInto[bool](m, f.mask(u), gpuarr.On(s)) }
		default:
			continue
		}
		fs, paths = append(fs, f), append(paths, &path{op: op})
	}
	if err := timeFunctions(rep, s, cfg, fs, paths); err != nil {
		return err
	}
	uh, err := head(u, 4)
	if err != nil {
		return err
	}
	ph, err := head(p, 4)
	if err != nil {
		return err
	}
	wh, err := head(w, 4)
	if err != nil {
		return err
	}
	for i, f := range fs {
		if err := paths[i].op(); err != nil {
			return err
		}
		var got []float64
		if f.mask != nil {
			got, err = head(m, 4)
		} else {
			got, err = head(o, 4)
		}
		if err != nil {
			return err
		}
		xh := uh
		if f.wide {
			xh = wh
		}
		for j, g := range got {
			want := f.ref(xh[j], ph[j])
			if math.IsNaN(g) != math.IsNaN(want) || math.Abs(g-want) > 1e-5*max(1, math.Abs(want)) {
				return fmt.Errorf("%s: element %d of f(%v, %v) is %v, want %v", f.name, j, xh[j], ph[j], g, want)
			}
		}
	}
	return nil
}

func intFunctions(rep *report.Report, s *device.Stream, cfg config) error {
	sh := gpuarr.Shape{cfg.n}
	a, err := gpuarr.Eval(gpuarr.Cast[int32](gpuarr.Mul(gpuarr.UniformExpr[float32](gpuarr.NewRNG(273), sh), gpuarr.Scalar[float32](aHi))), gpuarr.On(s))
	if err != nil {
		return err
	}
	defer a.Release()
	k, err := gpuarr.Eval(gpuarr.Cast[int32](gpuarr.Mul(gpuarr.UniformExpr[float32](gpuarr.NewRNG(274), sh), gpuarr.Scalar[float32](kHi))), gpuarr.On(s))
	if err != nil {
		return err
	}
	defer k.Release()
	o, err := gpuarr.Empty[int32](sh, gpuarr.On(s))
	if err != nil {
		return err
	}
	defer o.Release()
	var fs []fn
	var paths []*path
	for _, f := range functions {
		if f.i != nil {
			fs, paths = append(fs, f), append(paths, &path{op: func() error { return gpuarr.EvalInto(o, f.i(a, k), gpuarr.On(s)) }})
		}
	}
	if err := timeFunctions(rep, s, cfg, fs, paths); err != nil {
		return err
	}
	ah, err := headInts(a, 4)
	if err != nil {
		return err
	}
	kh, err := headInts(k, 4)
	if err != nil {
		return err
	}
	for i, f := range fs {
		if err := paths[i].op(); err != nil {
			return err
		}
		got, err := headInts(o, 4)
		if err != nil {
			return err
		}
		for j, g := range got {
			if want := f.iref(ah[j], kh[j]); g != want {
				return fmt.Errorf("%s: element %d of f(%d, %d) is %d, want %d", f.name, j, ah[j], kh[j], g, want)
			}
		}
	}
	return nil
}

// timeFunctions times the paths (one per function of fs) as the a + b
// case times its own, and adds a row per function.
func timeFunctions(rep *report.Report, s *device.Stream, cfg config, fs []fn, paths []*path) error {
	t, err := newTimer(s)
	if err != nil {
		return err
	}
	defer t.Close()
	if err := deviceTimes(t, cfg, 3, paths...); err != nil {
		return err
	}
	for i, f := range fs {
		bytes := f.bytes * float64(cfg.n)
		med := report.Summarize(append([]float64(nil), paths[i].got...)).P50
		add(rep, f.name, f.path, sizeLabel(cfg.n), paths[i].got, map[string]float64{"gbps": gbps(bytes, med), "bytes_per_op": bytes})
	}
	return nil
}

// uniform is an array of shape sh of numbers uniform in [lo, hi).
func uniform(s *device.Stream, sh gpuarr.Shape, lo, hi float32, seed uint64) (*gpuarr.Array[float32], error) {
	x := gpuarr.UniformExpr[float32](gpuarr.NewRNG(seed), sh)
	return gpuarr.Eval(gpuarr.Add(gpuarr.Mul(x, gpuarr.Scalar(hi-lo)), gpuarr.Scalar(lo)), gpuarr.On(s))
}

// head reads the first k elements of a 1-D float32 or bool array as
// float64s (true as 1).
func head[T float32 | bool](a *gpuarr.Array[T], k int) ([]float64, error) {
	v, err := a.Slice(0, k)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	got, err := v.ToSlice()
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(got))
	for i, g := range got {
		switch g := any(g).(type) {
		case float32:
			out[i] = float64(g)
		case bool:
			if g {
				out[i] = 1
			}
		}
	}
	return out, nil
}

// headInts reads the first k elements of a 1-D int32 array.
func headInts(a *gpuarr.Array[int32], k int) ([]int32, error) {
	v, err := a.Slice(0, k)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	return v.ToSlice()
}
