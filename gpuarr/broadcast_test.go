package gpuarr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// refIndex returns the row-major flat index into an array of shape in for
// output index idx (of shape out), with NumPy broadcasting.
func refIndex(in, out gpuarr.Shape, idx []int) int {
	flat, off := 0, len(out)-len(in)
	for d := range in {
		i := idx[off+d]
		if in[d] == 1 {
			i = 0
		}
		flat = flat*in[d] + i
	}
	return flat
}

func sequence(n int, start float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = start + float32(i)
	}
	return v
}

func TestBroadcastTable(t *testing.T) {
	cases := []struct {
		a, b, want gpuarr.Shape
	}{
		{gpuarr.Shape{5}, gpuarr.Shape{5}, gpuarr.Shape{5}},
		{gpuarr.Shape{5}, gpuarr.Shape{1}, gpuarr.Shape{5}},
		{gpuarr.Shape{}, gpuarr.Shape{4, 3}, gpuarr.Shape{4, 3}},
		{gpuarr.Shape{4, 3}, gpuarr.Shape{3}, gpuarr.Shape{4, 3}},
		{gpuarr.Shape{4, 3}, gpuarr.Shape{4, 1}, gpuarr.Shape{4, 3}},
		{gpuarr.Shape{4, 1}, gpuarr.Shape{1, 3}, gpuarr.Shape{4, 3}},
		{gpuarr.Shape{3, 1, 5}, gpuarr.Shape{4, 1}, gpuarr.Shape{3, 4, 5}},
		{gpuarr.Shape{2, 3, 4}, gpuarr.Shape{3, 4}, gpuarr.Shape{2, 3, 4}},
		{gpuarr.Shape{2, 3, 4}, gpuarr.Shape{2, 1, 4}, gpuarr.Shape{2, 3, 4}},
		{gpuarr.Shape{2, 1, 1}, gpuarr.Shape{1, 3, 1}, gpuarr.Shape{2, 3, 1}},
		{gpuarr.Shape{1, 1, 1, 7}, gpuarr.Shape{6, 1}, gpuarr.Shape{1, 1, 6, 7}},
		{gpuarr.Shape{8, 1, 6, 1}, gpuarr.Shape{7, 1, 5}, gpuarr.Shape{8, 7, 6, 5}},
		{gpuarr.Shape{0}, gpuarr.Shape{1}, gpuarr.Shape{0}},
		{gpuarr.Shape{3, 0}, gpuarr.Shape{3, 1}, gpuarr.Shape{3, 0}},
		{gpuarr.Shape{1}, gpuarr.Shape{2, 2, 2, 2, 2}, gpuarr.Shape{2, 2, 2, 2, 2}},
		{gpuarr.Shape{2, 1, 2, 1, 2, 1, 2}, gpuarr.Shape{1, 2, 1, 2, 1, 2, 1}, gpuarr.Shape{2, 2, 2, 2, 2, 2, 2}},
		// Incompatible.
		{gpuarr.Shape{3}, gpuarr.Shape{4}, nil},
		{gpuarr.Shape{4, 3}, gpuarr.Shape{4}, nil},
		{gpuarr.Shape{2, 3, 4}, gpuarr.Shape{3, 5}, nil},
		{gpuarr.Shape{0}, gpuarr.Shape{2}, nil},
		{gpuarr.Shape{2, 1}, gpuarr.Shape{3, 3}, nil},
		{gpuarr.Shape{5, 2}, gpuarr.Shape{2, 5}, nil},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v+%v", c.a, c.b), func(t *testing.T) {
			ha, hb := sequence(c.a.Len(), 1), sequence(c.b.Len(), 1000)
			a := must(gpuarr.FromSlice(ha, c.a))
			b := must(gpuarr.FromSlice(hb, c.b))
			defer a.Release()
			defer b.Release()
			e := gpuarr.Add(a, b)
			if c.want == nil {
				_, err := gpuarr.Eval(e)
				require.Error(t, err)
				assert.True(t, errors.Is(err, gpuarr.ErrShape), "%v", err)
				assert.Contains(t, err.Error(), c.a.String())
				assert.Contains(t, err.Error(), c.b.String())
				return
			}
			assert.Equal(t, c.want, e.Shape())
			out := must(gpuarr.Eval(e))
			defer out.Release()
			assert.Equal(t, c.want, out.Shape())
			got := values(t, out)
			idx := make([]int, len(c.want))
			for i := range got {
				rem := i
				for d := len(c.want) - 1; d >= 0; d-- {
					idx[d] = rem % c.want[d]
					rem /= c.want[d]
				}
				want := ha[refIndex(c.a, c.want, idx)] + hb[refIndex(c.b, c.want, idx)]
				if got[i] != want {
					t.Fatalf("element %d %v: got %v, want %v", i, idx, got[i], want)
				}
			}
		})
	}
}

func TestStridedInputs(t *testing.T) {
	h := sequence(4*5*6, 0)
	a := must(gpuarr.FromSlice(h, gpuarr.Shape{4, 5, 6}))
	defer a.Release()
	at := func(i, j, k int) float32 { return h[(i*5+j)*6+k] }

	// Transpose: [6 5 4].
	tr := must(a.Transpose())
	assert.Equal(t, gpuarr.Shape{6, 5, 4}, tr.Shape())
	assert.Equal(t, []int{1, 6, 30}, tr.Strides())
	got := values(t, tr) // a host read compacts the view
	for k := 0; k < 6; k++ {
		for j := 0; j < 5; j++ {
			for i := 0; i < 4; i++ {
				require.Equal(t, at(i, j, k), got[(k*5+j)*4+i])
			}
		}
	}
	// Permute as an expression operand, plus a broadcast.
	pm := must(a.Permute(1, 0, 2)) // [5 4 6]
	row := must(gpuarr.FromSlice(sequence(6, 100), gpuarr.Shape{6}))
	defer row.Release()
	sum := values(t, must(gpuarr.Eval(gpuarr.Add(pm, row))))
	for j := 0; j < 5; j++ {
		for i := 0; i < 4; i++ {
			for k := 0; k < 6; k++ {
				require.Equal(t, at(i, j, k)+100+float32(k), sum[(j*4+i)*6+k])
			}
		}
	}
	// Steps, forwards and backwards.
	st := must(a.Step(2, 1, 6, 2)) // k = 1, 3, 5
	assert.Equal(t, gpuarr.Shape{4, 5, 3}, st.Shape())
	back := must(a.Step(0, 3, -1, -1)) // i = 3, 2, 1, 0
	prod := values(t, must(gpuarr.Eval(gpuarr.Mul(back, gpuarr.Scalar[float32](2)))))
	for i := 0; i < 4; i++ {
		for j := 0; j < 5; j++ {
			for k := 0; k < 6; k++ {
				require.Equal(t, 2*at(3-i, j, k), prod[(i*5+j)*6+k])
			}
		}
	}
	stv := values(t, must(gpuarr.Eval(gpuarr.Add(st, st))))
	for i := 0; i < 4; i++ {
		for j := 0; j < 5; j++ {
			for k := 0; k < 3; k++ {
				require.Equal(t, 2*at(i, j, 1+2*k), stv[(i*5+j)*3+k])
			}
		}
	}
	// A Reshape no strides can express is a copy, which shares nothing.
	flat := must(tr.Reshape(gpuarr.Shape{120}))
	assert.Equal(t, got, values(t, flat))
	// EvalInto writes through a strided view (tr = tr + tr doubles a).
	require.NoError(t, gpuarr.EvalInto(tr, gpuarr.Add(tr, tr)))
	doubled := make([]float32, len(h))
	for i, v := range h {
		doubled[i] = 2 * v
	}
	assert.Equal(t, doubled, values(t, a))
	assert.Equal(t, got, values(t, flat), "Reshape's copy does not share a's memory")
	// Clone compacts.
	c := must(gpuarr.Clone(tr))
	for i, v := range values(t, c) {
		require.Equal(t, 2*got[i], v)
	}
	// A broadcast view cannot be written: its elements share memory.
	b := must(row.BroadcastTo(gpuarr.Shape{3, 6}))
	assert.ErrorIs(t, gpuarr.EvalInto(b, b), gpuarr.ErrArgument)
}

func TestEmptyArrays(t *testing.T) {
	for _, sh := range []gpuarr.Shape{{0}, {3, 0}, {0, 4}} {
		a := must(gpuarr.Zeros[float32](sh))
		out := must(gpuarr.Eval(gpuarr.Exp(gpuarr.Add(a, a))))
		assert.Equal(t, sh, out.Shape())
		assert.Empty(t, values(t, out))
		s := must(gpuarr.Sum[float32](a))
		v, err := s.Item()
		require.NoError(t, err)
		assert.Equal(t, float32(0), v)
		_, err = gpuarr.Max[float32](a)
		assert.ErrorIs(t, err, gpuarr.ErrShape)
	}
}

// kernelCacheRuns makes TestKernelCacheCompilesOnce build new kernels on
// every run (go test -count=N): the cache outlives a test.
var kernelCacheRuns int

func TestKernelCacheCompilesOnce(t *testing.T) {
	kernelCacheRuns++
	x := must(gpuarr.FromSlice(sequence(1000, 1), gpuarr.Shape{1000}))
	y := must(gpuarr.FromSlice(sequence(1000, 2), gpuarr.Shape{1000}))
	build := func(s float32, a, b *gpuarr.Array[float32]) gpuarr.Expr[float32] {
		// A shape no other test builds, and no earlier run of this one.
		e := gpuarr.Sqrt(gpuarr.Abs(gpuarr.FMA(a, gpuarr.Scalar(s), gpuarr.Maximum(b, gpuarr.Scalar[float32](-3.5)))))
		for range kernelCacheRuns {
			e = gpuarr.Sqrt(e)
		}
		return e
	}
	before := gpuarr.ReadKernelStats()
	out := must(gpuarr.Eval(build(2, x, y)))
	mid := gpuarr.ReadKernelStats()
	assert.Equal(t, uint64(1), mid.Compiles-before.Compiles, "first use compiles")
	for i := 0; i < 10; i++ {
		require.NoError(t, gpuarr.EvalInto(out, build(float32(i), y, x)))
	}
	after := gpuarr.ReadKernelStats()
	assert.Equal(t, uint64(0), after.Compiles-mid.Compiles, "same expression shape, other scalars and arrays: no compile")
	assert.GreaterOrEqual(t, after.Hits-mid.Hits, uint64(10))
	// A different element type is a different kernel.
	xf := must(gpuarr.Eval(gpuarr.Cast[float64](x)))
	last := gpuarr.ReadKernelStats()
	ef := gpuarr.Sqrt(gpuarr.Abs(gpuarr.FMA(xf, gpuarr.Scalar(2.0), gpuarr.Maximum(xf, gpuarr.Scalar(-3.5)))))
	for range kernelCacheRuns {
		ef = gpuarr.Sqrt(ef)
	}
	must(gpuarr.Eval(ef))
	assert.Equal(t, uint64(1), gpuarr.ReadKernelStats().Compiles-last.Compiles)
}

func TestExpressionErrors(t *testing.T) {
	a := must(gpuarr.FromSlice(sequence(6, 1), gpuarr.Shape{2, 3}))
	b := must(gpuarr.FromSlice(sequence(6, 1), gpuarr.Shape{2, 3}))
	e := gpuarr.Add(a, b)
	require.NoError(t, b.Release())
	_, err := gpuarr.Eval(e)
	assert.ErrorIs(t, err, gpuarr.ErrReleased, "an array released after building the expression")

	_, err = gpuarr.Eval(gpuarr.Add[float32](a, nil))
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = gpuarr.Eval(gpuarr.Expr[float32]{})
	assert.ErrorIs(t, err, gpuarr.ErrArgument)

	small := must(gpuarr.Zeros[float32](gpuarr.Shape{3}))
	err = gpuarr.EvalInto(small, gpuarr.Add(a, a))
	assert.ErrorIs(t, err, gpuarr.ErrShape)
	assert.Contains(t, err.Error(), "[2 3]")

	_, err = gpuarr.Sum[float32](a, gpuarr.Axis(2))
	assert.ErrorIs(t, err, gpuarr.ErrShape)
	assert.ErrorIs(t, gpuarr.NormalExpr[float32](nil, gpuarr.Shape{3}).Err(), gpuarr.ErrArgument)
}
