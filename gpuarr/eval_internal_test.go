package gpuarr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/internal/fusion"
)

// The signature tells apart every difference the program depends on, and
// nothing else: other arrays of the same shape, other sizes and other
// scalar values share it.
func TestPlanSignature(t *testing.T) {
	const n = 512
	mk := func(sh Shape) *Array[float32] {
		a, err := Zeros[float32](sh)
		require.NoError(t, err)
		t.Cleanup(func() { _ = a.Release() })
		return a
	}
	x, y, z, x2, y2 := mk(Shape{n}), mk(Shape{n}), mk(Shape{n}), mk(Shape{n}), mk(Shape{n})
	big, bigOut := mk(Shape{4 * n}), mk(Shape{4 * n})
	bigY := mk(Shape{4 * n})
	wide := mk(Shape{n + 1})
	off, err := wide.Slice(1, n+1)
	require.NoError(t, err)
	x64, err := Zeros[float64](Shape{n})
	require.NoError(t, err)
	defer x64.Release()
	z64, err := Zeros[float64](Shape{n})
	require.NoError(t, err)
	defer z64.Release()

	sig := fusion.PlanSignature
	base := sig(Add(x, y).n, &z.c)
	require.NotEmpty(t, base)
	assert.Equal(t, base, sig(Add(x2, y2).n, &z.c), "other arrays")
	assert.Equal(t, base, sig(Add(big, bigY).n, &bigOut.c), "another size")
	assert.Equal(t, base, sig(Add(y, z).n, &z.c), "the destination as an operand")
	scaled := sig(Mul(x, Scalar[float32](2)).n, &z.c)
	assert.Equal(t, scaled, sig(Mul(y, Scalar[float32](-7)).n, &z.c), "another scalar value")

	for name, other := range map[string]string{
		"same array twice": sig(Add(x, x).n, &z.c),
		"another op":       sig(Sub(x, y).n, &z.c),
		"misaligned":       sig(Add(off, y).n, &z.c),
		"scalar operand":   scaled,
		"float64":          sig(Add(x64, x64).n, &z64.c),
		"three operands":   sig(FMA(x, y, x2).n, &z.c),
		"a copy":           sig(x.operand().n, &z.c),
		"constant 1":       sig(Sigmoid(x).n, &z.c),
	} {
		assert.NotEqual(t, base, other, name)
		assert.NotEmpty(t, other, name)
	}
	s := Add(x, y)
	assert.NotEqual(t, sig(Mul(s, s).n, &z.c), sig(Mul(Add(x, y), Add(x, y)).n, &z.c), "a shared subtree is computed once")
	assert.Equal(t, sig(Clamp(x, 1, 2).n, &z.c), sig(Minimum(Maximum(x, Scalar[float32](1)), Scalar[float32](2)).n, &z.c),
		"Clamp's bounds are parameters")

	// What a plan cannot run: the full lowering takes it.
	row := mk(Shape{1})
	tr, err := mk(Shape{16, 32}).Transpose()
	require.NoError(t, err)
	trOut := mk(Shape{32, 16})
	empty := mk(Shape{0})
	assert.Empty(t, sig(Add(x, row).n, &z.c), "broadcast")
	assert.Empty(t, sig(Add(tr, tr).n, &trOut.c), "strided")
	assert.Empty(t, sig(Add(empty, empty).n, &empty.c), "empty")
	assert.Empty(t, sig(Add(x, Expr[float32]{fusion.Failed(ErrShape)}).n, &z.c), "an error")

	// The second evaluation of a shape finds its plan.
	require.NoError(t, EvalInto(z, Add(x, y)))
	assert.True(t, fusion.PlanCached(z.Device(), base))
}
