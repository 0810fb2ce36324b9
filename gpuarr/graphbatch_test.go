package gpuarr_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// seedBatched is the seed program as one Batched capture records it: on
// whole arrays of the largest batch, with a copy of the result into a
// second output so that a copy node is resized too.
func seedBatched(a, b, out, out2 *gpuarr.Array[float32], s *device.Stream) error {
	sq, err := gpuarr.Eval(gpuarr.Mul(a, a), gpuarr.On(s))
	if err != nil {
		return err
	}
	sum, err := gpuarr.Eval(gpuarr.Add(sq, gpuarr.Mul(b, gpuarr.Scalar[float32](2))), gpuarr.On(s))
	if err != nil {
		return err
	}
	if err := sq.Release(); err != nil {
		return err
	}
	if err := gpuarr.EvalInto(out, sum, gpuarr.On(s)); err != nil {
		return err
	}
	if err := gpuarr.Copy(out2, sum, gpuarr.On(s)); err != nil {
		return err
	}
	return sum.Release()
}

// One graph captured at the largest batch, replayed for every smaller
// size in a shuffled order, gives what a graph captured at that size
// gives, writes only the first n rows, and costs one graph's memory.
func TestBatchedGraphMatchesAGraphPerSize(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	const maxRows, dim = 12, 33 // odd rows: vectorized kernels run their tails
	rng := rand.New(rand.NewPCG(5, 6))
	sh := gpuarr.Shape{maxRows, dim}
	a := must(gpuarr.Zeros[float32](sh, gpuarr.On(s)))
	b := must(gpuarr.Zeros[float32](sh, gpuarr.On(s)))
	out := must(gpuarr.Zeros[float32](sh, gpuarr.On(s)))
	out2 := must(gpuarr.Zeros[float32](sh, gpuarr.On(s)))
	perSize := must(gpuarr.Zeros[float32](sh, gpuarr.On(s)))
	for _, x := range []*gpuarr.Array[float32]{a, b, out, out2, perSize} {
		defer x.Release()
	}
	require.NoError(t, seedRows(t, a, b, perSize, maxRows, s, nil)) // compiles the kernels
	baseline := settledAllocated(t, dev)

	g, err := gpuarr.Capture(s, func() error { return seedBatched(a, b, out, out2, s) }, gpuarr.Batched(maxRows))
	require.NoError(t, err)
	assert.Equal(t, maxRows, g.MaxBatch())
	reserved := g.Pool().Stats().ReservedBytes.Current
	assert.Positive(t, reserved)

	// Graphs captured one per size, for comparison.
	pool := must(gpuarr.NewGraphPool(dev))
	each := make([]*gpuarr.Graph, maxRows+1)
	for bs := 1; bs <= maxRows; bs++ {
		each[bs] = must(gpuarr.Capture(s, func() error { return seedRows(t, a, b, perSize, bs, s, nil) }, gpuarr.WithPool(pool)))
	}

	sentinel := slices.Repeat([]float32{-7}, maxRows*dim)
	sizes := append(rng.Perm(maxRows), rng.Perm(maxRows)...)
	sizes = append(sizes, maxRows-1, maxRows-1, 0) // a repeated size, then the largest
	for _, i := range sizes {
		bs := i + 1
		av, bv := randomRows(rng, maxRows*dim), randomRows(rng, maxRows*dim)
		require.NoError(t, a.CopyFromHost(av, gpuarr.On(s)))
		require.NoError(t, b.CopyFromHost(bv, gpuarr.On(s)))
		require.NoError(t, out.CopyFromHost(sentinel, gpuarr.On(s)))
		require.NoError(t, out2.CopyFromHost(sentinel, gpuarr.On(s)))
		require.NoError(t, g.ReplayBatch(bs, gpuarr.On(s)))
		require.NoError(t, each[bs].Replay(gpuarr.On(s)))

		want := seedWant(av, bv, bs, dim)
		got, got2, ref := values(t, out), values(t, out2), values(t, perSize)
		require.Equal(t, ref[:bs*dim], got[:bs*dim], "batch size %d: one graph against a graph captured at that size", bs)
		require.Equal(t, want, got[:bs*dim], "batch size %d", bs)
		require.Equal(t, want, got2[:bs*dim], "batch size %d: the resized copy", bs)
		require.Equal(t, sentinel[bs*dim:], got[bs*dim:], "batch size %d: rows past the batch untouched", bs)
		require.Equal(t, sentinel[bs*dim:], got2[bs*dim:], "batch size %d: rows past the resized copy untouched", bs)
	}
	// Replay is the largest batch.
	av, bv := randomRows(rng, maxRows*dim), randomRows(rng, maxRows*dim)
	require.NoError(t, a.CopyFromHost(av, gpuarr.On(s)))
	require.NoError(t, b.CopyFromHost(bv, gpuarr.On(s)))
	require.NoError(t, g.ReplayBatch(3, gpuarr.On(s)))
	require.NoError(t, g.Replay(gpuarr.On(s)))
	assert.Equal(t, seedWant(av, bv, maxRows, dim), values(t, out))

	assert.Equal(t, reserved, g.Pool().Stats().ReservedBytes.Current, "every size replays in the one graph's memory")
	assert.LessOrEqual(t, reserved, pool.Stats().ReservedBytes.Current, "one graph costs no more than a graph per size")
	for _, e := range each[1:] {
		require.NoError(t, e.Close())
	}
	require.NoError(t, g.Close())
	assert.Zero(t, g.Pool().Stats().ReservedBytes.Current)
	// At most the baseline: garbage of earlier tests may be freed meanwhile.
	assert.LessOrEqual(t, allocated(t, dev), baseline, "nothing leaked")
}

// Operations on arrays that are not batched stay as captured: a weight
// updated inside the graph is updated in full at every batch size.
func TestBatchedGraphKeepsBatchIndependentWork(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	const maxRows, dim = 4, 8
	x := must(gpuarr.FromSlice(slices.Repeat([]float32{1}, maxRows*dim), gpuarr.Shape{maxRows, dim}, gpuarr.On(s)))
	w := must(gpuarr.Zeros[float32](gpuarr.Shape{dim}, gpuarr.On(s)))
	defer x.Release()
	defer w.Release()
	g, err := gpuarr.Capture(s, func() error {
		if err := gpuarr.EvalInto(w, gpuarr.Add(w, gpuarr.Scalar[float32](1)), gpuarr.On(s)); err != nil {
			return err
		}
		return gpuarr.EvalInto(x, gpuarr.Mul(x, gpuarr.Scalar[float32](2)), gpuarr.On(s))
	}, gpuarr.Batched(maxRows))
	require.NoError(t, err)
	defer g.Close()
	require.NoError(t, g.ReplayBatch(1, gpuarr.On(s)))
	require.NoError(t, g.ReplayBatch(2, gpuarr.On(s)))
	assert.Equal(t, slices.Repeat([]float32{2}, dim), values(t, w), "the weight's update ran in full twice")
	got := values(t, x)
	assert.Equal(t, slices.Repeat([]float32{4}, dim), got[:dim], "row 0: both replays")
	assert.Equal(t, slices.Repeat([]float32{2}, dim), got[dim:2*dim], "row 1: the batch of 2 only")
	assert.Equal(t, slices.Repeat([]float32{1}, 2*dim), got[2*dim:], "rows 2, 3: untouched")
}

// Fills of batched arrays inside the capture follow the batch size too:
// byte and 32-bit memsets (Full of a value whose bytes repeat) and the
// fill kernel (Full of a value whose bytes do not). The filled arrays are
// kept past the capture, so the test sees which rows a replay wrote.
func TestBatchedGraphResizesFills(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	const maxRows, dim = 6, 5
	sh := gpuarr.Shape{maxRows, dim}
	var f8 *gpuarr.Array[uint8]
	var f32 *gpuarr.Array[float32]
	var f64 *gpuarr.Array[float64]
	fill := func() (err error) {
		if f8, err = gpuarr.Full(sh, uint8(7), gpuarr.On(s)); err != nil { // a byte memset
			return err
		}
		if f32, err = gpuarr.Full(sh, float32(1.5), gpuarr.On(s)); err != nil { // a 32-bit memset
			return err
		}
		f64, err = gpuarr.Full(sh, 1.0/3, gpuarr.On(s)) // the fill kernel
		return err
	}
	require.NoError(t, fill()) // compiles the kernel
	for _, a := range []interface{ Release() error }{f8, f32, f64} {
		require.NoError(t, a.Release())
	}
	g, err := gpuarr.Capture(s, fill, gpuarr.Batched(maxRows))
	require.NoError(t, err)
	defer g.Close()
	defer f8.Release()
	defer f32.Release()
	defer f64.Release()
	for _, bs := range []int{2, 5, 1, maxRows, 3} {
		require.NoError(t, f8.CopyFromHost(make([]uint8, maxRows*dim), gpuarr.On(s)))
		require.NoError(t, f32.CopyFromHost(make([]float32, maxRows*dim), gpuarr.On(s)))
		require.NoError(t, f64.CopyFromHost(make([]float64, maxRows*dim), gpuarr.On(s)))
		require.NoError(t, g.ReplayBatch(bs, gpuarr.On(s)))
		rest := (maxRows - bs) * dim
		assert.Equal(t, append(slices.Repeat([]uint8{7}, bs*dim), make([]uint8, rest)...), values(t, f8), "byte memset, batch size %d", bs)
		assert.Equal(t, append(slices.Repeat([]float32{1.5}, bs*dim), make([]float32, rest)...), values(t, f32), "32-bit memset, batch size %d", bs)
		assert.Equal(t, append(slices.Repeat([]float64{1.0 / 3}, bs*dim), make([]float64, rest)...), values(t, f64), "fill kernel, batch size %d", bs)
	}
}

// What cannot follow the batch size is refused at capture, naming the
// operation, and leaves nothing behind.
func TestBatchedCaptureRefusesWhatCannotResize(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	const maxRows, dim = 4, 8
	x := must(gpuarr.Zeros[float32](gpuarr.Shape{maxRows, dim}, gpuarr.On(s)))
	y := must(gpuarr.Zeros[float32](gpuarr.Shape{maxRows, dim}, gpuarr.On(s)))
	row := must(gpuarr.Zeros[float32](gpuarr.Shape{dim}, gpuarr.On(s)))
	for _, a := range []*gpuarr.Array[float32]{x, y, row} {
		defer a.Release()
	}
	u := must(gpuarr.Zeros[uint32](gpuarr.Shape{maxRows, dim}, gpuarr.On(s)))
	defer u.Release()
	ks := kernels(t, dev)
	// Compile outside the capture, as a warm-up does.
	require.NoError(t, gpuarr.EvalInto(y, gpuarr.Add(x, row), gpuarr.On(s)))
	require.NoError(t, releaseAfter(gpuarr.Sum(x, gpuarr.On(s))))
	baseline := settledAllocated(t, dev)
	for name, c := range map[string]struct {
		fn func() error
		op string
	}{
		"a reduction over the batch": {func() error {
			return releaseAfter(gpuarr.Sum(x, gpuarr.On(s)))
		}, "Sum"},
		"a broadcast operand": {func() error {
			return gpuarr.EvalInto(y, gpuarr.Add(x, row), gpuarr.On(s))
		}, "EvalInto"},
		"a kernel of one's own": {func() error {
			return gpuarr.Launch(ks.Fill, linear(maxRows*dim), gpuarr.Out(u), uint32(3), uint64(maxRows*dim), gpuarr.On(s))
		}, "Launch"},
		"a fill whose rows are not whole memset words": {func() error {
			// int16 0x0102 repeats every 4 bytes: a 32-bit memset, rows of 3·2 bytes.
			v, err := gpuarr.Full(gpuarr.Shape{maxRows, 3}, int16(0x0102), gpuarr.On(s))
			if err != nil {
				return err
			}
			return v.Release()
		}, "Full"},
	} {
		t.Run(name, func(t *testing.T) {
			pool := must(gpuarr.NewGraphPool(dev))
			_, err := gpuarr.Capture(s, c.fn, gpuarr.Batched(maxRows), gpuarr.WithPool(pool))
			require.ErrorIs(t, err, gpuarr.ErrNotResizable)
			var nr *gpuarr.NotResizableError
			require.ErrorAs(t, err, &nr)
			assert.Contains(t, nr.Op, c.op)
			assert.Contains(t, err.Error(), c.op)
			assert.False(t, s.IsCapturing())
			assert.Zero(t, pool.Stats().ReservedBytes.Current, "nothing leaked")
			assert.LessOrEqual(t, allocated(t, dev), baseline, "nothing leaked (earlier tests' garbage may be freed meanwhile)")
		})
	}
}

func TestBatchedGraphBadInput(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	const maxRows = 4
	x := must(gpuarr.Zeros[float32](gpuarr.Shape{maxRows, 2}, gpuarr.On(s)))
	defer x.Release()
	double := func() error { return gpuarr.EvalInto(x, gpuarr.Add(x, x), gpuarr.On(s)) }

	for _, m := range []int{0, -1} {
		_, err := gpuarr.Capture(s, double, gpuarr.Batched(m))
		require.ErrorIs(t, err, gpuarr.ErrArgument, "Batched(%d)", m)
		assert.Contains(t, err.Error(), "Batched")
	}
	g, err := gpuarr.Capture(s, double, gpuarr.Batched(maxRows))
	require.NoError(t, err)
	for _, n := range []int{0, -3, maxRows + 1} {
		err := g.ReplayBatch(n, gpuarr.On(s))
		require.ErrorIs(t, err, gpuarr.ErrBatchSize, "batch size %d", n)
		assert.Contains(t, err.Error(), "1..4")
	}
	require.NoError(t, g.Close())
	require.ErrorIs(t, g.ReplayBatch(1, gpuarr.On(s)), gpuarr.ErrGraphClosed)
	var nilGraph *gpuarr.Graph
	require.ErrorIs(t, nilGraph.ReplayBatch(1), gpuarr.ErrArgument)

	plain, err := gpuarr.Capture(s, double)
	require.NoError(t, err)
	defer plain.Close()
	assert.Zero(t, plain.MaxBatch())
	err = plain.ReplayBatch(1, gpuarr.On(s))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "without Batched")
}

func TestBatchedGraphReplayOnAnotherDevice(t *testing.T) {
	d0, d1 := twoDevices(t)
	s0 := newStreams(t, d0, 1)[0]
	s1 := newStreams(t, d1, 1)[0]
	x := must(gpuarr.Zeros[float32](gpuarr.Shape{3, 2}, gpuarr.On(s0)))
	defer x.Release()
	g, err := gpuarr.Capture(s0, func() error { return gpuarr.EvalInto(x, gpuarr.Add(x, x), gpuarr.On(s0)) }, gpuarr.Batched(3))
	require.NoError(t, err)
	defer g.Close()
	err = g.ReplayBatch(2, gpuarr.On(s1))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "replayed on a stream of")
}

// releaseAfter releases the array an operation inside a capture returned.
func releaseAfter(a *gpuarr.Array[float32], err error) error {
	if err != nil {
		return err
	}
	return a.Release()
}
