package ptxgen

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The math library: PTX device functions (.func, .param calling
// convention) for what the GPU has no instruction for, and the Philox
// generator. Kernels copy the bodies of the functions they use into their
// own (InlineFunc, with the tables InlineDefs gives); the .func
// definitions (FuncDefs) and their calls (CallFunc) are the form the tests
// run each function in.
//
// Functions and their signatures (argument and result PTX types):
//
//	exp_f32(f32) f32      exp_f64(f64) f64
//	log_f32(f32) f32      log_f64(f64) f64
//	tanh_f32(f32) f32     tanh_f64(f64) f64
//	pow_f32(f32, f32) f32 pow_f64(f64, f64) f64
//	rand_uniform_f32(u64 seed, u64 counter, u64 stream) f32
//	rand_uniform_f64(u64 seed, u64 counter, u64 stream) f64
//	rand_normal_f32(u64 seed, u64 counter, u64 stream) f32
//	rand_normal_f64(u64 seed, u64 counter, u64 stream) f64
//
// The .func symbols are the names prefixed "gpuarr_". Every function but
// one path is plain IEEE arithmetic (add, mul, fma, div and rcp with .rn),
// so its result is the same on every GPU and equals its Go model (or the
// PTX interpreter's result) in the tests bit for bit. The exceptions are
// float32 tanh for |x| > 1 (tanhWide32), which takes the GPU's
// ex2.approx and rcp.approx as they come, as CUDA's own exponentials do,
// float32 erf for |x| ≥ 1, erfc and pow, whose reciprocal is rcp.approx
// with its residual carried or a Newton step (one MUFU.RCP, where rcp.rn
// is a dozen instructions and a branch; erf's e^{−a²} is ex2.approx too),
// and float32 acosh and atanh, whose logarithm takes c/u by rcp.approx
// and atanh its quotient: their bits are the GPU's, within CUDA's bounds. Elsewhere .approx instructions are corrected: rcp.approx
// (quot32, float32 floordiv and mod) exactly, so that results do not
// depend on it within its one-ulp bound; rsqrt.approx (sqrt32, acos's
// root) to within a little over half an ulp (the tests' model errs by one
// ulp either way); lg2.approx only decides the logarithms' special values
// (logSpecials32). Several float32 functions branch around their
// wide-range arithmetic where |x| < 1 (erf, tanh, asinh): a warp whose
// arguments all lie there runs only a short polynomial. Accuracy: float32 functions within CUDA's bound each
// (testutil.MathFuncs; at most 4 ulp: measured tan ≤ 3.6, erfc ≤ 2.9,
// pow ≤ 2.4, atan2 ≤ 1.4, acosh ≤ 1.9, atanh ≤ 2.2, sinh ≤ 1.8, asinh
// ≤ 2.2, expm1 ≤ 1.25 (one step), tanh ≤ 1.77 with the interpreter's
// ex2.approx erring by a step, the others ≤ 1.7), float64 within 1e-14
// relative (measured ≤ 5e-16; pow: 1e-14·max(1, |y·ln x|)); special
// values as Go's math package, NaN payloads aside (the GPU's arithmetic
// returns its canonical NaN).
//
// Where these differ from Go's math package on amd64, Go is the one off:
// its Exp returns +Inf from x ≈ 709.4 on (exp(709.78) = 1.797e308 is
// finite; exp_f64 returns it) and its Log (so Pow too) is wrong for
// subnormal x (Log(5e-324) = −709.09, log_f64 gives −744.44). pow_f64 at
// the very edge of overflow or underflow may give the last finite value or
// the first nonzero one where the exact result rounds past it
// (pow(2, 1024) = 1.797e308, not +Inf), and integer powers are not always
// exact (pow(3, 3) may be 27·(1 ± 2⁻⁵²)); see mathlib_pow.go.

// mathSig is a function's PTX signature: result and argument types.
type mathSig struct {
	ret  string
	args []string
}

var (
	mathUnary32  = mathSig{"f32", []string{"f32"}}
	mathUnary64  = mathSig{"f64", []string{"f64"}}
	mathBinary32 = mathSig{"f32", []string{"f32", "f32"}}
	mathBinary64 = mathSig{"f64", []string{"f64", "f64"}}
	mathRandom32 = mathSig{"f32", []string{"u64", "u64", "u64"}}
	mathRandom64 = mathSig{"f64", []string{"u64", "u64", "u64"}}
)

// mathSigs holds every function's signature; CallFunc needs only this, so the
// definitions below can call one another through CallFunc.
var mathSigs = map[string]mathSig{
	"exp_f32": mathUnary32, "exp_f64": mathUnary64,
	"log_f32": mathUnary32, "log_f64": mathUnary64,
	"tanh_f32": mathUnary32, "tanh_f64": mathUnary64,
	"pow_f32": mathBinary32, "pow_f64": mathBinary64,
	"exp2_f32": mathUnary32, "exp2_f64": mathUnary64,
	"expm1_f32": mathUnary32, "expm1_f64": mathUnary64,
	"log2_f32": mathUnary32, "log2_f64": mathUnary64,
	"log10_f32": mathUnary32, "log10_f64": mathUnary64,
	"log1p_f32": mathUnary32, "log1p_f64": mathUnary64,
	"cbrt_f32": mathUnary32, "cbrt_f64": mathUnary64,
	"sinh_f32": mathUnary32, "sinh_f64": mathUnary64,
	"cosh_f32": mathUnary32, "cosh_f64": mathUnary64,
	"asinh_f32": mathUnary32, "asinh_f64": mathUnary64,
	"acosh_f32": mathUnary32, "acosh_f64": mathUnary64,
	"atanh_f32": mathUnary32, "atanh_f64": mathUnary64,
	"sin_f32": mathUnary32, "sin_f64": mathUnary64,
	"cos_f32": mathUnary32, "cos_f64": mathUnary64,
	"tan_f32": mathUnary32, "tan_f64": mathUnary64,
	"asin_f32": mathUnary32, "asin_f64": mathUnary64,
	"acos_f32": mathUnary32, "acos_f64": mathUnary64,
	"atan_f32": mathUnary32, "atan_f64": mathUnary64,
	"atan2_f32": mathBinary32, "atan2_f64": mathBinary64,
	"erf_f32": mathUnary32, "erf_f64": mathUnary64,
	"erfc_f32": mathUnary32, "erfc_f64": mathUnary64,
	"hypot_f32": mathBinary32, "hypot_f64": mathBinary64,
	"floordiv_f32": mathBinary32, "floordiv_f64": mathBinary64,
	"mod_f32": mathBinary32, "mod_f64": mathBinary64,
	"fmod_f32": mathBinary32, "fmod_f64": mathBinary64,
	"cos2pi_f64":       mathUnary64, // cos(2π·u) for u in [0, 1): Box-Muller's
	"rand_uniform_f32": mathRandom32, "rand_uniform_f64": mathRandom64,
	"rand_normal_f32": mathRandom32, "rand_normal_f64": mathRandom64,
}

// libFuncs builds every function once: name → definition.
var libFuncs = sync.OnceValue(func() map[string]funcDef {
	return map[string]funcDef{
		"exp_f32":          expF32Func(),
		"exp_f64":          expF64Func(),
		"log_f32":          logF32Func(),
		"log_f64":          logF64Func(),
		"tanh_f32":         tanhF32Func(),
		"tanh_f64":         tanhF64Func(),
		"pow_f32":          powFunc("f32"),
		"pow_f64":          powFunc("f64"),
		"exp2_f32":         exp2Func("f32"),
		"exp2_f64":         exp2Func("f64"),
		"expm1_f32":        expm1F32Func(),
		"expm1_f64":        expm1F64Func(),
		"log2_f32":         log2F32Func(),
		"log2_f64":         log2F64Func(),
		"log10_f32":        log10F32Func(),
		"log10_f64":        log10F64Func(),
		"log1p_f32":        log1pF32Func(),
		"log1p_f64":        log1pF64Func(),
		"cbrt_f32":         cbrtFunc("f32"),
		"cbrt_f64":         cbrtFunc("f64"),
		"sinh_f32":         hyperbolicFunc("sinh", "f32"),
		"sinh_f64":         hyperbolicFunc("sinh", "f64"),
		"cosh_f32":         hyperbolicFunc("cosh", "f32"),
		"cosh_f64":         hyperbolicFunc("cosh", "f64"),
		"asinh_f32":        asinhFunc("f32"),
		"asinh_f64":        asinhFunc("f64"),
		"acosh_f32":        acoshFunc("f32"),
		"acosh_f64":        acoshFunc("f64"),
		"atanh_f32":        atanhFunc("f32"),
		"atanh_f64":        atanhFunc("f64"),
		"sin_f32":          trigF32Func("sin"),
		"sin_f64":          trigFunc("sin", "f64"),
		"cos_f32":          trigF32Func("cos"),
		"cos_f64":          trigFunc("cos", "f64"),
		"tan_f32":          trigF32Func("tan"),
		"tan_f64":          trigFunc("tan", "f64"),
		"asin_f32":         asinAcosFunc("asin", "f32"),
		"asin_f64":         asinAcosFunc("asin", "f64"),
		"acos_f32":         asinAcosFunc("acos", "f32"),
		"acos_f64":         asinAcosFunc("acos", "f64"),
		"atan_f32":         atanFunc("f32"),
		"atan_f64":         atanFunc("f64"),
		"atan2_f32":        atan2Func("f32"),
		"atan2_f64":        atan2Func("f64"),
		"erf_f32":          erfFunc("erf", "f32"),
		"erf_f64":          erfFunc("erf", "f64"),
		"erfc_f32":         erfFunc("erfc", "f32"),
		"erfc_f64":         erfFunc("erfc", "f64"),
		"hypot_f32":        hypotFunc("f32"),
		"hypot_f64":        hypotFunc("f64"),
		"floordiv_f32":     floorDivFunc("f32"),
		"floordiv_f64":     floorDivFunc("f64"),
		"mod_f32":          modFunc("f32"),
		"mod_f64":          modFunc("f64"),
		"fmod_f32":         fmodFunc("f32"),
		"fmod_f64":         fmodFunc("f64"),
		"two_over_pi":      twoOverPiTable(), // a .const table, not a function
		"cos2pi_f64":       cos2piF64Func(),
		"rand_uniform_f32": randUniformF32Func(),
		"rand_uniform_f64": randUniformF64Func(),
		"rand_normal_f32":  randNormalF32Func(),
		"rand_normal_f64":  randNormalF64Func(),
	}
})

// FuncNames lists the functions FuncDefs, CallFunc and InlineFunc know,
// sorted.
func FuncNames() []string {
	names := make([]string, 0, len(mathSigs))
	for n := range mathSigs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// FuncDefs returns the PTX definitions of the named functions and of the
// functions they call, each once, callees first, to be placed after the
// module header and before the kernels. An unknown name is an error.
func FuncDefs(names []string) (string, error) {
	return libDefs("FuncDefs", names, func(funcDef) bool { return true })
}

// libDefs returns the texts of the named library entries and of those they
// depend on, each once, dependencies first, where keep says so. An unknown
// name is an error naming call.
func libDefs(call string, names []string, keep func(funcDef) bool) (string, error) {
	funcs := libFuncs()
	var (
		b    strings.Builder
		done = map[string]bool{}
		emit func(string)
	)
	emit = func(name string) {
		if done[name] {
			return
		}
		done[name] = true
		def := funcs[name]
		for _, d := range def.deps {
			emit(d)
		}
		if keep(def) {
			b.WriteString(def.text)
		}
	}
	for _, name := range names {
		if _, ok := funcs[name]; !ok {
			return "", fmt.Errorf("ptxgen.%s: unknown math library function %q (known: %s)", call, name, strings.Join(FuncNames(), ", "))
		}
		emit(name)
	}
	return b.String(), nil
}

// CallFunc returns PTX lines (a { } scope of .param declarations,
// st.param, call and ld.param) that call function name with the given
// argument registers and store its result in register ret. The registers
// must have the PTX types of the signature above. An unknown name or a
// wrong argument count is a bug in the caller, and CallFunc panics.
func CallFunc(name, ret string, args ...string) string {
	def, ok := mathSigs[name]
	if !ok {
		panic(fmt.Sprintf("ptxgen.CallFunc: unknown math library function %q", name))
	}
	if len(args) != len(def.args) {
		panic(fmt.Sprintf("ptxgen.CallFunc: %s takes %d arguments, got %d", name, len(def.args), len(args)))
	}
	var b strings.Builder
	b.WriteString("\t{\n")
	params := make([]string, len(args))
	for i, t := range def.args {
		params[i] = fmt.Sprintf("%s%d", callArg, i)
		fmt.Fprintf(&b, "\t.param .%s %s;\n", mathParamType(t), params[i])
	}
	fmt.Fprintf(&b, "\t.param .%s %s;\n", mathParamType(def.ret), callRet)
	for i, t := range def.args {
		fmt.Fprintf(&b, "\tst.param.%s [%s], %s;\n", t, params[i], args[i])
	}
	fmt.Fprintf(&b, "\tcall.uni (%s), %s, (%s);\n", callRet, mathSymbol(name), strings.Join(params, ", "))
	fmt.Fprintf(&b, "\tld.param.%s %s, [%s];\n", def.ret, ret, callRet)
	b.WriteString("\t}\n")
	return b.String()
}
