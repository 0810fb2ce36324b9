package hosteval

import (
	"math"

	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// The host's implementations of the Math ops (expr.OpInfo.Math), in
// float64: float32 operands are widened (exactly) and the result rounded
// to nearest, which the expr package doc's accuracy allows. A new Math op
// is a row here, and its PTX function in internal/fusion/ptxgen's mathlib.
var (
	unaryMath = map[expr.Op]func(float64) float64{
		expr.OpExp:  math.Exp,
		expr.OpLog:  logF64, // float32 values are never subnormal once converted to float64
		expr.OpTanh: math.Tanh,
	}
	binaryMath = map[expr.Op]func(float64, float64) float64{
		expr.OpPow: powF64,
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

// powF64 is math.Pow(x, y). For a subnormal x > 0 and a non-integer y,
// where math.Pow would take the logarithm of x, x = m·2⁻⁵⁴ with m =
// x·2⁵⁴ normal (exact) gives x^y = m^y · 2^(−54y), and −54y = p + e
// exactly (e from an FMA) gives 2^(−54y) = 2^p · (1 + e·ln 2) to float64
// precision. Negative subnormal x with a non-integer y is NaN, and
// integer y use repeated squaring, which is right for subnormals:
// math.Pow handles both.
func powF64(x, y float64) float64 {
	if x > 0 && x < minNormal && y != math.Trunc(y) {
		p := -54 * y
		e := math.FMA(-54, y, -p)
		return math.Pow(x*0x1p54, y) * math.Exp2(p) * (1 + e*math.Ln2)
	}
	return math.Pow(x, y)
}
