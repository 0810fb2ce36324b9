package gpuarr_test

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// A repeated expression shape runs from its plan (no lowering): each run
// over other arrays, sizes and scalar values reads its own operands.
func TestPlanSameShapeOtherArrays(t *testing.T) {
	for round, n := range []int{1024, 7, 1, 4099, 1024, 3, 1024} {
		x := must(gpuarr.FromSlice(sequence(n, float32(round)), gpuarr.Shape{n}))
		y := must(gpuarr.FromSlice(sequence(n, float32(10*round)), gpuarr.Shape{n}))
		z := must(gpuarr.Zeros[float32](gpuarr.Shape{n}))
		k := float32(round + 2)
		require.NoError(t, gpuarr.EvalInto(z, gpuarr.FMA(x, gpuarr.Scalar(k), y)))
		got := values(t, z)
		for i := range got {
			require.Equal(t, (float32(round)+float32(i))*k+float32(10*round)+float32(i), got[i], "round %d (n=%d) element %d", round, n, i)
		}
		// In place: y = y*2 + x, the destination also an operand.
		require.NoError(t, gpuarr.EvalInto(y, gpuarr.Add(gpuarr.Mul(y, gpuarr.Scalar[float32](2)), x)))
		got = values(t, y)
		for i := range got {
			require.Equal(t, 2*(float32(10*round)+float32(i))+float32(round)+float32(i), got[i], "in place, round %d element %d", round, i)
		}
		_, _, _ = x.Release(), y.Release(), z.Release()
	}
}

// Expressions that share a plan's tree but not its program (another
// element type, a broadcast, a strided or misaligned operand, one array
// twice, a shared subtree, other constants) each compute their own
// result, run in turns so that every one follows the others' plans.
func TestPlanDoesNotReuseAcrossShapes(t *testing.T) {
	const r, c = 6, 64
	n := r * c
	x := must(gpuarr.FromSlice(sequence(n, 1), gpuarr.Shape{r, c}))
	y := must(gpuarr.FromSlice(sequence(n, 1000), gpuarr.Shape{r, c}))
	row := must(gpuarr.FromSlice(sequence(c, 50), gpuarr.Shape{c}))
	flat := must(gpuarr.FromSlice(sequence(n+1, 1), gpuarr.Shape{n + 1}))
	sq := must(gpuarr.FromSlice(sequence(c*c, 1), gpuarr.Shape{c, c}))
	x64 := must(gpuarr.FromSlice(seq64(n, 1), gpuarr.Shape{r, c}))
	y64 := must(gpuarr.FromSlice(seq64(n, 1000), gpuarr.Shape{r, c}))
	defer func() {
		for _, a := range []*gpuarr.Array[float32]{x, y, row, flat, sq} {
			_ = a.Release()
		}
		_, _ = x64.Release(), y64.Release()
	}()
	misaligned := must(flat.Slice(1, n+1))
	misaligned2 := must(misaligned.Reshape(gpuarr.Shape{r, c}))
	aligned2 := must(must(flat.Slice(0, n)).Reshape(gpuarr.Shape{r, c}))
	sqT := must(sq.Transpose())
	sqOut := must(gpuarr.Zeros[float32](gpuarr.Shape{c, c}))
	z := must(gpuarr.Zeros[float32](gpuarr.Shape{r, c}))
	z64 := must(gpuarr.Zeros[float64](gpuarr.Shape{r, c}))
	zi := must(gpuarr.Zeros[int32](gpuarr.Shape{r, c}))
	defer func() {
		_, _, _, _, _ = sqOut.Release(), z.Release(), z64.Release(), zi.Release(), misaligned.Release()
	}()

	xv, yv := sequence(n, 1), sequence(n, 1000)
	at := func(v []float32, i int) float64 { return float64(v[i]) }
	shared := gpuarr.Add(x, y)
	cases := []struct {
		name string
		run  func() error
		out  func() []float64
		want func(i int) float64
	}{
		{"x+y", func() error { return gpuarr.EvalInto(z, gpuarr.Add(x, y)) }, f32s(t, z),
			func(i int) float64 { return at(xv, i) + at(yv, i) }},
		{"x+x", func() error { return gpuarr.EvalInto(z, gpuarr.Add(x, x)) }, f32s(t, z),
			func(i int) float64 { return 2 * at(xv, i) }},
		{"y+x", func() error { return gpuarr.EvalInto(z, gpuarr.Add(y, x)) }, f32s(t, z),
			func(i int) float64 { return at(yv, i) + at(xv, i) }},
		{"x+row (broadcast)", func() error { return gpuarr.EvalInto(z, gpuarr.Add(x, row)) }, f32s(t, z),
			func(i int) float64 { return at(xv, i) + 50 + float64(i%c) }},
		{"misaligned view + y", func() error { return gpuarr.EvalInto(z, gpuarr.Add(misaligned2, y)) }, f32s(t, z),
			func(i int) float64 { return 2 + float64(i) + at(yv, i) }},
		{"aligned view + y", func() error { return gpuarr.EvalInto(z, gpuarr.Add(aligned2, y)) }, f32s(t, z),
			func(i int) float64 { return 1 + float64(i) + at(yv, i) }},
		{"sq + sqᵀ (strided)", func() error { return gpuarr.EvalInto(sqOut, gpuarr.Add(sq, sqT)) }, f32s(t, sqOut),
			func(i int) float64 { return float64(1+i) + float64(1+(i%c)*c+i/c) }},
		{"sq + sq", func() error { return gpuarr.EvalInto(sqOut, gpuarr.Add(sq, sq)) }, f32s(t, sqOut),
			func(i int) float64 { return 2 * float64(1+i) }},
		{"float64 x+y", func() error { return gpuarr.EvalInto(z64, gpuarr.Add(x64, y64)) }, f64s(t, z64),
			func(i int) float64 { return 1 + float64(i) + 1000 + float64(i) }},
		{"int32(x+y)", func() error { return gpuarr.EvalInto(zi, gpuarr.Cast[int32](gpuarr.Add(x, y))) }, i32s(t, zi),
			func(i int) float64 { return at(xv, i) + at(yv, i) }},
		{"t·t, t shared", func() error { return gpuarr.EvalInto(z, gpuarr.Mul(shared, shared)) }, f32s(t, z),
			func(i int) float64 { s := at(xv, i) + at(yv, i); return s * s }},
		{"(x+y)·(x+y), two trees", func() error { return gpuarr.EvalInto(z, gpuarr.Mul(gpuarr.Add(x, y), gpuarr.Add(x, y))) }, f32s(t, z),
			func(i int) float64 { s := at(xv, i) + at(yv, i); return s * s }},
		{"(x+y)·x", func() error { return gpuarr.EvalInto(z, gpuarr.Mul(gpuarr.Add(x, y), x)) }, f32s(t, z),
			func(i int) float64 { return (at(xv, i) + at(yv, i)) * at(xv, i) }},
		{"clamp(x, 3, 9)", func() error { return gpuarr.EvalInto(z, gpuarr.Clamp(x, 3, 9)) }, f32s(t, z),
			func(i int) float64 { return math.Min(math.Max(at(xv, i), 3), 9) }},
		{"clamp(x, 5, 100)", func() error { return gpuarr.EvalInto(z, gpuarr.Clamp(x, 5, 100)) }, f32s(t, z),
			func(i int) float64 { return math.Min(math.Max(at(xv, i), 5), 100) }},
		{"sigmoid(-x/1000)", func() error {
			return gpuarr.EvalInto(z, gpuarr.Sigmoid(gpuarr.Div(gpuarr.Neg(x), gpuarr.Scalar[float32](1000))))
		}, f32s(t, z), func(i int) float64 { return 1 / (1 + math.Exp(at(xv, i)/1000)) }},
		{"x+1000 (scalar)", func() error { return gpuarr.EvalInto(z, gpuarr.Add(x, gpuarr.Scalar[float32](1000))) }, f32s(t, z),
			func(i int) float64 { return at(xv, i) + 1000 }},
		{"x (a copy)", func() error { return gpuarr.EvalInto(z, x) }, f32s(t, z),
			func(i int) float64 { return at(xv, i) }},
	}
	for round := 0; round < 3; round++ {
		for _, tc := range cases {
			require.NoError(t, tc.run(), "%s, round %d", tc.name, round)
			got := tc.out()
			for i := range got {
				require.InDelta(t, tc.want(i), got[i], 1e-5*math.Max(1, math.Abs(tc.want(i))), "%s, round %d, element %d", tc.name, round, i)
			}
		}
	}
}

// Many goroutines evaluate one expression shape over arrays of their own
// (so one plan, many operand sets at once), some on the default stream,
// some on streams of their own: every result is its own goroutine's.
func TestPlanConcurrent(t *testing.T) {
	dev := testDevice(t)
	const workers, rounds, n = 8, 40, 1031
	streams := newStreams(t, dev, workers)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			var opts []gpuarr.Option
			if w%2 == 1 {
				opts = append(opts, gpuarr.On(streams[w]))
			}
			x, err := gpuarr.FromSlice(sequence(n, float32(w)), gpuarr.Shape{n}, opts...)
			if err != nil {
				errs <- err
				return
			}
			acc, err := gpuarr.Zeros[float32](gpuarr.Shape{n}, opts...)
			if err != nil {
				errs <- err
				return
			}
			defer func() { _, _ = x.Release(), acc.Release() }()
			for r := 0; r < rounds; r++ {
				if err := gpuarr.EvalInto(acc, gpuarr.FMA(x, gpuarr.Scalar(float32(r)), acc), opts...); err != nil {
					errs <- err
					return
				}
			}
			got, err := acc.ToSlice()
			if err != nil {
				errs <- err
				return
			}
			tri := float32(rounds * (rounds - 1) / 2)
			for i, v := range got {
				if want := (float32(w) + float32(i)) * tri; v != want {
					errs <- fmt.Errorf("worker %d element %d: got %v, want %v", w, i, v, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
}

// A planned expression still fails as the full lowering does: a released
// operand is named, and a destination of another shape is refused.
func TestPlanErrors(t *testing.T) {
	const n = 256
	x := must(gpuarr.Ones[float32](gpuarr.Shape{n}))
	y := must(gpuarr.Ones[float32](gpuarr.Shape{n}))
	z := must(gpuarr.Zeros[float32](gpuarr.Shape{n}))
	defer func() { _, _ = y.Release(), z.Release() }()
	require.NoError(t, gpuarr.EvalInto(z, gpuarr.Add(x, y)))
	require.NoError(t, gpuarr.EvalInto(z, gpuarr.Add(x, y)))
	require.NoError(t, x.Release())
	err := gpuarr.EvalInto(z, gpuarr.Add(x, y))
	require.ErrorIs(t, err, gpuarr.ErrReleased)
	assert.Contains(t, err.Error(), "EvalInto")
	small := must(gpuarr.Zeros[float32](gpuarr.Shape{n / 2}))
	defer small.Release()
	require.ErrorIs(t, gpuarr.EvalInto(small, gpuarr.Add(y, y)), gpuarr.ErrShape)
	assert.Equal(t, []float32{2, 2, 2}, values(t, z)[:3], "the failed evaluation wrote nothing")
}

func seq64(n int, start float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = start + float64(i)
	}
	return v
}

func f32s(t *testing.T, a *gpuarr.Array[float32]) func() []float64 {
	return func() []float64 { return widen(values(t, a)) }
}

func f64s(t *testing.T, a *gpuarr.Array[float64]) func() []float64 {
	return func() []float64 { return values(t, a) }
}

func i32s(t *testing.T, a *gpuarr.Array[int32]) func() []float64 {
	return func() []float64 { return widen(values(t, a)) }
}

func widen[T int32 | float32](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
