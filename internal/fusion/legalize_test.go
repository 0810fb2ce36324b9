package fusion

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/dtype/half"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/fusion/hosteval"
	"github.com/gpuarr/gpuarr/internal/fusion/ptxgen"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// leafOf is a leaf over a fresh array of type t and shape sh.
func leafOf(t *testing.T, typ dtype.DType, sh ...int) *Node {
	t.Helper()
	dev := testutil.Device(t)
	h := new(lifetime.Handle)
	require.NoError(t, h.Make("test", dev.DefaultStream(), sh, typ.Elem()))
	t.Cleanup(func() { _ = h.Release() })
	return Leaf(h, typ)
}

// lowered builds root's program (a reduction's when reduction is set)
// and checks that both back ends take it.
func lowerChecked(t *testing.T, root *Node, reduction bool) *expr.Program {
	t.Helper()
	l, err := lowerTree(root, root.Shape(), 0, reduction, nil)
	require.NoError(t, err)
	p := cloneProgram(&l.prog)
	l.free()
	if reduction {
		p.Reduce = expr.Sum
		if vt := p.ValueType(); vt == dtype.Uint8 {
			p.Reduce = expr.Max
		}
	}
	require.NoError(t, p.Validate(), "%s", p)
	require.NoError(t, hosteval.Check(p), "%s", p)
	ptx, err := ptxgen.Generate(p, ".version 7.8\n.target sm_90\n.address_size 64\n")
	require.NoError(t, err, "%s", p)
	if dir := os.Getenv("FUSION_DUMP"); dir != "" {
		require.NoError(t, os.WriteFile(dir+"/"+p.EntryName()+".ptx", []byte(ptx), 0o644))
	}
	return p
}

// ops lists the program's instructions as "op.type".
func ops(p *expr.Program) string {
	var s []string
	for _, in := range p.Code {
		s = append(s, in.Op.String()+"."+in.T.String())
	}
	return strings.Join(s, " ")
}

func TestLegalizeHalves(t *testing.T) {
	for _, ht := range []dtype.DType{dtype.Float16, dtype.BFloat16} {
		x, y := leafOf(t, ht, 8), leafOf(t, ht, 8)
		// Each operation computes in float32 and rounds to the half at once.
		sum := Apply("Add", expr.OpAdd, ht, x, y)
		e := Apply("Mul", expr.OpMul, ht, sum, x)
		p := lowerChecked(t, e, false)
		h := ht.String()
		assert.Equal(t, "input."+h+" input."+h+" cast.float32 cast.float32 add.float32 cast."+h+" cast.float32 mul.float32 cast."+h, ops(p))

		// A copy stays in the half type (bits as they are).
		assert.Equal(t, "input."+h, ops(lowerChecked(t, x, false)))

		// A reduction reduces the float32 values.
		assert.Equal(t, "input."+h+" cast.float32", ops(lowerChecked(t, x, true)))

		// Where selects without rounding; a comparison compares the values.
		w := Apply("Where", expr.OpWhere, ht, Apply("Less", expr.OpLt, dtype.Bool, x, y), x, y)
		assert.Equal(t, "input."+h+" input."+h+" cast.float32 cast.float32 lt.bool where.float32 cast."+h, ops(lowerChecked(t, w, false)))

		// Scalars travel as float32, constants are rounded to the half.
		s := Apply("Add", expr.OpAdd, ht, x, ScalarOf(half.ToFloat16(0.1)))
		if ht == dtype.BFloat16 {
			s = Apply("Add", expr.OpAdd, ht, x, ScalarOf(half.ToBFloat16(0.1)))
		}
		p = lowerChecked(t, s, false)
		assert.Equal(t, []dtype.DType{dtype.Float32}, p.Scalars)
		c := lowerChecked(t, Apply("Add", expr.OpAdd, ht, x, Const(ht, 0.1)), false)
		want := half.ToFloat16(0.1).Float64()
		if ht == dtype.BFloat16 {
			want = half.ToBFloat16(0.1).Float64()
		}
		assert.Equal(t, "input."+h+" const.float32 cast.float32 add.float32 cast."+h, ops(c))
		assert.Equal(t, want, c.Code[1].Const, "the constant is the half nearest 0.1")

		// Casts round once: from float64 directly, from integers through
		// float64; from a half through float32.
		d := leafOf(t, dtype.Float64, 8)
		assert.Equal(t, "input.float64 cast."+h, ops(lowerChecked(t, Unary(expr.OpCast, d, ht), false)))
		i := leafOf(t, dtype.Int64, 8)
		assert.Equal(t, "input.int64 cast.float64 cast."+h, ops(lowerChecked(t, Unary(expr.OpCast, i, ht), false)))
		assert.Equal(t, "input."+h+" cast.float32 cast.int8", ops(lowerChecked(t, Unary(expr.OpCast, x, dtype.Int8), false)))
	}
}

func TestLegalizeComplex(t *testing.T) {
	x, y := leafOf(t, dtype.Complex64, 8), leafOf(t, dtype.Complex64, 8)
	// Parts once per input (when first needed), joined once for the store.
	p := lowerChecked(t, Apply("Add", expr.OpAdd, dtype.Complex64, x, y), false)
	assert.Equal(t, "input.complex64 input.complex64 real.float32 imag.float32 real.float32 imag.float32 add.float32 add.float32 complex.complex64", ops(p))
	p = lowerChecked(t, Apply("Mul", expr.OpMul, dtype.Complex64, x, x), false)
	assert.Equal(t, "input.complex64 real.float32 imag.float32 mul.float32 mul.float32 sub.float32 mul.float32 mul.float32 add.float32 complex.complex64", ops(p))
	lowerChecked(t, Apply("Div", expr.OpDiv, dtype.Complex64, x, y), false)
	lowerChecked(t, Apply("Div", expr.OpDiv, dtype.Complex128, leafOf(t, dtype.Complex128, 3), leafOf(t, dtype.Complex128, 3)), true)
	assert.Equal(t, "input.complex64", ops(lowerChecked(t, x, false)))
	assert.Equal(t, "input.complex64", ops(lowerChecked(t, x, true)))
	// A complex scalar is two parameters of its part type.
	s := lowerChecked(t, Apply("Sub", expr.OpSub, dtype.Complex64, x, ScalarOf(complex64(1+2i))), false)
	assert.Equal(t, []dtype.DType{dtype.Float32, dtype.Float32}, s.Scalars)
	// Comparisons and selections work on the parts.
	assert.Equal(t, "input.complex64 input.complex64 real.float32 imag.float32 real.float32 imag.float32 eq.bool eq.bool and.bool",
		ops(lowerChecked(t, Apply("Equal", expr.OpEq, dtype.Bool, x, y), false)))
	// Casts: between complex types each part, a real number with 0.
	assert.Equal(t, "input.complex64 real.float32 imag.float32 cast.float64 cast.float64 complex.complex128",
		ops(lowerChecked(t, Unary(expr.OpCast, x, dtype.Complex128), false)))
	assert.Equal(t, "input.int32 cast.float64 const.float64 complex.complex128",
		ops(lowerChecked(t, Unary(expr.OpCast, leafOf(t, dtype.Int32, 2), dtype.Complex128), false)))
	_, err := lowerTree(Unary(expr.OpCast, x, dtype.Float32), []int{8}, 0, false, nil)
	require.ErrorIs(t, err, arg.ErrArgument)
	assert.Contains(t, err.Error(), "no conversion of complex64 to float32: it would drop the imaginary part")
}

func TestLegalizeBools(t *testing.T) {
	b := leafOf(t, dtype.Bool, 4)
	assert.Equal(t, "input.bool", ops(lowerChecked(t, b, false)))
	assert.Equal(t, "input.bool cast.uint8", ops(lowerChecked(t, b, true)))
	assert.Equal(t, "input.bool input.bool cast.uint8 cast.uint8 lt.bool",
		ops(lowerChecked(t, Apply("Less", expr.OpLt, dtype.Bool, b, leafOf(t, dtype.Bool, 4)), false)))
}

// An expression mixing element types names both and the conversion to
// write: Go converts nothing implicitly, and neither does gpuarr.
func TestMixedTypes(t *testing.T) {
	f32, f64 := leafOf(t, dtype.Float32, 4), leafOf(t, dtype.Float64, 4)
	for _, c := range []struct {
		n    *Node
		want string
	}{
		{Apply("Add", expr.OpAdd, dtype.Float32, f32, f64), "gpuarr.Add: operands of types float32 and float64: Go converts no types implicitly; convert with gpuarr.Cast[float32]"},
		{Apply("Less", expr.OpLt, dtype.Bool, f64, f32), "gpuarr.Less: operands of types float64 and float32: Go converts no types implicitly; convert with gpuarr.Cast[float64]"},
		{Apply("Where", expr.OpWhere, dtype.Float64, Apply("Less", expr.OpLt, dtype.Bool, f32, f32), f64, f32),
			"gpuarr.Where: operands of types float64 and float32: Go converts no types implicitly; convert with gpuarr.Cast[float64]"},
		{Apply("Where", expr.OpWhere, dtype.Float32, f32, f32, f32), "gpuarr.Where: the condition has type float32, not bool"},
		{Unary(expr.OpExp, f32, dtype.Float64), "gpuarr.exp: operands of types float64 and float32"},
		{Apply("Complex", expr.OpComplex, dtype.Complex128, f32, f32), "gpuarr.Complex: parts of type float32 make complex64 values, not complex128"},
		{Apply("BitAnd", expr.OpBitAnd, dtype.Int32, leafOf(t, dtype.Int32, 4), leafOf(t, dtype.Int64, 4)),
			"gpuarr.BitAnd: operands of types int32 and int64: Go converts no types implicitly; convert with gpuarr.Cast[int32]"},
	} {
		require.Error(t, c.n.Err())
		assert.True(t, errors.Is(c.n.Err(), arg.ErrArgument), c.n.Err())
		assert.Contains(t, c.n.Err().Error(), c.want)
	}
	assert.NoError(t, Apply("Add", expr.OpAdd, dtype.Float32, f32, f32).Err())
}

// Issue 27's elementwise functions lower for every type their class
// takes, and both back ends (hosteval, ptxgen) take the programs: halves
// compute in float32 and round the result (a test's Bool result is not
// rounded); complex operands are refused.
func TestLegalizeMathOps(t *testing.T) {
	floats := []dtype.DType{dtype.Float32, dtype.Float64, dtype.Float16, dtype.BFloat16}
	ints := []dtype.DType{dtype.Int8, dtype.Int16, dtype.Int32, dtype.Int64, dtype.Uint8, dtype.Uint16, dtype.Uint32, dtype.Uint64}
	var unaryOps, binaryOps []expr.Op
	for op := expr.OpSin; op <= expr.OpIsFinite; op++ {
		unaryOps = append(unaryOps, op)
	}
	for op := expr.OpAtan2; op <= expr.OpShr; op++ {
		binaryOps = append(binaryOps, op)
	}
	typesOf := func(op expr.Op) []dtype.DType {
		switch op.Info().Class {
		case expr.Integer:
			return ints
		case expr.Numeric:
			return append(append([]dtype.DType{}, floats...), ints...)
		}
		return floats
	}
	for _, op := range append(unaryOps, binaryOps...) {
		for _, ty := range typesOf(op) {
			rt := ty
			if op.Info().Class == expr.Test {
				rt = dtype.Bool
			}
			x := leafOf(t, ty, 4)
			var n *Node
			if op.Arity() == 1 {
				n = Unary(op, x, rt)
			} else {
				n = Apply(op.String(), op, rt, x, leafOf(t, ty, 4))
			}
			require.NoError(t, n.Err(), "%s of %s", op, ty)
			p := lowerChecked(t, n, false)
			if expr.IsHalf(ty) {
				h := ty.String()
				want := "input." + h + " cast.float32 " + op.String() + "." + rt.String()
				if op.Arity() == 2 {
					want = "input." + h + " input." + h + " cast.float32 cast.float32 " + op.String() + ".float32 cast." + h
				} else if rt != dtype.Bool {
					want = "input." + h + " cast.float32 " + op.String() + ".float32 cast." + h
				}
				assert.Equal(t, want, ops(p), "%s of %s", op, ty)
			}
		}
		z := leafOf(t, dtype.Complex64, 4)
		var n *Node
		if op.Arity() == 1 {
			n = Unary(op, z, dtype.Complex64)
		} else {
			n = Apply(op.String(), op, dtype.Complex64, z, z)
		}
		if n.Err() == nil {
			_, err := lowerTree(n, n.Shape(), 0, false, nil)
			require.ErrorIs(t, err, arg.ErrArgument, "%s of complex64", op)
			assert.Contains(t, err.Error(), "does not apply to complex64")
		}
	}
}
