package hosteval

import (
	"math"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Column kernels: each computes n results into o from operand columns of
// the same length. Float results are converted to their type explicitly
// after each operation so that the compiler never fuses a multiply and an
// add (the GPU rounds each .rn operation).
type (
	unaryK   func(o, a unsafe.Pointer, n int)
	binaryK  func(o, a, b unsafe.Pointer, n int)
	ternaryK func(o, a, b, c unsafe.Pointer, n int)
)

func isFloat[T number]() bool {
	switch any(*new(T)).(type) {
	case float32, float64:
		return true
	}
	return false
}

// unaryFor returns the kernel of a unary op on t, or nil when the op does
// not apply to t (OpCast is separate: see castFor).
func unaryFor(op expr.Op, t dtype.DType) unaryK {
	switch t {
	case dtype.Bool:
		if op == expr.OpNot {
			return notK
		}
		return nil
	case dtype.Int8:
		return unarySigned[int8](op)
	case dtype.Int16:
		return unarySigned[int16](op)
	case dtype.Int32:
		return unarySigned[int32](op)
	case dtype.Int64:
		return unarySigned[int64](op)
	case dtype.Uint8:
		return unaryUnsigned[uint8](op)
	case dtype.Uint16:
		return unaryUnsigned[uint16](op)
	case dtype.Uint32:
		return unaryUnsigned[uint32](op)
	case dtype.Uint64:
		return unaryUnsigned[uint64](op)
	case dtype.Float32:
		if op == expr.OpAbs {
			return abs32K
		}
		return unaryFloat[float32](op)
	case dtype.Float64:
		if op == expr.OpAbs {
			return abs64K
		}
		return unaryFloat[float64](op)
	}
	return nil
}

func unarySigned[T signed](op expr.Op) unaryK {
	switch op {
	case expr.OpNeg:
		return negK[T]
	case expr.OpAbs:
		return absIntK[T]
	}
	return nil
}

func unaryUnsigned[T unsigned](op expr.Op) unaryK {
	switch op {
	case expr.OpNeg:
		return negK[T] // wraps
	case expr.OpAbs:
		return copyK[T] // |x| of an unsigned x is x
	}
	return nil
}

func unaryFloat[T float](op expr.Op) unaryK {
	switch op {
	case expr.OpNeg:
		return negK[T]
	case expr.OpSqrt:
		// float32: the float64 root rounded again is still correctly
		// rounded (53 ≥ 2·24+2), so it matches sqrt.rn.f32.
		return mathK[T](math.Sqrt)
	}
	if f := unaryMath[op]; f != nil {
		return mathK[T](f)
	}
	return nil
}

func copyK[T any](o, a unsafe.Pointer, n int) { copy(col[T](o, n), col[T](a, n)) }

func notK(o, a unsafe.Pointer, n int) {
	os, as := col[bool](o, n), col[bool](a, n)
	for i := range os {
		os[i] = !as[i]
	}
}

// negK wraps for integers (unsigned too) and flips the sign bit of floats.
func negK[T number](o, a unsafe.Pointer, n int) {
	os, as := col[T](o, n), col[T](a, n)
	for i := range os {
		os[i] = -as[i]
	}
}

// absIntK leaves MinInt as MinInt (its negation wraps to itself).
func absIntK[T signed](o, a unsafe.Pointer, n int) {
	os, as := col[T](o, n), col[T](a, n)
	for i := range os {
		x := as[i]
		if x < 0 {
			x = -x
		}
		os[i] = x
	}
}

// abs32K and abs64K clear the sign bit, as abs.f32/abs.f64 do (|-0| = +0,
// NaN stays NaN).
func abs32K(o, a unsafe.Pointer, n int) {
	os, as := col[uint32](o, n), col[uint32](a, n)
	for i := range os {
		os[i] = as[i] &^ (1 << 31)
	}
}

func abs64K(o, a unsafe.Pointer, n int) {
	os, as := col[uint64](o, n), col[uint64](a, n)
	for i := range os {
		os[i] = as[i] &^ (1 << 63)
	}
}

// mathK applies a float64 function; float32 operands are widened (exactly)
// and the result rounded to nearest.
func mathK[T float](f func(float64) float64) unaryK {
	return func(o, a unsafe.Pointer, n int) {
		os, as := col[T](o, n), col[T](a, n)
		for i := range os {
			os[i] = T(f(float64(as[i])))
		}
	}
}

// binaryFor returns the kernel of a binary op whose operands have type t
// (comparisons write Bool), or nil when the op does not apply to t.
func binaryFor(op expr.Op, t dtype.DType) binaryK {
	switch t {
	case dtype.Bool:
		switch op {
		case expr.OpAnd:
			return andK
		case expr.OpOr:
			return orK
		case expr.OpEq:
			return eqK[bool]
		case expr.OpNe:
			return neK[bool]
		}
		return nil
	case dtype.Int8:
		return binaryNum[int8](op)
	case dtype.Int16:
		return binaryNum[int16](op)
	case dtype.Int32:
		return binaryNum[int32](op)
	case dtype.Int64:
		return binaryNum[int64](op)
	case dtype.Uint8:
		return binaryNum[uint8](op)
	case dtype.Uint16:
		return binaryNum[uint16](op)
	case dtype.Uint32:
		return binaryNum[uint32](op)
	case dtype.Uint64:
		return binaryNum[uint64](op)
	case dtype.Float32:
		if f := binaryMath[op]; f != nil {
			return mathK2[float32](f)
		}
		return binaryNum[float32](op)
	case dtype.Float64:
		if f := binaryMath[op]; f != nil {
			return mathK2[float64](f)
		}
		return binaryNum[float64](op)
	}
	return nil
}

func binaryNum[T number](op expr.Op) binaryK {
	switch op {
	case expr.OpAdd:
		return addK[T]
	case expr.OpSub:
		return subK[T]
	case expr.OpMul:
		return mulK[T]
	case expr.OpDiv:
		return divK[T]
	case expr.OpMin:
		return minK[T]
	case expr.OpMax:
		return maxK[T]
	case expr.OpLt:
		return ltK[T]
	case expr.OpLe:
		return leK[T]
	case expr.OpGt:
		return gtK[T]
	case expr.OpGe:
		return geK[T]
	case expr.OpEq:
		return eqK[T]
	case expr.OpNe:
		return neK[T]
	}
	return nil
}

func addK[T number](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[T](o, n), col[T](a, n), col[T](b, n)
	for i := range os {
		os[i] = T(as[i] + bs[i])
	}
}

func subK[T number](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[T](o, n), col[T](a, n), col[T](b, n)
	for i := range os {
		os[i] = T(as[i] - bs[i])
	}
}

func mulK[T number](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[T](o, n), col[T](a, n), col[T](b, n)
	for i := range os {
		os[i] = T(as[i] * bs[i])
	}
}

// divK: IEEE division for floats; for integers truncation toward zero,
// x/0 = 0, and MinInt/-1 = MinInt (Go's own wrapping quotient).
func divK[T number](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[T](o, n), col[T](a, n), col[T](b, n)
	if isFloat[T]() {
		for i := range os {
			os[i] = T(as[i] / bs[i])
		}
		return
	}
	for i := range os {
		if d := bs[i]; d != 0 {
			os[i] = as[i] / d
		} else {
			os[i] = 0
		}
	}
}

// minK and maxK use Go's min and max, which return NaN when either float
// operand is NaN.
func minK[T number](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[T](o, n), col[T](a, n), col[T](b, n)
	for i := range os {
		os[i] = min(as[i], bs[i])
	}
}

func maxK[T number](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[T](o, n), col[T](a, n), col[T](b, n)
	for i := range os {
		os[i] = max(as[i], bs[i])
	}
}

// mathK2 is mathK for a function of two operands.
func mathK2[T float](f func(float64, float64) float64) binaryK {
	return func(o, a, b unsafe.Pointer, n int) {
		os, as, bs := col[T](o, n), col[T](a, n), col[T](b, n)
		for i := range os {
			os[i] = T(f(float64(as[i]), float64(bs[i])))
		}
	}
}

// Comparisons are Go's, which are IEEE's: false with a NaN except !=.
func ltK[T number](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[bool](o, n), col[T](a, n), col[T](b, n)
	for i := range os {
		os[i] = as[i] < bs[i]
	}
}

func leK[T number](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[bool](o, n), col[T](a, n), col[T](b, n)
	for i := range os {
		os[i] = as[i] <= bs[i]
	}
}

func gtK[T number](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[bool](o, n), col[T](a, n), col[T](b, n)
	for i := range os {
		os[i] = as[i] > bs[i]
	}
}

func geK[T number](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[bool](o, n), col[T](a, n), col[T](b, n)
	for i := range os {
		os[i] = as[i] >= bs[i]
	}
}

func eqK[T comparable](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[bool](o, n), col[T](a, n), col[T](b, n)
	for i := range os {
		os[i] = as[i] == bs[i]
	}
}

func neK[T comparable](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[bool](o, n), col[T](a, n), col[T](b, n)
	for i := range os {
		os[i] = as[i] != bs[i]
	}
}

func andK(o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[bool](o, n), col[bool](a, n), col[bool](b, n)
	for i := range os {
		os[i] = as[i] && bs[i]
	}
}

func orK(o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[bool](o, n), col[bool](a, n), col[bool](b, n)
	for i := range os {
		os[i] = as[i] || bs[i]
	}
}

// ternaryFor returns the kernel of FMA or Where of type t, or nil.
func ternaryFor(op expr.Op, t dtype.DType) ternaryK {
	if op == expr.OpWhere {
		switch t {
		case dtype.Bool:
			return whereK[bool]
		case dtype.Int8, dtype.Uint8:
			return whereK[uint8]
		case dtype.Int16, dtype.Uint16:
			return whereK[uint16]
		case dtype.Int32, dtype.Uint32, dtype.Float32:
			return whereK[uint32] // selection moves bits: NaN payloads survive
		case dtype.Int64, dtype.Uint64, dtype.Float64:
			return whereK[uint64]
		}
		return nil
	}
	if op != expr.OpFMA {
		return nil
	}
	switch t {
	case dtype.Int8:
		return fmaIntK[int8]
	case dtype.Int16:
		return fmaIntK[int16]
	case dtype.Int32:
		return fmaIntK[int32]
	case dtype.Int64:
		return fmaIntK[int64]
	case dtype.Uint8:
		return fmaIntK[uint8]
	case dtype.Uint16:
		return fmaIntK[uint16]
	case dtype.Uint32:
		return fmaIntK[uint32]
	case dtype.Uint64:
		return fmaIntK[uint64]
	case dtype.Float32:
		return fma32K
	case dtype.Float64:
		return fma64K
	}
	return nil
}

func whereK[T any](o, a, b, c unsafe.Pointer, n int) {
	os, as, bs, cs := col[T](o, n), col[bool](a, n), col[T](b, n), col[T](c, n)
	for i := range os {
		if as[i] {
			os[i] = bs[i]
		} else {
			os[i] = cs[i]
		}
	}
}

// fmaIntK is a·b + c with wrapping integers.
func fmaIntK[T integer](o, a, b, c unsafe.Pointer, n int) {
	os, as, bs, cs := col[T](o, n), col[T](a, n), col[T](b, n), col[T](c, n)
	for i := range os {
		os[i] = as[i]*bs[i] + cs[i]
	}
}

func fma64K(o, a, b, c unsafe.Pointer, n int) {
	os, as, bs, cs := col[float64](o, n), col[float64](a, n), col[float64](b, n), col[float64](c, n)
	for i := range os {
		os[i] = math.FMA(as[i], bs[i], cs[i])
	}
}

func fma32K(o, a, b, c unsafe.Pointer, n int) {
	os, as, bs, cs := col[float32](o, n), col[float32](a, n), col[float32](b, n), col[float32](c, n)
	for i := range os {
		os[i] = fma32(as[i], bs[i], cs[i])
	}
}

// partFor returns the kernel taking the real (or imaginary) part of
// complex values of type t.
func partFor(t dtype.DType, imag bool) unaryK {
	if t == dtype.Complex64 {
		return partK[float32](imag)
	}
	return partK[float64](imag)
}

// partK reads part j of [2]F pairs: a complex number's memory is its
// real part, then its imaginary part.
func partK[F float32 | float64](imag bool) unaryK {
	j := 0
	if imag {
		j = 1
	}
	return func(o, a unsafe.Pointer, n int) {
		os, as := col[F](o, n), col[[2]F](a, n)
		for i := range os {
			os[i] = as[i][j]
		}
	}
}

// complexFor returns the kernel joining parts into complex values of
// type t.
func complexFor(t dtype.DType) binaryK {
	if t == dtype.Complex64 {
		return complexK[float32]
	}
	return complexK[float64]
}

func complexK[F float32 | float64](o, a, b unsafe.Pointer, n int) {
	os, as, bs := col[[2]F](o, n), col[F](a, n), col[F](b, n)
	for i := range os {
		os[i] = [2]F{as[i], bs[i]}
	}
}
