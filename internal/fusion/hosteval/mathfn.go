package hosteval

import (
	"math"

	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// The host's implementations of the Math ops (expr.OpInfo.Math), in
// float64: float32 operands are widened (exactly) and the result rounded
// to nearest, which expr.Op's accuracy bounds allow. Go's math
// package where it is within CUDA's bounds for float64, the PTX library's
// algorithms in Go elsewhere (mathfn64.go). A new Math op is a row here,
// and its PTX function in internal/fusion/ptxgen's mathlib.
var (
	unaryMath = map[expr.Op]func(float64) float64{
		expr.OpExp:   expF64,
		expr.OpLog:   logF64, // float32 values are never subnormal once converted to float64
		expr.OpTanh:  math.Tanh,
		expr.OpSin:   sinF64,
		expr.OpCos:   cosF64,
		expr.OpTan:   tanF64,
		expr.OpAsin:  asinF64,
		expr.OpAcos:  acosF64,
		expr.OpAtan:  math.Atan,
		expr.OpSinh:  sinhF64,
		expr.OpCosh:  coshF64,
		expr.OpAsinh: math.Asinh,
		expr.OpAcosh: math.Acosh,
		expr.OpAtanh: math.Atanh,
		expr.OpExp2:  math.Exp2,
		expr.OpExpm1: math.Expm1,
		expr.OpLog2:  log2F64,
		expr.OpLog10: log10F64,
		expr.OpLog1p: math.Log1p,
		expr.OpCbrt:  math.Cbrt,
		expr.OpErf:   math.Erf,
		expr.OpErfc:  math.Erfc,
	}
	binaryMath = map[expr.Op]func(float64, float64) float64{
		expr.OpPow:   powF64,
		expr.OpAtan2: atan2F64,
		expr.OpHypot: hypotF64,
	}
)

// Go's math.Log on amd64 (an assembly routine) returns wrong values for
// subnormal inputs, ln(2⁻¹⁰⁷⁴) = −709.09 instead of −744.44
// (golang/go#56600), and math.Pow and math.Log10 inherit the error from
// it. The host backend's float64 Log and Pow go through the functions
// below, which move subnormal inputs into the normal range first, so that
// they agree with the GPU's (ptxgen's log scales subnormals the
// same way) within the accuracy package expr documents. Exp, Sqrt and
// Tanh are right for subnormal inputs as they are (Exp gives 1, Sqrt is
// the hardware's correctly rounded root, Tanh(x) = x there).

// ln 2 split so that k·ln2Hi is exact for |k| < 2²⁰ (ln2Hi has 32
// significant bits) and ln2Lo = ln 2 − ln2Hi to float64 precision.
const (
	ln2Hi = 6.93147180369123816490e-01 // 0x3FE62E42FEE00000
	ln2Lo = 1.90821492927058770002e-10 // 0x3DEA39EF35793C76
)

// minNormal is the least positive normal float64, 2⁻¹⁰²².
const minNormal = 0x1p-1022

// logF64 is the natural logarithm. A subnormal x = f·2^e (f in [½, 1),
// exact) gives e·ln2Hi + (e·ln2Lo + ln f): the large term exact, the
// others small, so one rounding dominates the error.
func logF64(x float64) float64 {
	if x > 0 && x < minNormal {
		f, e := math.Frexp(x)
		k := float64(e)
		return k*ln2Hi + (k*ln2Lo + math.Log(f))
	}
	return math.Log(x)
}

// MathF64 returns the host's float64 implementation of Math op (unary or
// binary; nil for ops that are not Math ops), so that tests can compare
// the back ends.
func MathF64(op expr.Op) (unary func(float64) float64, binary func(float64, float64) float64) {
	return unaryMath[op], binaryMath[op]
}
