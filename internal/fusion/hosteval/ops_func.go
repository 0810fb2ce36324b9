package hosteval

import (
	"math"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Kernels of the elementwise functions that are not Math ops:
// rounding, sign, rsqrt, the float tests, copysign, fmin/fmax, NumPy's
// floor division and remainder, Go's remainder (NumPy's fmod), and the
// integers' bitwise operations and shifts. Each has NumPy's semantics (expr.Op's doc, and the
// npfuncs goldens in internal/testutil check them bit for bit).

// unaryFuncFor returns the kernel of such a unary op on t, or nil.
func unaryFuncFor(op expr.Op, t dtype.DType) unaryK {
	switch t {
	case dtype.Float32:
		return unaryFuncFloat[float32](op)
	case dtype.Float64:
		return unaryFuncFloat[float64](op)
	case dtype.Int8:
		return unaryFuncSigned[int8](op)
	case dtype.Int16:
		return unaryFuncSigned[int16](op)
	case dtype.Int32:
		return unaryFuncSigned[int32](op)
	case dtype.Int64:
		return unaryFuncSigned[int64](op)
	case dtype.Uint8:
		return unaryFuncUnsigned[uint8](op)
	case dtype.Uint16:
		return unaryFuncUnsigned[uint16](op)
	case dtype.Uint32:
		return unaryFuncUnsigned[uint32](op)
	case dtype.Uint64:
		return unaryFuncUnsigned[uint64](op)
	}
	return nil
}

func unaryFuncFloat[T float](op expr.Op) unaryK {
	switch op {
	case expr.OpFloor:
		return mathK[T](math.Floor)
	case expr.OpCeil:
		return mathK[T](math.Ceil)
	case expr.OpTrunc:
		return mathK[T](math.Trunc)
	case expr.OpRound:
		return mathK[T](math.RoundToEven)
	case expr.OpRsqrt:
		return rsqrtK[T]
	case expr.OpSign:
		return signFloatK[T]
	}
	return nil
}

func unaryFuncSigned[T signed](op expr.Op) unaryK {
	switch op {
	case expr.OpSign:
		return signIntK[T]
	case expr.OpInvert:
		return invertK[T]
	}
	return nil
}

func unaryFuncUnsigned[T unsigned](op expr.Op) unaryK {
	switch op {
	case expr.OpSign:
		return signIntK[T]
	case expr.OpInvert:
		return invertK[T]
	}
	return nil
}

// rsqrtK is 1/√x with the two roundings the PTX has (sqrt.rn, div.rn):
// float32 as float32 operations, float64 as float64.
func rsqrtK[T float](o, a unsafe.Pointer, n int) {
	os, as := col[T](o, n), col[T](a, n)
	for i := range os {
		s := T(math.Sqrt(float64(as[i]))) // correctly rounded in T
		os[i] = T(1 / s)
	}
}

// signFloatK is −1, +0 or 1, NaN for NaN (NumPy's sign: +0 for −0).
func signFloatK[T float](o, a unsafe.Pointer, n int) {
	os, as := col[T](o, n), col[T](a, n)
	for i := range os {
		switch x := as[i]; {
		case x > 0:
			os[i] = 1
		case x < 0:
			os[i] = -1
		case x == 0:
			os[i] = 0
		default:
			os[i] = x
		}
	}
}

func signIntK[T integer](o, a unsafe.Pointer, n int) {
	os, as := col[T](o, n), col[T](a, n)
	for i := range os {
		var s T
		switch x := as[i]; {
		case x > 0:
			s = 1
		case x < 0:
			s = ^T(0) // −1 for the signed types (unsigned never get here)
		}
		os[i] = s
	}
}

func invertK[T integer](o, a unsafe.Pointer, n int) {
	os, as := col[T](o, n), col[T](a, n)
	for i := range os {
		os[i] = ^as[i]
	}
}

// testFor returns the kernel of IsNaN, IsInf or IsFinite of a float t,
// writing Bool.
func testFor(op expr.Op, t dtype.DType) unaryK {
	var f func(float64) bool
	switch op {
	case expr.OpIsNaN:
		f = func(x float64) bool { return x != x }
	case expr.OpIsInf:
		f = func(x float64) bool { return math.IsInf(x, 0) }
	case expr.OpIsFinite:
		f = func(x float64) bool { return !math.IsInf(x, 0) && x == x }
	default:
		return nil
	}
	switch t {
	case dtype.Float32:
		return func(o, a unsafe.Pointer, n int) {
			os, as := col[bool](o, n), col[float32](a, n)
			for i := range os {
				os[i] = f(float64(as[i]))
			}
		}
	case dtype.Float64:
		return func(o, a unsafe.Pointer, n int) {
			os, as := col[bool](o, n), col[float64](a, n)
			for i := range os {
				os[i] = f(as[i])
			}
		}
	}
	return nil
}

// binaryFuncFor returns the kernel of such a binary op on t, or nil.
func binaryFuncFor(op expr.Op, t dtype.DType) binaryK {
	switch t {
	case dtype.Float32:
		return binaryFuncFloat[float32](op)
	case dtype.Float64:
		return binaryFuncFloat[float64](op)
	case dtype.Int8:
		return binaryFuncInt[int8](op, true)
	case dtype.Int16:
		return binaryFuncInt[int16](op, true)
	case dtype.Int32:
		return binaryFuncInt[int32](op, true)
	case dtype.Int64:
		return binaryFuncInt[int64](op, true)
	case dtype.Uint8:
		return binaryFuncInt[uint8](op, false)
	case dtype.Uint16:
		return binaryFuncInt[uint16](op, false)
	case dtype.Uint32:
		return binaryFuncInt[uint32](op, false)
	case dtype.Uint64:
		return binaryFuncInt[uint64](op, false)
	}
	return nil
}

func binaryFuncFloat[T float](op expr.Op) binaryK {
	switch op {
	case expr.OpCopysign:
		return elementwise2[T](func(a, b T) T { return T(math.Copysign(float64(a), float64(b))) })
	case expr.OpFmin:
		return elementwise2[T](func(a, b T) T { return T(ptxMin(float64(a), float64(b))) })
	case expr.OpFmax:
		return elementwise2[T](func(a, b T) T { return T(ptxMax(float64(a), float64(b))) })
	case expr.OpFloorDiv:
		return elementwise2[T](func(a, b T) T { q, _ := divmod(a, b); return q })
	case expr.OpMod:
		return elementwise2[T](func(a, b T) T { _, m := divmod(a, b); return m })
	case expr.OpRem:
		// math.Mod is exact, so its float64 result of float32 operands
		// is exact in float32.
		return elementwise2[T](func(a, b T) T { return T(math.Mod(float64(a), float64(b))) })
	}
	return nil
}

func binaryFuncInt[T integer](op expr.Op, signed bool) binaryK {
	switch op {
	case expr.OpFmin:
		return minK[T]
	case expr.OpFmax:
		return maxK[T]
	case expr.OpFloorDiv:
		return elementwise2[T](floorDivInt[T])
	case expr.OpMod:
		return elementwise2[T](modInt[T])
	case expr.OpRem:
		return elementwise2[T](remInt[T])
	case expr.OpBitAnd:
		return elementwise2[T](func(a, b T) T { return a & b })
	case expr.OpBitOr:
		return elementwise2[T](func(a, b T) T { return a | b })
	case expr.OpBitXor:
		return elementwise2[T](func(a, b T) T { return a ^ b })
	case expr.OpShl:
		return elementwise2[T](shlInt[T])
	case expr.OpShr:
		return elementwise2[T](shrInt[T])
	}
	return nil
}

// elementwise2 is a binary kernel applying f.
func elementwise2[T any](f func(a, b T) T) binaryK {
	return func(o, a, b unsafe.Pointer, n int) {
		os, as, bs := col[T](o, n), col[T](a, n), col[T](b, n)
		for i := range os {
			os[i] = f(as[i], bs[i])
		}
	}
}

// divmod is NumPy's floor division and remainder of floats (npy_divmod),
// every operation in T (see ptxgen's mathlib_mod.go).
func divmod[T float](a, b T) (floordiv, mod T) {
	mod = T(math.Mod(float64(a), float64(b))) // exact, so exact in T
	if b == 0 {
		return a / b, mod
	}
	div := (a - mod) / b
	if mod != 0 {
		if (b < 0) != (mod < 0) {
			mod += b
			div -= 1
		}
	} else {
		mod = T(math.Copysign(0, float64(b)))
	}
	if div != 0 {
		floordiv = T(math.Floor(float64(div)))
		if div-floordiv > 0.5 {
			floordiv += 1
		}
	} else {
		floordiv = T(math.Copysign(0, float64(a/b)))
	}
	return floordiv, mod
}

// floorDivInt is NumPy's // of integers: rounded toward −∞, x // 0 = 0,
// MinInt // −1 = MinInt (Go's wrapping quotient).
func floorDivInt[T integer](a, b T) T {
	if b == 0 {
		return 0
	}
	q := a / b
	if r := a - q*b; r != 0 && (r < 0) != (b < 0) {
		q--
	}
	return q
}

// modInt is NumPy's % of integers: the divisor's sign, x % 0 = 0.
func modInt[T integer](a, b T) T {
	if b == 0 {
		return 0
	}
	r := a % b // MinInt % −1 is 0 in Go
	if r != 0 && (r < 0) != (b < 0) {
		r += b
	}
	return r
}

// width is T's size in bits.
func width[T integer]() uint64 { return uint64(unsafe.Sizeof(T(0))) * 8 }

// remInt is Go's % with the dividend's sign, x % 0 = 0 (NumPy's fmod;
// Go would panic); MinInt % −1 is 0 in Go already.
func remInt[T integer](a, b T) T {
	if b == 0 {
		return 0
	}
	return a % b
}

// shlInt is a << b with NumPy's counts: a negative count or one of at
// least the width gives 0.
func shlInt[T integer](a, b T) T {
	if uint64(b) >= width[T]() { // a negative b is huge as uint64
		return 0
	}
	return a << uint64(b)
}

// shrInt is a >> b, arithmetic for signed T: a negative count or one of
// at least the width gives 0, or −1 for negative a.
func shrInt[T integer](a, b T) T {
	if n := uint64(b); n >= width[T]() {
		if a < 0 {
			return ^T(0)
		}
		return 0
	}
	return a >> uint64(b)
}
