package gpuarr_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/memory"
)

// seedRows is the seed program's computation on the first bs rows of a
// and b, written into the first bs rows of out, with temporaries that are
// allocated and released inside the capture.
func seedRows(t *testing.T, a, b, out *gpuarr.Array[float32], bs int, s *device.Stream, ranges *[][2]device.Ptr) error {
	t.Helper()
	av, err := a.Slice(0, bs)
	if err != nil {
		return err
	}
	defer av.Release()
	bv, err := b.Slice(0, bs)
	if err != nil {
		return err
	}
	defer bv.Release()
	sq, err := gpuarr.Eval(gpuarr.Mul(av, av), gpuarr.On(s))
	if err != nil {
		return err
	}
	sum, err := gpuarr.Eval(gpuarr.Add(sq, gpuarr.Mul(bv, gpuarr.Scalar[float32](2))), gpuarr.On(s))
	if err != nil {
		return err
	}
	if ranges != nil {
		for _, x := range []*gpuarr.Array[float32]{sq, sum} {
			lo, hi := gpuarr.AddrRange(x)
			*ranges = append(*ranges, [2]device.Ptr{lo, hi})
		}
	}
	if err := sq.Release(); err != nil {
		return err
	}
	ov, err := out.Slice(0, bs)
	if err != nil {
		return err
	}
	defer ov.Release()
	if err := gpuarr.EvalInto(ov, sum, gpuarr.On(s)); err != nil {
		return err
	}
	return sum.Release()
}

func seedWant(a, b []float32, bs, dim int) []float32 {
	want := make([]float32, bs*dim)
	for i := range want {
		want[i] = a[i]*a[i] + b[i]*2
	}
	return want
}

func randomRows(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.IntN(100)) / 4
	}
	return v
}

func TestCaptureReplayOrdersLikeAnOperation(t *testing.T) {
	dev := testDevice(t)
	ss := newStreams(t, dev, 3)
	s, r, o := ss[0], ss[1], ss[2]
	const rows, dim = 4, 64
	rng := rand.New(rand.NewPCG(1, 2))
	av, bv := randomRows(rng, rows*dim), randomRows(rng, rows*dim)
	a := must(gpuarr.FromSlice(av, gpuarr.Shape{rows, dim}, gpuarr.On(o)))
	b := must(gpuarr.FromSlice(bv, gpuarr.Shape{rows, dim}, gpuarr.On(o)))
	out := must(gpuarr.Zeros[float32](gpuarr.Shape{rows, dim}, gpuarr.On(o)))
	defer a.Release()
	defer b.Release()
	defer out.Release()
	// Compile the expressions outside the capture (as PyTorch warms up).
	require.NoError(t, seedRows(t, a, b, out, rows, s, nil))
	require.NoError(t, out.CopyFromHost(make([]float32, rows*dim), gpuarr.On(s)))

	g, err := gpuarr.Capture(s, func() error { return seedRows(t, a, b, out, rows, s, nil) })
	require.NoError(t, err)
	defer g.Close()
	assert.Equal(t, make([]float32, rows*dim), values(t, out), "nothing ran at capture")

	for trial := range 20 {
		// New inputs on o, a replay on r or s, a host read: no manual sync.
		av, bv = randomRows(rng, rows*dim), randomRows(rng, rows*dim)
		require.NoError(t, a.CopyFromHost(av, gpuarr.On(o)))
		require.NoError(t, b.CopyFromHost(bv, gpuarr.On(o)))
		on := r
		if trial%2 == 1 {
			on = s
		}
		require.NoError(t, g.Replay(gpuarr.On(on)))
		require.Equal(t, seedWant(av, bv, rows, dim), values(t, out), "trial %d", trial)
	}
	// The replay's read of a orders o's next write after it.
	require.NoError(t, g.Replay(gpuarr.On(r)))
	require.NoError(t, a.CopyFromHost(make([]float32, rows*dim), gpuarr.On(o)))
	require.NoError(t, r.Synchronize())
	assert.Equal(t, seedWant(av, bv, rows, dim), values(t, out))
}

// A replay is launched on its pool's own stream (no other work uses it:
// on CUDA, a graph launched on a stream other threads issue to could leave
// their work unordered), joined to the caller's stream both ways: the
// caller's stream, synchronized alone, has waited for the graph; the pool's
// stream, closed when the pool drains.
func TestReplayLaunchesOnThePoolsOwnStream(t *testing.T) {
	dev := testDevice(t)
	ss := newStreams(t, dev, 3)
	s, r, raw2 := ss[0], ss[1], ss[2]
	const rows, dim = 4, 64
	rng := rand.New(rand.NewPCG(3, 4))
	av, bv := randomRows(rng, rows*dim), randomRows(rng, rows*dim)
	a := must(gpuarr.FromSlice(av, gpuarr.Shape{rows, dim}, gpuarr.On(s)))
	b := must(gpuarr.FromSlice(bv, gpuarr.Shape{rows, dim}, gpuarr.On(s)))
	out := must(gpuarr.Zeros[float32](gpuarr.Shape{rows, dim}, gpuarr.On(s)))
	defer a.Release()
	defer b.Release()
	defer out.Release()
	require.NoError(t, seedRows(t, a, b, out, rows, s, nil))

	g, err := gpuarr.Capture(s, func() error { return seedRows(t, a, b, out, rows, s, nil) })
	require.NoError(t, err)
	assert.Nil(t, gpuarr.LaunchStreamOf(g), "no launch stream before the first replay")
	for trial := range 10 {
		on := []*device.Stream{r, s}[trial%2]
		require.NoError(t, g.Replay(gpuarr.On(on)))
		ls := gpuarr.LaunchStreamOf(g)
		require.NotNil(t, ls)
		assert.NotSame(t, on, ls, "trial %d: launched on the caller's stream", trial)
		assert.NotSame(t, s, ls, "trial %d: launched on the capture stream", trial)
		// The caller's stream alone, synchronized without tracking,
		// has waited for the graph: a raw copy of out's memory on
		// another stream then sees the replay's result.
		require.NoError(t, on.Synchronize())
		lo, _ := gpuarr.AddrRange(out)
		raw := make([]float32, rows*dim)
		require.NoError(t, raw2.CopyDtoH(unsafe.Pointer(&raw[0]), lo, uint64(4*len(raw))))
		require.NoError(t, raw2.Synchronize())
		require.Equal(t, seedWant(av, bv, rows, dim), raw, "trial %d: the caller's stream did not wait for the graph", trial)
		require.NoError(t, out.CopyFromHost(make([]float32, rows*dim), gpuarr.On(on)))
	}
	ls := gpuarr.LaunchStreamOf(g)
	require.NoError(t, g.Close())
	assert.True(t, ls.Closed(), "the pool's launch stream outlived its last graph")
}

func TestGraphsSharingAPoolReplayInAnyOrder(t *testing.T) {
	dev := testDevice(t)
	ss := newStreams(t, dev, 2)
	s, r := ss[0], ss[1]
	const maxRows, dim = 16, 256
	rng := rand.New(rand.NewPCG(3, 4))
	a := must(gpuarr.Zeros[float32](gpuarr.Shape{maxRows, dim}, gpuarr.On(s)))
	b := must(gpuarr.Zeros[float32](gpuarr.Shape{maxRows, dim}, gpuarr.On(s)))
	out := must(gpuarr.Zeros[float32](gpuarr.Shape{maxRows, dim}, gpuarr.On(s)))
	defer a.Release()
	defer b.Release()
	defer out.Release()
	require.NoError(t, seedRows(t, a, b, out, 1, s, nil))
	baseline := settledAllocated(t, dev)

	pool := must(gpuarr.NewGraphPool(dev))
	graphs := make([]*gpuarr.Graph, maxRows+1)
	var ranges [][2]device.Ptr
	for bs := 1; bs <= maxRows; bs++ {
		g, err := gpuarr.Capture(s, func() error { return seedRows(t, a, b, out, bs, s, &ranges) }, gpuarr.WithPool(pool))
		require.NoError(t, err, "batch size %d", bs)
		graphs[bs] = g
	}
	reserved := pool.Stats().ReservedBytes.Current
	assert.Positive(t, reserved)
	if pool.Upstream().Kind == memory.KindExpandable {
		// The largest working set is two 16 KiB temporaries: one granule.
		assert.LessOrEqual(t, reserved, uint64(2<<20), "reserved beyond one granule")
		assert.Equal(t, reserved, pool.Upstream().ReservedBytes.Current)
	}
	assert.Equal(t, baseline, allocated(t, dev), "captures allocate from the private pool only")

	// Other work allocated now never gets graph memory.
	var others []*gpuarr.Array[float32]
	for range 32 {
		x := must(gpuarr.Empty[float32](gpuarr.Shape{maxRows, dim}, gpuarr.On(s)))
		others = append(others, x)
		lo, hi := gpuarr.AddrRange(x)
		for _, gr := range ranges {
			assert.False(t, lo < gr[1] && gr[0] < hi, "array [%v,%v) overlaps graph memory [%v,%v)", lo, hi, gr[0], gr[1])
		}
	}
	for _, x := range others {
		require.NoError(t, x.Release())
	}

	for _, trial := range rng.Perm(3 * maxRows) {
		bs := trial%maxRows + 1
		av, bv := randomRows(rng, maxRows*dim), randomRows(rng, maxRows*dim)
		require.NoError(t, a.CopyFromHost(av, gpuarr.On(s)))
		require.NoError(t, b.CopyFromHost(bv, gpuarr.On(s)))
		on := s
		if trial%3 == 0 {
			on = r
		}
		require.NoError(t, graphs[bs].Replay(gpuarr.On(on)))
		got := values(t, out)
		require.Equal(t, seedWant(av, bv, bs, dim), got[:bs*dim], "batch size %d", bs)
	}
	assert.Equal(t, reserved, pool.Stats().ReservedBytes.Current, "replays allocate nothing")

	for bs := 1; bs <= maxRows; bs++ {
		require.NoError(t, graphs[bs].Close())
	}
	assert.Zero(t, pool.Stats().ReservedBytes.Current, "closing the last graph returns the pool's memory")
	assert.Zero(t, pool.Stats().AllocatedBytes.Current)
}

func TestGraphKeepsItsArraysAliveWithoutHandles(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	const n = 1 << 12
	in := must(gpuarr.Full(gpuarr.Shape{n}, float32(3), gpuarr.On(s)))
	dst := must(gpuarr.Zeros[float32](gpuarr.Shape{n}, gpuarr.On(s)))                        // general pool, written by the graph
	_ = must(gpuarr.Eval(gpuarr.Mul(in, gpuarr.Scalar[float32](2)), gpuarr.On(s))).Release() // compile
	var out *gpuarr.Array[float32]
	g, err := gpuarr.Capture(s, func() error {
		var err error
		if out, err = gpuarr.Eval(gpuarr.Mul(in, gpuarr.Scalar[float32](2)), gpuarr.On(s)); err != nil {
			return err
		}
		return gpuarr.EvalInto(dst, gpuarr.Add(out, gpuarr.Scalar[float32](1)), gpuarr.On(s))
	})
	require.NoError(t, err)
	defer g.Close()
	require.NoError(t, g.Replay(gpuarr.On(s)))
	assert.Equal(t, slices.Repeat([]float32{6}, n), values(t, out))
	assert.Equal(t, slices.Repeat([]float32{7}, n), values(t, dst))
	var ranges [][2]device.Ptr
	for _, x := range []*gpuarr.Array[float32]{in, dst, out} {
		lo, hi := gpuarr.AddrRange(x)
		ranges = append(ranges, [2]device.Ptr{lo, hi})
	}

	// Drop every handle: the graph keeps in, out and dst.
	require.NoError(t, in.Release())
	require.NoError(t, dst.Release())
	in, out, dst = nil, nil, nil
	for range 3 {
		runtime.GC()
		var others []*gpuarr.Array[float32]
		for range 8 {
			x := must(gpuarr.Full(gpuarr.Shape{n}, float32(-1), gpuarr.On(s)))
			xl, xh := gpuarr.AddrRange(x)
			for _, r := range ranges {
				assert.False(t, xl < r[1] && r[0] < xh, "a new array overlaps memory the graph uses")
			}
			others = append(others, x)
		}
		require.NoError(t, g.Replay(gpuarr.On(s)))
		for _, x := range others {
			assert.Equal(t, slices.Repeat([]float32{-1}, n), values(t, x), "the replay wrote into other work's memory")
			require.NoError(t, x.Release())
		}
	}
}

func TestCaptureBadInput(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	nop := func() error { return nil }

	_, err := gpuarr.Capture(dev.DefaultStream(), nop)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "default stream")
	_, err = gpuarr.Capture(nil, nop)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = gpuarr.Capture(s, nil)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = gpuarr.Capture(s, nop, gpuarr.WithPool(nil))
	require.ErrorIs(t, err, gpuarr.ErrArgument)

	// A stream that already captures, raw or through Capture.
	require.NoError(t, s.BeginCapture())
	_, err = gpuarr.Capture(s, nop)
	require.ErrorIs(t, err, device.ErrStreamCapture)
	g0, err := s.EndCapture()
	require.NoError(t, err)
	require.NoError(t, g0.Close())
	_, err = gpuarr.Capture(s, func() error {
		_, err := gpuarr.Capture(s, nop)
		return err
	})
	require.ErrorIs(t, err, device.ErrStreamCapture)

	// A closed graph.
	g, err := gpuarr.Capture(s, nop)
	require.NoError(t, err)
	require.NoError(t, g.Close())
	require.ErrorIs(t, g.Replay(gpuarr.On(s)), gpuarr.ErrGraphClosed)
	require.ErrorIs(t, g.Close(), gpuarr.ErrGraphClosed)

	// An array released inside its own capture, then read.
	baseline := settledAllocated(t, dev)
	pool := must(gpuarr.NewGraphPool(dev))
	_, err = gpuarr.Capture(s, func() error {
		x, err := gpuarr.Zeros[float32](gpuarr.Shape{64}, gpuarr.On(s))
		if err != nil {
			return err
		}
		if err := x.Release(); err != nil {
			return err
		}
		_, err = gpuarr.Eval(gpuarr.Add(x, x), gpuarr.On(s))
		return err
	}, gpuarr.WithPool(pool))
	require.ErrorIs(t, err, gpuarr.ErrReleased)
	assert.Zero(t, pool.Stats().ReservedBytes.Current, "nothing leaked")
	assert.Equal(t, baseline, allocated(t, dev))
	assert.False(t, s.IsCapturing(), "the failed capture ended")

	// A host read inside the capture.
	y := must(gpuarr.Zeros[float32](gpuarr.Shape{64}, gpuarr.On(s)))
	defer y.Release()
	_, err = gpuarr.Capture(s, func() error {
		if err := gpuarr.EvalInto(y, gpuarr.Add(y, y), gpuarr.On(s)); err != nil {
			return err
		}
		_, err := y.ToSlice()
		return err
	}, gpuarr.WithPool(pool))
	require.ErrorIs(t, err, device.ErrStreamCapture)
	assert.Contains(t, err.Error(), "ToSlice")
	assert.Zero(t, pool.Stats().ReservedBytes.Current, "nothing leaked")
	// The stream and the array still work.
	require.NoError(t, gpuarr.EvalInto(y, gpuarr.Add(y, gpuarr.Scalar[float32](1)), gpuarr.On(s)))
	assert.Equal(t, slices.Repeat([]float32{1}, 64), values(t, y))
}

func TestGraphReplayOnAnotherDevice(t *testing.T) {
	d0, d1 := twoDevices(t)
	s0 := newStreams(t, d0, 1)[0]
	s1 := newStreams(t, d1, 1)[0]
	g, err := gpuarr.Capture(s0, func() error { return nil })
	require.NoError(t, err)
	defer g.Close()
	err = g.Replay(gpuarr.On(s1))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "replayed on a stream of")
}

// Operations that cannot be recorded correctly are refused inside a
// capture, each naming itself, and leave nothing behind.
func TestCaptureRefusesWhatCannotReplay(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	x := must(gpuarr.Zeros[float32](gpuarr.Shape{4, 4}, gpuarr.On(s)))
	defer x.Release()
	baseline := settledAllocated(t, dev)
	pool := must(gpuarr.NewGraphPool(dev))
	for name, fn := range map[string]func() error{
		"CopyFromHost": func() error { return x.CopyFromHost(make([]float32, 16), gpuarr.On(s)) },
		"FromSlice": func() error {
			_, err := gpuarr.FromSlice(make([]float32, 16), gpuarr.Shape{16}, gpuarr.On(s))
			return err
		},
		"Matmul": func() error {
			_, err := gpuarr.Matmul(x, x, gpuarr.On(s))
			return err
		},
		"MatmulInto": func() error {
			y := must(gpuarr.Zeros[float32](gpuarr.Shape{4, 4}, gpuarr.On(s)))
			defer y.Release()
			return gpuarr.MatmulInto(y, x, x, gpuarr.On(s))
		},
	} {
		_, err := gpuarr.Capture(s, fn, gpuarr.WithPool(pool))
		require.ErrorIs(t, err, device.ErrStreamCapture, name)
		assert.Contains(t, err.Error(), name)
		assert.False(t, s.IsCapturing())
		assert.Zero(t, pool.Stats().ReservedBytes.Current, "%s: nothing leaked", name)
		assert.Equal(t, baseline, allocated(t, dev), name)
	}
}

// A graph closed after replays on another stream leaves its memory to the
// pool's next capture without anything for that capture to wait on; the
// pool's graphs are captured on one stream.
func TestGraphPoolReuseAfterClose(t *testing.T) {
	dev := testDevice(t)
	ss := newStreams(t, dev, 3)
	s, r, o := ss[0], ss[1], ss[2]
	const n = 1 << 10
	in := must(gpuarr.Full(gpuarr.Shape{n}, float32(2), gpuarr.On(s)))
	defer in.Release()
	_ = must(gpuarr.Eval(gpuarr.Mul(in, in), gpuarr.On(s))).Release()
	_ = must(gpuarr.Eval(gpuarr.Add(in, in), gpuarr.On(s))).Release()
	pool := must(gpuarr.NewGraphPool(dev))

	var o1 *gpuarr.Array[float32]
	g1, err := gpuarr.Capture(s, func() error {
		var err error
		o1, err = gpuarr.Eval(gpuarr.Mul(in, in), gpuarr.On(s))
		return err
	}, gpuarr.WithPool(pool))
	require.NoError(t, err)
	require.NoError(t, g1.Replay(gpuarr.On(r)))
	assert.Equal(t, slices.Repeat([]float32{4}, n), values(t, o1))

	_, err = gpuarr.Capture(o, func() error { return nil }, gpuarr.WithPool(pool))
	require.ErrorIs(t, err, gpuarr.ErrArgument, "another capture stream for the same pool")
	assert.Contains(t, err.Error(), "one stream")

	require.NoError(t, g1.Replay(gpuarr.On(r)))
	require.NoError(t, o1.Release())
	// A graph that keeps the pool alive, then close g1: its memory is free.
	g0, err := gpuarr.Capture(s, func() error { return nil }, gpuarr.WithPool(pool))
	require.NoError(t, err)
	defer g0.Close()
	require.NoError(t, g1.Close())

	var o2 *gpuarr.Array[float32]
	g2, err := gpuarr.Capture(s, func() error {
		var err error
		o2, err = gpuarr.Eval(gpuarr.Add(in, in), gpuarr.On(s))
		return err
	}, gpuarr.WithPool(pool))
	require.NoError(t, err, "the capture reuses g1's memory without waiting on r")
	defer g2.Close()
	require.NoError(t, g2.Replay(gpuarr.On(o)))
	assert.Equal(t, slices.Repeat([]float32{4}, n), values(t, o2))
}

// An unreachable Graph is closed by the GC: its pool's memory goes back.
func TestUnreachableGraphIsClosed(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	in := must(gpuarr.Full(gpuarr.Shape{256}, float32(1), gpuarr.On(s)))
	defer in.Release()
	_ = must(gpuarr.Eval(gpuarr.Mul(in, in), gpuarr.On(s))).Release()
	pool := must(gpuarr.NewGraphPool(dev))
	func() {
		g, err := gpuarr.Capture(s, func() error {
			_, err := gpuarr.Eval(gpuarr.Mul(in, in), gpuarr.On(s))
			return err
		}, gpuarr.WithPool(pool))
		require.NoError(t, err)
		require.NoError(t, g.Replay(gpuarr.On(s)))
	}()
	require.Positive(t, pool.Stats().ReservedBytes.Current)
	require.Eventually(t, func() bool {
		runtime.GC()
		return pool.Stats().ReservedBytes.Current == 0
	}, 10*time.Second, 10*time.Millisecond, "the cleanup closed the graph and the pool returned its memory")
}
