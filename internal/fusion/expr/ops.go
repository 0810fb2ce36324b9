package expr

// Op is an instruction's operation. The op table (ops) says what each one
// is; every layer that handles operations reads it: Validate checks
// instructions against it, internal/fusion/ptxgen calls the math library
// function of a Math op by its name, internal/fusion/hosteval looks up the
// Go function of a Math op, and package gpuarr's expression functions are
// one line per op.
//
// Both back ends give every op these semantics (casts: Castable):
//
//   - Arithmetic is in the instruction's type. Float + - * / and Sqrt are
//     correctly rounded (IEEE round to nearest), FMA is fused (one
//     rounding), so these agree bit for bit between back ends. Integer
//     arithmetic wraps (two's complement). Integer division truncates
//     toward zero; x / 0 is 0; MinInt / -1 is MinInt. Rem is the
//     remainder with A's sign (Go's %, C's fmod; exact for floats): x Rem
//     0 is 0 and MinInt Rem -1 is 0 for integers.
//   - Min and Max of floats return NaN when either operand is NaN
//     (NumPy's minimum/maximum); -0 and +0 may come out either way.
//   - Comparisons of floats are IEEE (false with a NaN, except Ne).
//   - Abs of an unsigned type is the identity; Abs(MinInt) is MinInt; Neg
//     of an unsigned type wraps.
//   - Exp, Log, Sqrt, Tanh, Pow take floats only. Special values follow
//     C99/Go math: Exp(+Inf)=+Inf, Exp(-Inf)=0, Log(0)=-Inf, Log(x<0)=NaN,
//     Tanh(±Inf)=±1, Pow as Go's math.Pow. The GPU's Exp, Log, Tanh and
//     Pow are within 4 ulp (float32) or 1e-14 relative (float64) of the
//     correctly rounded result.
//   - Storage types (Storage: the halves and the complex types) are
//     loaded, stored and converted, not computed with: OpReal and OpImag
//     take a complex value's parts (the real part is first in memory, as in
//     C99 and NumPy), OpComplex joins two; Sum, Prod and Mean reduce
//     complex values in Complex128 (Prod: ar·br − ai·bi, ar·bi + ai·br,
//     each operation rounded). A Bool array stores one byte an element, 0
//     or 1; a load takes any nonzero byte as true.
type Op uint8

const (
	// Leaves.
	OpInput  Op = iota // element of Inputs[Aux] (a Memory input), type T = its type
	OpRandom           // a random value from Inputs[Aux] (a Random input); T is Float32 or Float64
	OpScalar           // the scalar parameter Scalars[Aux] (T = its type)
	OpConst            // the constant Const converted to T
	OpIota             // the position of Inputs[Aux] (an Iota input): its strided element offset; T is Int64

	// Unary (operand A).
	OpNeg
	OpAbs
	OpExp
	OpLog
	OpSqrt
	OpTanh
	OpNot
	OpCast // A converted to T (see Castable)
	OpReal // the real part of complex A (T is its part type)
	OpImag // the imaginary part of complex A
	// Elementwise math functions (unary).
	OpSin
	OpCos
	OpTan
	OpAsin
	OpAcos
	OpAtan
	OpSinh
	OpCosh
	OpAsinh
	OpAcosh
	OpAtanh
	OpExp2
	OpExpm1
	OpLog2
	OpLog10
	OpLog1p
	OpCbrt
	OpErf
	OpErfc
	OpRsqrt
	OpFloor
	OpCeil
	OpTrunc
	OpRound // half to even
	OpSign
	OpInvert   // bitwise not
	OpIsNaN    // Bool
	OpIsInf    // Bool
	OpIsFinite // Bool

	// Binary (operands A, B).
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpMin
	OpMax
	OpPow
	OpLt
	OpLe
	OpGt
	OpGe
	OpEq
	OpNe
	OpAnd
	OpOr
	OpComplex // the complex number A + B·i (T complex, A and B its part type)
	// Issue 27's elementwise functions (binary).
	OpAtan2 // atan2(A, B): A is y
	OpHypot
	OpCopysign // |A| with B's sign
	OpFmin     // NaN-ignoring
	OpFmax
	OpFloorDiv // NumPy's //
	OpMod      // NumPy's %: the sign of B
	OpRem      // Go's % (C's fmod, NumPy's fmod): the sign of A
	OpBitAnd
	OpBitOr
	OpBitXor
	OpShl
	OpShr // arithmetic for signed types

	// Ternary (operands A, B, C).
	OpFMA   // A·B + C, fused for floats (one rounding)
	OpWhere // A (Bool) ? B : C

	numOps
)

// Class is what an op's operands and result may be.
type Class uint8

const (
	// Leaf: no operands; the instruction's fields say what it reads.
	Leaf Class = iota
	// Numeric: operands and result of the instruction's type, not Bool.
	Numeric
	// Float: operands and result of the instruction's type, a float.
	Float
	// Logical: operands and result Bool.
	Logical
	// Compare: two operands of one type, not Bool unless the op is Eq
	// or Ne; the result is Bool.
	Compare
	// Convert: one operand of any type, converted to the instruction's.
	Convert
	// Select: a Bool operand, then two of the instruction's type.
	Select
	// Part: one complex operand; the result is its part type.
	Part
	// Compose: two operands of a part type; the result is its complex
	// type.
	Compose
	// Integer: operands and result of the instruction's type, an integer.
	Integer
	// Test: one float operand; the result is Bool.
	Test
)

// OpInfo is one row of the op table.
type OpInfo struct {
	// Name names the op in listings and errors; for a Math op it is also
	// the math library's function name: internal/fusion/ptxgen emits a
	// call to Name_f32 or Name_f64.
	Name  string
	Arity int // operands A, B, C read
	Class Class
	// Math: a floating-point function that each back end implements in
	// its math library (ptxgen's mathlib, hosteval's mathFuncs) rather
	// than as an instruction of its own.
	Math bool
}

// ops is the op table.
var ops = [numOps]OpInfo{
	OpInput:  {"input", 0, Leaf, false},
	OpRandom: {"random", 0, Leaf, false},
	OpScalar: {"scalar", 0, Leaf, false},
	OpConst:  {"const", 0, Leaf, false},
	OpIota:   {"iota", 0, Leaf, false},

	OpNeg:  {"neg", 1, Numeric, false},
	OpAbs:  {"abs", 1, Numeric, false},
	OpExp:  {"exp", 1, Float, true},
	OpLog:  {"log", 1, Float, true},
	OpSqrt: {"sqrt", 1, Float, false}, // sqrt.rn, correctly rounded
	OpTanh: {"tanh", 1, Float, true},
	OpNot:  {"not", 1, Logical, false},
	OpCast: {"cast", 1, Convert, false},
	OpReal: {"real", 1, Part, false},
	OpImag: {"imag", 1, Part, false},

	OpSin:      {"sin", 1, Float, true},
	OpCos:      {"cos", 1, Float, true},
	OpTan:      {"tan", 1, Float, true},
	OpAsin:     {"asin", 1, Float, true},
	OpAcos:     {"acos", 1, Float, true},
	OpAtan:     {"atan", 1, Float, true},
	OpSinh:     {"sinh", 1, Float, true},
	OpCosh:     {"cosh", 1, Float, true},
	OpAsinh:    {"asinh", 1, Float, true},
	OpAcosh:    {"acosh", 1, Float, true},
	OpAtanh:    {"atanh", 1, Float, true},
	OpExp2:     {"exp2", 1, Float, true},
	OpExpm1:    {"expm1", 1, Float, true},
	OpLog2:     {"log2", 1, Float, true},
	OpLog10:    {"log10", 1, Float, true},
	OpLog1p:    {"log1p", 1, Float, true},
	OpCbrt:     {"cbrt", 1, Float, true},
	OpErf:      {"erf", 1, Float, true},
	OpErfc:     {"erfc", 1, Float, true},
	OpRsqrt:    {"rsqrt", 1, Float, false}, // 1/sqrt, two correct roundings
	OpFloor:    {"floor", 1, Float, false},
	OpCeil:     {"ceil", 1, Float, false},
	OpTrunc:    {"trunc", 1, Float, false},
	OpRound:    {"round", 1, Float, false},
	OpSign:     {"sign", 1, Numeric, false},
	OpInvert:   {"invert", 1, Integer, false},
	OpIsNaN:    {"isnan", 1, Test, false},
	OpIsInf:    {"isinf", 1, Test, false},
	OpIsFinite: {"isfinite", 1, Test, false},

	OpAdd: {"add", 2, Numeric, false},
	OpSub: {"sub", 2, Numeric, false},
	OpMul: {"mul", 2, Numeric, false},
	OpDiv: {"div", 2, Numeric, false},
	OpMin: {"min", 2, Numeric, false},
	OpMax: {"max", 2, Numeric, false},
	OpPow: {"pow", 2, Float, true},
	OpLt:  {"lt", 2, Compare, false},
	OpLe:  {"le", 2, Compare, false},
	OpGt:  {"gt", 2, Compare, false},
	OpGe:  {"ge", 2, Compare, false},
	OpEq:  {"eq", 2, Compare, false},
	OpNe:  {"ne", 2, Compare, false},
	OpAnd: {"and", 2, Logical, false},
	OpOr:  {"or", 2, Logical, false},

	OpComplex:  {"complex", 2, Compose, false},
	OpAtan2:    {"atan2", 2, Float, true},
	OpHypot:    {"hypot", 2, Float, true},
	OpCopysign: {"copysign", 2, Float, false},
	OpFmin:     {"fmin", 2, Numeric, false},
	OpFmax:     {"fmax", 2, Numeric, false},
	OpFloorDiv: {"floordiv", 2, Numeric, false},
	OpMod:      {"mod", 2, Numeric, false},
	OpRem:      {"rem", 2, Numeric, false},
	OpBitAnd:   {"bitand", 2, Integer, false},
	OpBitOr:    {"bitor", 2, Integer, false},
	OpBitXor:   {"bitxor", 2, Integer, false},
	OpShl:      {"shl", 2, Integer, false},
	OpShr:      {"shr", 2, Integer, false},

	OpFMA:   {"fma", 3, Numeric, false},
	OpWhere: {"where", 3, Select, false},
}

// Info is o's row of the op table (the zero OpInfo, named "op?", for a
// value that is no op).
func (o Op) Info() OpInfo {
	if o < numOps {
		return ops[o]
	}
	return OpInfo{Name: "op?"}
}

func (o Op) String() string { return o.Info().Name }

// Arity is the number of operands (A, B, C) the op reads.
func (o Op) Arity() int {
	if o < numOps {
		return ops[o].Arity
	}
	return 0
}

// IsCompare reports whether o compares two values into a Bool.
func (o Op) IsCompare() bool { return o < numOps && ops[o].Class == Compare }
