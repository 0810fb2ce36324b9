package expr

// Op is an instruction's operation. The op table (ops) says what each one
// is; every layer that handles operations reads it: Validate checks
// instructions against it, internal/fusion/ptxgen calls the math library
// function of a Math op by its name, internal/fusion/hosteval looks up the
// Go function of a Math op, and package gpuarr's expression functions are
// one line per op.
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
	OpCast // A converted to T (see the package doc)

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
