package numpytest_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// The interpreter table: the one place where a golden case's op names
// meet gpuarr's functions. A row turns a node (its evaluated operands and
// its attributes) into a gpuarr call.
//
// Adding a function: a row in the rows of the element types it takes,
// which follow gpuarr's constraints (elementRows for every type,
// numberRows, orderedRows, realRows, floatingRows, floatRows, complexRows,
// integerRows, maskRows; for a function from one element type to another,
// castRows, sumAsRows or meanAsRows), under the op name the generator
// gives its cases (gen/*.py). Until its row exists, the cases of a
// function are counted as pending, not run. Adding an element type: its
// entry in types and in the conversion lists (conversionsTo,
// numberConversionsTo, floatingConversionsTo), and its format in
// formats_test.go.

type row func(c *call) (value, error)

type rows map[string]row

// call is one node being run: its node (attributes), its operands'
// values, and the scope that releases what it makes.
type call struct {
	n    *node
	args []value
	sc   *scope
}

// elemType is one element type: the functions whose operands are of it,
// the conversions to it (by the operand's type), and how to make an
// array of it from the goldens' bytes (nil while gpuarr cannot store it).
type elemType struct {
	rows   rows
	from   map[string]rows
	upload func(sc *scope, h hostArray) (value, error)
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

var types = map[string]*elemType{
	"bool":       boolType(),
	"int8":       integerType[int8](),
	"int16":      integerType[int16](),
	"int32":      integerType[int32](),
	"int64":      integerType[int64](),
	"uint8":      integerType[uint8](),
	"uint16":     integerType[uint16](),
	"uint32":     integerType[uint32](),
	"uint64":     integerType[uint64](),
	"float16":    floatingType[gpuarr.Float16](),
	"bfloat16":   floatingType[gpuarr.BFloat16](),
	"float32":    floatType[float32](),
	"float64":    floatType[float64](),
	"complex64":  complexType[complex64, float32](),
	"complex128": complexType[complex128, float64](),
}

// conversionsTo are the functions from each element type to R.
func conversionsTo[R gpuarr.Element]() map[string]rows {
	return map[string]rows{
		"bool":       castRows[R, bool](),
		"int8":       castRows[R, int8](),
		"int16":      castRows[R, int16](),
		"int32":      castRows[R, int32](),
		"int64":      castRows[R, int64](),
		"uint8":      castRows[R, uint8](),
		"uint16":     castRows[R, uint16](),
		"uint32":     castRows[R, uint32](),
		"uint64":     castRows[R, uint64](),
		"float16":    castRows[R, gpuarr.Float16](),
		"bfloat16":   castRows[R, gpuarr.BFloat16](),
		"float32":    castRows[R, float32](),
		"float64":    castRows[R, float64](),
		"complex64":  castRows[R, complex64](),
		"complex128": castRows[R, complex128](),
	}
}

// numberConversionsTo are the reductions from each element type to a
// number type R; floatingConversionsTo those to a floating type.
func numberConversionsTo[R gpuarr.Number]() map[string]rows {
	return map[string]rows{
		"bool":       sumAsRows[R, bool](),
		"int8":       sumAsRows[R, int8](),
		"int16":      sumAsRows[R, int16](),
		"int32":      sumAsRows[R, int32](),
		"int64":      sumAsRows[R, int64](),
		"uint8":      sumAsRows[R, uint8](),
		"uint16":     sumAsRows[R, uint16](),
		"uint32":     sumAsRows[R, uint32](),
		"uint64":     sumAsRows[R, uint64](),
		"float16":    sumAsRows[R, gpuarr.Float16](),
		"bfloat16":   sumAsRows[R, gpuarr.BFloat16](),
		"float32":    sumAsRows[R, float32](),
		"float64":    sumAsRows[R, float64](),
		"complex64":  sumAsRows[R, complex64](),
		"complex128": sumAsRows[R, complex128](),
	}
}

func floatingConversionsTo[R gpuarr.Floating]() map[string]rows {
	return map[string]rows{
		"bool":     meanAsRows[R, bool](),
		"int8":     meanAsRows[R, int8](),
		"int16":    meanAsRows[R, int16](),
		"int32":    meanAsRows[R, int32](),
		"int64":    meanAsRows[R, int64](),
		"uint8":    meanAsRows[R, uint8](),
		"uint16":   meanAsRows[R, uint16](),
		"uint32":   meanAsRows[R, uint32](),
		"uint64":   meanAsRows[R, uint64](),
		"float16":  meanAsRows[R, gpuarr.Float16](),
		"bfloat16": meanAsRows[R, gpuarr.BFloat16](),
		"float32":  meanAsRows[R, float32](),
		"float64":  meanAsRows[R, float64](),
	}
}

func mergeFrom(ms ...map[string]rows) map[string]rows {
	out := map[string]rows{}
	for _, m := range ms {
		for src, r := range m {
			out[src] = merge(out[src], r)
		}
	}
	return out
}

func boolType() *elemType {
	return &elemType{rows: merge(elementRows[bool](), orderedRows[bool](), maskRows(), langElementRows[bool]()), from: conversionsTo[bool](), upload: upload[bool]}
}

func integerType[T integer]() *elemType {
	return &elemType{rows: merge(elementRows[T](), numberRows[T](), orderedRows[T](), realRows[T](), integerRows[T](), langElementRows[T](), langNumericRows[T](), sortscanRows[T]()),
		from: mergeFrom(conversionsTo[T](), numberConversionsTo[T]()), upload: upload[T]}
}

func floatingType[T gpuarr.Floating]() *elemType {
	return &elemType{rows: merge(elementRows[T](), numberRows[T](), orderedRows[T](), realRows[T](), floatingRows[T](), langElementRows[T](), matmulRows[T]()),
		from: mergeFrom(conversionsTo[T](), numberConversionsTo[T](), floatingConversionsTo[T]()), upload: upload[T]}
}

func floatType[T gpuarr.Float]() *elemType {
	et := floatingType[T]()
	et.rows = merge(et.rows, floatRows[T](), langNumericRows[T](), langFloatRows[T](), sortscanRows[T]())
	return et
}

func complexType[C gpuarr.ComplexFloat, R gpuarr.Float]() *elemType {
	return &elemType{rows: merge(elementRows[C](), numberRows[C](), complexRows[C, R](), langElementRows[C](), matmulRows[C]()),
		from: mergeFrom(conversionsTo[C](), numberConversionsTo[C]()), upload: upload[C]}
}

// elementRows are the functions of every element type.
func elementRows[T gpuarr.Element]() rows {
	return rows{
		// leaves and constructors
		"Scalar": func(c *call) (value, error) { return exprVal[T]{gpuarr.Scalar(scalarAttr[T](c.n, "v"))}, nil },
		"Full": construct(func(c *call) (*gpuarr.Array[T], error) {
			return gpuarr.Full(gpuarr.Shape(c.n.ints("shape")), scalarAttr[T](c.n, "v"))
		}),
		"Zeros": construct(func(c *call) (*gpuarr.Array[T], error) { return gpuarr.Zeros[T](gpuarr.Shape(c.n.ints("shape"))) }),
		"Ones":  construct(func(c *call) (*gpuarr.Array[T], error) { return gpuarr.Ones[T](gpuarr.Shape(c.n.ints("shape"))) }),

		// views and copies
		"Transpose": view(func(_ *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) { return a.Transpose() }),
		"Permute":   view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) { return a.Permute(c.n.ints("axes")...) }),
		"Step": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
			return a.Step(c.n.int("axis"), c.n.int("start"), c.n.int("stop"), c.n.int("step"))
		}),
		"Slice": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
			return a.Slice(c.n.int("i"), c.n.int("j"))
		}),
		"Reshape": view(func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
			return a.Reshape(gpuarr.Shape(c.n.ints("shape")))
		}),
		"Clone":           view(func(_ *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error) { return gpuarr.Clone(a) }),
		"EvalInto":        evalInto[T],
		"EvalIntoOverlap": evalInto[T],

		"Equal":    compare(gpuarr.Equal[T]),
		"NotEqual": compare(gpuarr.NotEqual[T]),
		"Where": func(c *call) (value, error) {
			m, err := operand[bool](c.args[0])
			if err != nil {
				return nil, err
			}
			x, err := operand[T](c.args[1])
			if err != nil {
				return nil, err
			}
			y, err := operand[T](c.args[2])
			if err != nil {
				return nil, err
			}
			return exprVal[T]{gpuarr.Where(m, x, y)}, nil
		},
		"CountNonzero": reduction(gpuarr.CountNonzero[T]),
		"Nonzero": func(c *call) (value, error) {
			x, err := operand[T](c.args[0])
			if err != nil {
				return nil, err
			}
			idx, err := gpuarr.Nonzero(x)
			if err != nil {
				return nil, err
			}
			var out tupleVal
			for _, a := range idx {
				c.sc.keep(a)
				out = append(out, arrayVal[int64]{a})
			}
			return out, nil
		},
	}
}

// numberRows are the functions of the types arithmetic applies to.
func numberRows[T gpuarr.Number]() rows {
	return rows{
		"Add":  binop(gpuarr.Add[T]),
		"Sub":  binop(gpuarr.Sub[T]),
		"Mul":  binop(gpuarr.Mul[T]),
		"Div":  binop(gpuarr.Div[T]),
		"FMA":  ternary(gpuarr.FMA[T]),
		"Neg":  unary(gpuarr.Neg[T]),
		"Conj": unary(gpuarr.Conj[T]),
		"Sum":  reduction(gpuarr.Sum[T]),
		"Prod": reduction(gpuarr.Prod[T]),
		"Mean": reduction(gpuarr.Mean[T]),
	}
}

// orderedRows are the functions of the types with an order.
func orderedRows[T gpuarr.Ordered]() rows {
	return rows{
		"Less":         compare(gpuarr.Less[T]),
		"LessEqual":    compare(gpuarr.LessEqual[T]),
		"Greater":      compare(gpuarr.Greater[T]),
		"GreaterEqual": compare(gpuarr.GreaterEqual[T]),
		"Min":          reduction(gpuarr.Min[T]),
		"Max":          reduction(gpuarr.Max[T]),
		"ArgMin":       reduction(gpuarr.ArgMin[T]),
		"ArgMax":       reduction(gpuarr.ArgMax[T]),
	}
}

// realRows are the functions of the real number types.
func realRows[T gpuarr.RealNumber]() rows {
	return rows{
		"Minimum":  binop(gpuarr.Minimum[T]),
		"Maximum":  binop(gpuarr.Maximum[T]),
		"Abs":      unary(gpuarr.Abs[T]),
		"Sign":     unary(gpuarr.Sign[T]),
		"Fmin":     binop(gpuarr.Fmin[T]),
		"Fmax":     binop(gpuarr.Fmax[T]),
		"FloorDiv": binop(gpuarr.FloorDiv[T]),
		"Mod":      binop(gpuarr.Mod[T]),
		"Rem":      binop(gpuarr.Rem[T]),
		"Clamp": func(c *call) (value, error) {
			x, err := operand[T](c.args[0])
			if err != nil {
				return nil, err
			}
			return exprVal[T]{gpuarr.Clamp(x, scalarAttr[T](c.n, "lo"), scalarAttr[T](c.n, "hi"))}, nil
		},
	}
}

// floatingRows are the functions of the floating-point types.
func floatingRows[T gpuarr.Floating]() rows {
	return rows{
		"Exp":     unary(gpuarr.Exp[T]),
		"Log":     unary(gpuarr.Log[T]),
		"Sqrt":    unary(gpuarr.Sqrt[T]),
		"Tanh":    unary(gpuarr.Tanh[T]),
		"Sigmoid": unary(gpuarr.Sigmoid[T]),
		"Pow":     binop(gpuarr.Pow[T]),

		"Sin":      unary(gpuarr.Sin[T]),
		"Cos":      unary(gpuarr.Cos[T]),
		"Tan":      unary(gpuarr.Tan[T]),
		"Asin":     unary(gpuarr.Asin[T]),
		"Acos":     unary(gpuarr.Acos[T]),
		"Atan":     unary(gpuarr.Atan[T]),
		"Sinh":     unary(gpuarr.Sinh[T]),
		"Cosh":     unary(gpuarr.Cosh[T]),
		"Asinh":    unary(gpuarr.Asinh[T]),
		"Acosh":    unary(gpuarr.Acosh[T]),
		"Atanh":    unary(gpuarr.Atanh[T]),
		"Exp2":     unary(gpuarr.Exp2[T]),
		"Expm1":    unary(gpuarr.Expm1[T]),
		"Log2":     unary(gpuarr.Log2[T]),
		"Log10":    unary(gpuarr.Log10[T]),
		"Log1p":    unary(gpuarr.Log1p[T]),
		"Cbrt":     unary(gpuarr.Cbrt[T]),
		"Rsqrt":    unary(gpuarr.Rsqrt[T]),
		"Erf":      unary(gpuarr.Erf[T]),
		"Erfc":     unary(gpuarr.Erfc[T]),
		"Floor":    unary(gpuarr.Floor[T]),
		"Ceil":     unary(gpuarr.Ceil[T]),
		"Trunc":    unary(gpuarr.Trunc[T]),
		"Round":    unary(gpuarr.Round[T]),
		"Atan2":    binop(gpuarr.Atan2[T]),
		"Hypot":    binop(gpuarr.Hypot[T]),
		"Copysign": binop(gpuarr.Copysign[T]),
		"IsNaN":    test(gpuarr.IsNaN[T]),
		"IsInf":    test(gpuarr.IsInf[T]),
		"IsFinite": test(gpuarr.IsFinite[T]),
	}
}

// floatRows are the functions of float32 and float64 only.
func floatRows[T gpuarr.Float]() rows {
	return rows{}
}

// matmulRows are Matmul's forms, of every inexact type: 2-D, 1-D
// operands, batches, a stepped operand.
func matmulRows[T gpuarr.Inexact]() rows {
	return rows{
		"Matmul":        matmulRow[T](),
		"Matmul1D":      matmulRow[T](),
		"MatmulBatched": matmulRow[T](),
		"MatmulStrided": matmulRow[T](),
	}
}

func matmulRow[T gpuarr.Inexact]() row {
	return func(c *call) (value, error) {
		a, err := arrayOf[T](c.args[0])
		if err != nil {
			return nil, err
		}
		b, err := arrayOf[T](c.args[1])
		if err != nil {
			return nil, err
		}
		m, err := gpuarr.Matmul(a, b)
		return keep(c, m, err)
	}
}

// complexRows are the functions of complex type C with parts of type R.
func complexRows[C gpuarr.ComplexFloat, R gpuarr.Float]() rows {
	return rows{
		"Real":  func(c *call) (value, error) { return partOf(c, gpuarr.Real[R, C]) },
		"Imag":  func(c *call) (value, error) { return partOf(c, gpuarr.Imag[R, C]) },
		"Abs":   func(c *call) (value, error) { return partOf(c, gpuarr.ComplexAbs[R, C]) },
		"Angle": func(c *call) (value, error) { return partOf(c, gpuarr.Angle[R, C]) },
	}
}

func partOf[R gpuarr.Float, C gpuarr.ComplexFloat](c *call, f func(gpuarr.Operand[C]) gpuarr.Expr[R]) (value, error) {
	z, err := operand[C](c.args[0])
	if err != nil {
		return nil, err
	}
	return exprVal[R]{f(z)}, nil
}

// integerRows are the functions of the integer element types only.
func integerRows[T integer]() rows {
	return rows{
		"BitAnd":     binop(gpuarr.BitAnd[T]),
		"BitOr":      binop(gpuarr.BitOr[T]),
		"BitXor":     binop(gpuarr.BitXor[T]),
		"BitNot":     unary(gpuarr.Invert[T]),
		"LeftShift":  binop(gpuarr.LeftShift[T]),
		"RightShift": binop(gpuarr.RightShift[T]),
		"Bincount": func(c *call) (value, error) {
			x, err := arrayOf[T](c.args[0])
			if err != nil {
				return nil, err
			}
			minLength := gpuarr.MinLength(c.n.int("minlength"))
			if len(c.args) == 1 {
				r, err := gpuarr.Bincount(x, minLength)
				return keep(c, r, err)
			}
			w, err := arrayOf[float64](c.args[1])
			if err != nil {
				return nil, err
			}
			r, err := gpuarr.BincountWeights(x, w, minLength)
			return keep(c, r, err)
		},
	}
}

// maskRows are the functions of masks (comparisons' results) and bools.
func maskRows() rows {
	return rows{
		"And": func(c *call) (value, error) {
			m, err := maskOf(c.args[0])
			if err != nil {
				return nil, err
			}
			o, err := maskOf(c.args[1])
			if err != nil {
				return nil, err
			}
			return maskVal{m.And(o)}, nil
		},
		"Or": func(c *call) (value, error) {
			m, err := maskOf(c.args[0])
			if err != nil {
				return nil, err
			}
			o, err := maskOf(c.args[1])
			if err != nil {
				return nil, err
			}
			return maskVal{m.Or(o)}, nil
		},
		"Not": func(c *call) (value, error) {
			m, err := maskOf(c.args[0])
			if err != nil {
				return nil, err
			}
			return maskVal{m.Not()}, nil
		},
	}
}

// castRows are the conversions from element type T to R.
func castRows[R, T gpuarr.Element]() rows {
	return rows{
		"Cast": func(c *call) (value, error) {
			x, err := operand[T](c.args[0])
			if err != nil {
				return nil, err
			}
			return exprVal[R]{gpuarr.Cast[R](x)}, nil
		},
	}
}

// sumAsRows are the reductions from element type T to a number type R.
func sumAsRows[R gpuarr.Number, T gpuarr.Element]() rows {
	return rows{
		"SumAs":  reduction(gpuarr.SumAs[R, T]),
		"ProdAs": reduction(gpuarr.ProdAs[R, T]),
	}
}

// meanAsRows are the means of element type T as a floating type R.
func meanAsRows[R gpuarr.Floating, T gpuarr.Ordered]() rows {
	return rows{
		"MeanAs": reduction(gpuarr.MeanAs[R, T]),
	}
}

// ------------------------------------------------------------ row helpers

// evalInto computes its second operand into its first, an array, and
// gives that array.
func evalInto[T gpuarr.Element](c *call) (value, error) {
	dst, err := arrayOf[T](c.args[0])
	if err != nil {
		return nil, err
	}
	e, err := operand[T](c.args[1])
	if err != nil {
		return nil, err
	}
	return arrayVal[T]{dst}, gpuarr.EvalInto(dst, e)
}

func unary[T gpuarr.Element](f func(gpuarr.Operand[T]) gpuarr.Expr[T]) row {
	return func(c *call) (value, error) {
		x, err := operand[T](c.args[0])
		if err != nil {
			return nil, err
		}
		return exprVal[T]{f(x)}, nil
	}
}

func binop[T gpuarr.Element](f func(x, y gpuarr.Operand[T]) gpuarr.Expr[T]) row {
	return func(c *call) (value, error) {
		x, err := operand[T](c.args[0])
		if err != nil {
			return nil, err
		}
		y, err := operand[T](c.args[1])
		if err != nil {
			return nil, err
		}
		return exprVal[T]{f(x, y)}, nil
	}
}

func ternary[T gpuarr.Element](f func(x, y, z gpuarr.Operand[T]) gpuarr.Expr[T]) row {
	return func(c *call) (value, error) {
		var ops [3]gpuarr.Operand[T]
		for i := range ops {
			x, err := operand[T](c.args[i])
			if err != nil {
				return nil, err
			}
			ops[i] = x
		}
		return exprVal[T]{f(ops[0], ops[1], ops[2])}, nil
	}
}

func compare[T gpuarr.Element](f func(x, y gpuarr.Operand[T]) gpuarr.Mask) row {
	return func(c *call) (value, error) {
		x, err := operand[T](c.args[0])
		if err != nil {
			return nil, err
		}
		y, err := operand[T](c.args[1])
		if err != nil {
			return nil, err
		}
		return maskVal{f(x, y)}, nil
	}
}

// test is a function from T to a mask (IsNaN, ...).
func test[T gpuarr.Element](f func(gpuarr.Operand[T]) gpuarr.Mask) row {
	return func(c *call) (value, error) {
		x, err := operand[T](c.args[0])
		if err != nil {
			return nil, err
		}
		return maskVal{f(x)}, nil
	}
}

// reduction runs a reduction with the node's axis and keepdims
// attributes as Axis and KeepDims options.
func reduction[T, R gpuarr.Element](f func(gpuarr.Operand[T], ...gpuarr.Option) (*gpuarr.Array[R], error)) row {
	return func(c *call) (value, error) {
		x, err := operand[T](c.args[0])
		if err != nil {
			return nil, err
		}
		r, err := f(x, c.reduceOptions()...)
		return keep(c, r, err)
	}
}

func view[T gpuarr.Element](f func(c *call, a *gpuarr.Array[T]) (*gpuarr.Array[T], error)) row {
	return func(c *call) (value, error) {
		a, err := arrayOf[T](c.args[0])
		if err != nil {
			return nil, err
		}
		v, err := f(c, a)
		return keep(c, v, err)
	}
}

func construct[T gpuarr.Element](f func(c *call) (*gpuarr.Array[T], error)) row {
	return func(c *call) (value, error) {
		a, err := f(c)
		return keep(c, a, err)
	}
}

// keep registers a new array with the case's scope.
func keep[T gpuarr.Element](c *call, a *gpuarr.Array[T], err error) (value, error) {
	if err != nil {
		return nil, err
	}
	c.sc.keep(a)
	return arrayVal[T]{a}, nil
}

func (c *call) reduceOptions() []gpuarr.Option {
	var opts []gpuarr.Option
	if c.n.has("axis") {
		for _, k := range c.n.ints("axis") {
			opts = append(opts, gpuarr.Axis(k))
		}
	}
	if c.n.bool("keepdims") {
		opts = append(opts, gpuarr.KeepDims())
	}
	return opts
}

// scalarAttr is a scalar attribute (base64 of one element of T).
func scalarAttr[T gpuarr.Element](n *node, key string) T {
	b := n.bytes(key)
	xs := fromBytes[T](b)
	if len(xs) != 1 || len(b) != len(asBytes(xs)) {
		panic(attrError{fmt.Sprintf("%s: attribute %q has %d bytes, not one %s", n.Op, key, len(b), typeName[T]())})
	}
	return xs[0]
}

func merge(rs ...rows) rows {
	out := rows{}
	for _, r := range rs {
		for k, v := range r {
			out[k] = v
		}
	}
	return out
}

// ------------------------------------------------------------- evaluation

// lookup finds a node's row; the reason says why there is none (the
// function or the type is not in gpuarr yet).
func lookup(n *node) (row, string) {
	et := types[n.T]
	if et == nil {
		return nil, "type " + n.T
	}
	if r, ok := et.rows[n.Op]; ok {
		return r, ""
	}
	if len(n.A) > 0 {
		if r, ok := et.from[n.A[0].R][n.Op]; ok {
			return r, ""
		}
		if n.A[0].R != n.T {
			return nil, fmt.Sprintf("%s from %s to %s", n.Op, n.A[0].R, n.T)
		}
	}
	return nil, n.Op + " on " + n.T
}

// missing is why a tree cannot run yet ("" when it can): the first node
// without a row, or an input of a type gpuarr does not store.
func missing(n *node) (op, reason string) {
	if n.Op == "in" {
		if et := types[n.T]; et == nil || et.upload == nil {
			return "type " + n.T, "arrays of " + n.T
		}
		return "", ""
	}
	for _, a := range n.A {
		if op, reason := missing(a); op != "" {
			return op, reason
		}
	}
	if r, reason := lookup(n); r == nil {
		if types[n.T] == nil {
			return "type " + n.T, reason
		}
		if len(n.A) > 0 && types[n.A[0].R] == nil {
			return "type " + n.A[0].R, reason
		}
		return n.Op, "no row in the interpreter table"
	}
	return "", ""
}

type interp struct {
	sc     *scope
	inputs []value
}

func (in *interp) eval(n *node) (v value, err error) {
	if n.Op == "in" {
		i := n.int("i")
		if i < 0 || i >= len(in.inputs) {
			return nil, fmt.Errorf("input %d of %d", i, len(in.inputs))
		}
		return in.inputs[i], nil
	}
	args := make([]value, len(n.A))
	for i, a := range n.A {
		if args[i], err = in.eval(a); err != nil {
			return nil, err
		}
	}
	r, reason := lookup(n)
	if r == nil {
		return nil, fmt.Errorf("no row: %s", reason)
	}
	return r(&call{n: n, args: args, sc: in.sc})
}
