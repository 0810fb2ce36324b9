package gpuarr_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// The arrays here are large enough (thousands of elements) that a kernel
// writing in place would overwrite elements before other positions read
// them, on the host backend's chunks and on a GPU's blocks alike.

// countF32 is 0, 1, … n-1 as float32 (exact).
func countF32(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return v
}

// evalApart runs EvalInto(dst, e) and reports how many evaluations went
// through a temporary.
func evalApart[T gpuarr.Numeric](t *testing.T, dst *gpuarr.Array[T], e gpuarr.Operand[T]) uint64 {
	t.Helper()
	before := gpuarr.OverlapTemps()
	require.NoError(t, gpuarr.EvalInto(dst, e))
	_ = values(t, dst) // waits for the work
	return gpuarr.OverlapTemps() - before
}

// EvalInto(y, yᵀ + 1) is NumPy's np.add(y.T, 1, out=y): the transpose as
// it was before the evaluation.
func TestEvalIntoTransposeOfItself(t *testing.T) {
	const n = 70
	y := must(gpuarr.FromSlice(countF32(n*n), gpuarr.Shape{n, n}))
	defer y.Release()
	yt := must(y.Transpose())
	defer yt.Release()
	assert.Equal(t, uint64(1), evalApart(t, y, gpuarr.Add(yt, gpuarr.Scalar[float32](1))))
	got := values(t, y)
	for i := range n {
		for j := range n {
			require.Equal(t, float32(j*n+i+1), got[i*n+j], "y[%d, %d]", i, j)
		}
	}
}

// EvalInto(y, Flip(y)) reverses y, and so does writing y's reverse view
// from y.
func TestEvalIntoReverseOfItself(t *testing.T) {
	const n = 5000
	want := countF32(n)
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		want[i], want[j] = want[j], want[i]
	}
	y := must(gpuarr.FromSlice(countF32(n), gpuarr.Shape{n}))
	defer y.Release()
	r := must(y.Flip())
	defer r.Release()
	assert.Equal(t, uint64(1), evalApart(t, y, r))
	assert.Equal(t, want, values(t, y), "y = y[::-1]")
	assert.Equal(t, uint64(1), evalApart(t, r, gpuarr.Operand[float32](y)))
	assert.Equal(t, countF32(n), values(t, y), "y[::-1] = y")

	// Along one axis of a matrix: each row reversed.
	const m, k = 60, 80
	z := must(gpuarr.FromSlice(countF32(m*k), gpuarr.Shape{m, k}))
	defer z.Release()
	zf := must(z.Flip(1))
	defer zf.Release()
	assert.Equal(t, uint64(1), evalApart(t, z, gpuarr.Mul(zf, gpuarr.Scalar[float32](2))))
	got := values(t, z)
	for i := range m {
		for j := range k {
			require.Equal(t, float32(2*(i*k+k-1-j)), got[i*k+j], "z[%d, %d]", i, j)
		}
	}
}

// y[1:] = y[:-1] + 1 and y[:-1] = y[1:] + 1: contiguous views of one
// buffer one element apart (values that are no arithmetic sequence, which
// a forward in-place pass would reproduce).
func TestEvalIntoShiftedSliceOfItself(t *testing.T) {
	const n = 5000
	orig := make([]float32, n)
	for i := range orig {
		orig[i] = float32(i * 37 % 101)
	}
	y := must(gpuarr.FromSlice(orig, gpuarr.Shape{n}))
	defer y.Release()
	tail, head := must(y.Slice(1, n)), must(y.Slice(0, n-1))
	defer tail.Release()
	defer head.Release()
	one := gpuarr.Scalar[float32](1)

	assert.Equal(t, uint64(1), evalApart(t, tail, gpuarr.Add(head, one)))
	want := append([]float32{orig[0]}, orig[:n-1]...)
	for i := 1; i < n; i++ {
		want[i]++
	}
	assert.Equal(t, want, values(t, y), "y[1:] = y[:-1] + 1")

	require.NoError(t, y.CopyFromHost(orig))
	assert.Equal(t, uint64(1), evalApart(t, head, gpuarr.Add(tail, one)))
	want = append(append([]float32{}, orig[1:]...), orig[n-1])
	for i := 0; i < n-1; i++ {
		want[i]++
	}
	assert.Equal(t, want, values(t, y), "y[:-1] = y[1:] + 1")

	// Copy between the overlapping views is NumPy's copyto: src's values
	// from before the copy.
	require.NoError(t, y.CopyFromHost(orig))
	require.NoError(t, gpuarr.Copy(tail, head))
	assert.Equal(t, append([]float32{orig[0]}, orig[:n-1]...), values(t, y), "Copy(y[1:], y[:-1])")

	// Copy from a strided view of the destination's own memory.
	const m = 70
	z := must(gpuarr.FromSlice(countF32(m*m), gpuarr.Shape{m, m}))
	defer z.Release()
	zt := must(z.Transpose())
	defer zt.Release()
	require.NoError(t, gpuarr.Copy(z, zt))
	got := values(t, z)
	for i := range m {
		for j := range m {
			require.Equal(t, float32(j*m+i), got[i*m+j], "Copy(z, zᵀ): z[%d, %d]", i, j)
		}
	}
}

// A row of y broadcast over y: the row's first element is y's, so the
// operand starts where the destination does, but each element is read by
// every row's position: not an in-place read.
func TestEvalIntoBroadcastRowOfItself(t *testing.T) {
	const m, n = 60, 80
	for _, r := range []int{0, m - 1} {
		y := must(gpuarr.FromSlice(countF32(m*n), gpuarr.Shape{m, n}))
		row := must(y.Index(gpuarr.At(r)))
		assert.Equal(t, uint64(1), evalApart(t, y, gpuarr.Mul(row, gpuarr.Scalar[float32](2))), "row %d", r)
		got := values(t, y)
		for i := range m {
			for j := range n {
				require.Equal(t, float32(2*(r*n+j)), got[i*n+j], "row %d: y[%d, %d]", r, i, j)
			}
		}
		require.NoError(t, row.Release())
		require.NoError(t, y.Release())
	}
}

// Reading the destination element by element (y = y*2 + x, also through
// one strided view written and read) runs in place, with no temporary; so
// does reading another part of its buffer that does not meet it.
func TestEvalIntoAlignedRunsInPlace(t *testing.T) {
	const n = 70
	y := must(gpuarr.FromSlice(countF32(n*n), gpuarr.Shape{n, n}))
	defer y.Release()
	x := must(gpuarr.Full(gpuarr.Shape{n, n}, float32(3)))
	defer x.Release()
	assert.Zero(t, evalApart(t, y, gpuarr.Add(gpuarr.Mul(y, gpuarr.Scalar[float32](2)), x)))
	got := values(t, y)
	for i := range got {
		require.Equal(t, float32(2*i+3), got[i], "y[%d]", i)
	}

	yt := must(y.Transpose())
	defer yt.Release()
	assert.Zero(t, evalApart(t, yt, gpuarr.Sub(yt, gpuarr.Scalar[float32](3))))
	got = values(t, y)
	for i := range got {
		require.Equal(t, float32(2*i), got[i], "y[%d]", i)
	}

	flat := must(y.Reshape(gpuarr.Shape{-1}))
	defer flat.Release()
	lo, hi := must(flat.Slice(0, n*n/2)), must(flat.Slice(n*n/2, n*n))
	defer lo.Release()
	defer hi.Release()
	assert.Zero(t, evalApart(t, lo, gpuarr.Add(hi, gpuarr.Scalar[float32](1))))
	got = values(t, y)
	for i := range n * n / 2 {
		require.Equal(t, float32(2*(i+n*n/2)+1), got[i], "y[%d]", i)
	}
}
