package fusion

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/dtype/half"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Legalization: the lowering writes operations on the storage types
// (expr.Storage) as operations the back ends compute with.
//
//   - A half (Float16, BFloat16) computes in float32: its value is a
//     float32 instruction that holds it exactly. An operation whose result
//     is a half runs in float32 and is rounded to the half (OpCast to it)
//     at once, as NumPy and PyTorch round each operation; Where selects
//     without rounding. Inputs, scalars and constants of a half type
//     become float32 values; a cast to a half rounds once, from float32
//     or float64 (integers and Bool go through float64).
//   - A complex number computes as its two parts, of its part type:
//     inputs are split with OpReal and OpImag, values joined with
//     OpComplex where they are stored or reduced. Add, Sub, Neg, FMA and
//     Where act on each part; Mul and Div are NumPy's formulas
//     (complexMul, complexDiv); Eq and Ne compare both parts.
//   - Bool values are ordered as the uint8 values 0 and 1 (Lt, Le, Gt,
//     Ge), and reduced as those (Min, Max and the Arg reductions).
//
// A node's val says where its value is; the forms not yet written are
// written when asked for (num, parts, whole), once.

// val locates a node's value: v is the instruction computing it (for a
// half, the float32 instruction holding it; for a complex number, its
// real part), im the imaginary part of a complex number, raw the
// instruction holding a half or a complex number in its own type. -1:
// not written yet.
type val struct{ v, im, raw int32 }

// plain is the val of an instruction that is the value itself.
func plain(i int32) val { return val{i, -1, -1} }

// stored is the val of an instruction yielding a value of type t as it
// is stored.
func (l *lowered) stored(t dtype.DType, i int32) val {
	if expr.Storage(t) {
		return val{-1, -1, i}
	}
	return plain(i)
}

func (l *lowered) op1(op expr.Op, t dtype.DType, a int32) int32 {
	return l.emit(expr.Instr{Op: op, T: t, A: a, B: -1, C: -1})
}

func (l *lowered) op2(op expr.Op, t dtype.DType, a, b int32) int32 {
	return l.emit(expr.Instr{Op: op, T: t, A: a, B: b, C: -1})
}

func (l *lowered) op3(op expr.Op, t dtype.DType, a, b, c int32) int32 {
	return l.emit(expr.Instr{Op: op, T: t, A: a, B: b, C: c})
}

// num is the instruction computing memo entry k's value: for a half its
// float32 value (written from the half when needed).
func (l *lowered) num(k int) int32 {
	m := &l.memo[k]
	if m.v < 0 && expr.IsHalf(m.n.t) {
		m.v = l.op1(expr.OpCast, dtype.Float32, m.raw)
	}
	return l.memo[k].v
}

// parts are the real and imaginary parts of complex entry k.
func (l *lowered) parts(k int) (re, im int32) {
	m := &l.memo[k]
	if m.v < 0 {
		pt := expr.PartType(m.n.t)
		m.v = l.op1(expr.OpReal, pt, m.raw)
		m = &l.memo[k]
		m.im = l.op1(expr.OpImag, pt, m.raw)
	}
	m = &l.memo[k]
	return m.v, m.im
}

// whole is entry k's value in its own type: a half rounded from its
// float32 value, a complex number joined from its parts.
func (l *lowered) whole(k int) int32 {
	m := &l.memo[k]
	if m.raw >= 0 || !expr.Storage(m.n.t) {
		if m.raw >= 0 {
			return m.raw
		}
		return m.v
	}
	t := m.n.t
	if expr.IsHalf(t) {
		m.raw = l.op1(expr.OpCast, t, m.v)
	} else {
		m.raw = l.op2(expr.OpComplex, t, m.v, m.im)
	}
	return l.memo[k].raw
}

// scalar is a scalar operand: its kernel parameters (a half as float32,
// a complex number as two parameters of its part type; see scalarParams).
func (l *lowered) scalar(n *Node) val {
	ts, bits, k := scalarParams(n)
	var v [2]int32
	for j := range k {
		v[j] = l.emitLeaf(expr.OpScalar, ts[j], len(l.scalars))
		l.scalars = append(l.scalars, bits[j])
		l.prog.Scalars = append(l.prog.Scalars, ts[j])
	}
	if k == 2 {
		return val{v[0], v[1], -1}
	}
	return plain(v[0])
}

// scalarParams are the kernel parameters of scalar node n: their types
// and bits, and how many there are (1, or 2 for a complex number).
func scalarParams(n *Node) (ts [2]dtype.DType, bits [2]uint64, k int) {
	switch {
	case expr.IsHalf(n.t):
		return [2]dtype.DType{dtype.Float32}, [2]uint64{n.bits}, 1
	case n.t.IsComplex():
		pt := expr.PartType(n.t)
		return [2]dtype.DType{pt, pt}, [2]uint64{n.bits, n.im}, 2
	}
	return [2]dtype.DType{n.t}, [2]uint64{n.bits}, 1
}

// constant is a constant operand: a half's value rounded to the half and
// held in float32, a complex number's parts.
func (l *lowered) constant(n *Node) val {
	c := func(t dtype.DType, x float64) int32 {
		i := l.emitLeaf(expr.OpConst, t, 0)
		l.prog.Code[i].Const = x
		return i
	}
	switch {
	case n.t == dtype.Float16:
		return plain(c(dtype.Float32, half.ToFloat16(n.value).Float64()))
	case n.t == dtype.BFloat16:
		return plain(c(dtype.Float32, half.ToBFloat16(n.value).Float64()))
	case n.t.IsComplex():
		pt := expr.PartType(n.t)
		return val{c(pt, n.value), c(pt, n.ivalue), -1}
	}
	return plain(c(n.t, n.value))
}

// operation writes node n (not a leaf) over its operands' entries args.
func (l *lowered) operation(n *Node, args [3]int) (val, error) {
	ar := n.op.Arity()
	switch n.op {
	case expr.OpReal, expr.OpImag:
		if !l.memo[args[0]].n.t.IsComplex() {
			return val{}, fmt.Errorf("%s of a %s value (it takes a complex one): %w", n.op, l.memo[args[0]].n.t, arg.ErrArgument)
		}
		re, im := l.parts(args[0])
		if n.op == expr.OpImag {
			re = im
		}
		return plain(re), nil
	case expr.OpComplex:
		return val{l.num(args[0]), l.num(args[1]), -1}, nil
	case expr.OpCast:
		return l.cast(args[0], n.t)
	}
	complexOp := n.t.IsComplex()
	halfOp := expr.IsHalf(n.t)
	for k := range ar {
		t := l.memo[args[k]].n.t
		complexOp = complexOp || t.IsComplex()
		halfOp = halfOp || expr.IsHalf(t)
	}
	if complexOp {
		return l.complexOp(n, args)
	}
	if n.op.IsCompare() && n.op != expr.OpEq && n.op != expr.OpNe && l.memo[args[0]].n.t == dtype.Bool {
		// Bools order as 0 < 1 (NumPy's order): compared as uint8.
		a, b := l.op1(expr.OpCast, dtype.Uint8, l.num(args[0])), l.op1(expr.OpCast, dtype.Uint8, l.num(args[1]))
		return plain(l.op2(n.op, dtype.Bool, a, b)), nil
	}
	t := n.t
	if halfOp && expr.IsHalf(t) {
		t = dtype.Float32
	}
	in := expr.Instr{Op: n.op, T: t, A: -1, B: -1, C: -1}
	if ar > 0 {
		in.A = l.num(args[0])
	}
	if ar > 1 {
		in.B = l.num(args[1])
	}
	if ar > 2 {
		in.C = l.num(args[2])
	}
	i := l.emit(in)
	if !expr.IsHalf(n.t) {
		return plain(i), nil
	}
	if n.op == expr.OpWhere {
		return plain(i), nil // a selection of half values is one
	}
	return val{-1, -1, l.op1(expr.OpCast, n.t, i)}, nil
}

// cast converts entry k to type to.
func (l *lowered) cast(k int, to dtype.DType) (val, error) {
	from := l.memo[k].n.t
	switch {
	case from == to:
		return l.memo[k].val, nil
	case from.IsComplex() && to.IsComplex():
		re, im := l.parts(k)
		pt := expr.PartType(to)
		if pt != expr.PartType(from) {
			re, im = l.op1(expr.OpCast, pt, re), l.op1(expr.OpCast, pt, im)
		}
		return val{re, im, -1}, nil
	case from.IsComplex():
		return val{}, fmt.Errorf("no conversion of %s to %s: it would drop the imaginary part (take the real part first): %w", from, to, arg.ErrArgument)
	case to.IsComplex():
		pt := expr.PartType(to)
		re, err := l.cast(k, pt)
		if err != nil {
			return val{}, err
		}
		zero := l.emitLeaf(expr.OpConst, pt, 0)
		return val{re.v, zero, -1}, nil
	case expr.IsHalf(to):
		src := l.num(k)
		if st := l.prog.Code[src].T; st != dtype.Float32 && st != dtype.Float64 {
			src = l.op1(expr.OpCast, dtype.Float64, src)
		}
		return val{-1, -1, l.op1(expr.OpCast, to, src)}, nil
	}
	src := l.num(k)
	if l.prog.Code[src].T == to {
		return plain(src), nil
	}
	return plain(l.op1(expr.OpCast, to, src)), nil
}

// complexOp writes n, an operation with complex operands or result, on
// the parts.
func (l *lowered) complexOp(n *Node, args [3]int) (val, error) {
	ct := n.t
	if !ct.IsComplex() {
		ct = l.memo[args[0]].n.t
		if n.op == expr.OpWhere {
			ct = l.memo[args[1]].n.t
		}
	}
	pt := expr.PartType(ct)
	switch n.op {
	case expr.OpNeg:
		re, im := l.parts(args[0])
		return val{l.op1(expr.OpNeg, pt, re), l.op1(expr.OpNeg, pt, im), -1}, nil
	case expr.OpAdd, expr.OpSub:
		ar, ai := l.parts(args[0])
		br, bi := l.parts(args[1])
		return val{l.op2(n.op, pt, ar, br), l.op2(n.op, pt, ai, bi), -1}, nil
	case expr.OpMul:
		ar, ai := l.parts(args[0])
		br, bi := l.parts(args[1])
		re, im := l.complexMul(pt, ar, ai, br, bi)
		return val{re, im, -1}, nil
	case expr.OpDiv:
		ar, ai := l.parts(args[0])
		br, bi := l.parts(args[1])
		re, im := l.complexDiv(pt, ar, ai, br, bi)
		return val{re, im, -1}, nil
	case expr.OpFMA:
		ar, ai := l.parts(args[0])
		br, bi := l.parts(args[1])
		cr, ci := l.parts(args[2])
		re, im := l.complexMul(pt, ar, ai, br, bi)
		return val{l.op2(expr.OpAdd, pt, re, cr), l.op2(expr.OpAdd, pt, im, ci), -1}, nil
	case expr.OpWhere:
		c := l.num(args[0])
		br, bi := l.parts(args[1])
		cr, ci := l.parts(args[2])
		return val{l.op3(expr.OpWhere, pt, c, br, cr), l.op3(expr.OpWhere, pt, c, bi, ci), -1}, nil
	case expr.OpEq, expr.OpNe:
		ar, ai := l.parts(args[0])
		br, bi := l.parts(args[1])
		join := expr.OpAnd
		if n.op == expr.OpNe {
			join = expr.OpOr
		}
		return plain(l.op2(join, dtype.Bool, l.op2(n.op, dtype.Bool, ar, br), l.op2(n.op, dtype.Bool, ai, bi))), nil
	}
	return val{}, fmt.Errorf("%s does not apply to %s values: %w", n.op, ct, arg.ErrArgument)
}

// complexMul is (ar + ai·i)(br + bi·i) as NumPy computes it: ar·br −
// ai·bi and ar·bi + ai·br, each operation rounded.
func (l *lowered) complexMul(pt dtype.DType, ar, ai, br, bi int32) (re, im int32) {
	re = l.op2(expr.OpSub, pt, l.op2(expr.OpMul, pt, ar, br), l.op2(expr.OpMul, pt, ai, bi))
	im = l.op2(expr.OpAdd, pt, l.op2(expr.OpMul, pt, ar, bi), l.op2(expr.OpMul, pt, ai, br))
	return re, im
}

// complexDiv is (ar + ai·i)/(br + bi·i) as NumPy computes it (Smith's
// method, scaling by the larger part of the divisor): with |br| ≥ |bi|,
// rat = bi/br, scl = 1/(br + bi·rat), the quotient is ((ar + ai·rat)·scl,
// (ai − ar·rat)·scl); otherwise rat = br/bi, scl = 1/(bi + br·rat) and
// ((ar·rat + ai)·scl, (ai·rat − ar)·scl); a zero divisor gives
// (ar/|br|, ai/|br|), infinities or NaNs. Both branches are computed and
// one selected.
func (l *lowered) complexDiv(pt dtype.DType, ar, ai, br, bi int32) (re, im int32) {
	op2 := func(op expr.Op, a, b int32) int32 { return l.op2(op, pt, a, b) }
	zero := l.emitLeaf(expr.OpConst, pt, 0)
	one := l.emitLeaf(expr.OpConst, pt, 0)
	l.prog.Code[one].Const = 1
	abr, abi := l.op1(expr.OpAbs, pt, br), l.op1(expr.OpAbs, pt, bi)
	first := l.op2(expr.OpGe, dtype.Bool, abr, abi)
	byZero := l.op2(expr.OpAnd, dtype.Bool, l.op2(expr.OpEq, dtype.Bool, abr, zero), l.op2(expr.OpEq, dtype.Bool, abi, zero))

	rat1 := op2(expr.OpDiv, bi, br)
	scl1 := op2(expr.OpDiv, one, op2(expr.OpAdd, br, op2(expr.OpMul, bi, rat1)))
	re1 := op2(expr.OpMul, op2(expr.OpAdd, ar, op2(expr.OpMul, ai, rat1)), scl1)
	im1 := op2(expr.OpMul, op2(expr.OpSub, ai, op2(expr.OpMul, ar, rat1)), scl1)
	re0, im0 := op2(expr.OpDiv, ar, abr), op2(expr.OpDiv, ai, abr)

	rat2 := op2(expr.OpDiv, br, bi)
	scl2 := op2(expr.OpDiv, one, op2(expr.OpAdd, bi, op2(expr.OpMul, br, rat2)))
	re2 := op2(expr.OpMul, op2(expr.OpAdd, op2(expr.OpMul, ar, rat2), ai), scl2)
	im2 := op2(expr.OpMul, op2(expr.OpSub, op2(expr.OpMul, ai, rat2), ar), scl2)

	sel := func(c, a, b int32) int32 { return l.op3(expr.OpWhere, pt, c, a, b) }
	re = sel(first, sel(byZero, re0, re1), re2)
	im = sel(first, sel(byZero, im0, im1), im2)
	return re, im
}
