package gpuarr_test

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

const (
	trials   = 1000
	elems    = 64
	maxSpin  = 50_000 // ns a slow kernel takes at most
	nStreams = 4
)

// pickTwo returns a producer and a consumer stream, different three times
// in four (the same stream must work too).
func pickTwo(rng *rand.Rand, ss []*device.Stream) (*device.Stream, *device.Stream) {
	a := rng.IntN(len(ss))
	if rng.IntN(4) == 0 {
		return ss[a], ss[a]
	}
	return ss[a], ss[(a+1+rng.IntN(len(ss)-1))%len(ss)]
}

// writeSlow fills x with v on s, then (after ns on the device) sets x[0]
// to v+1: a reader that is not ordered after the whole write sees v or
// older data in element 0.
func writeSlow(ks *testkernels.Set, x *gpuarr.Array[uint32], v uint32, ns uint64, s *device.Stream) error {
	if err := gpuarr.Launch(ks.Fill, linear(x.Len()), gpuarr.Out(x), v, uint64(x.Len()), gpuarr.On(s)); err != nil {
		return err
	}
	return gpuarr.Launch(ks.SpinWrite, one, gpuarr.Out(x), v+1, ns, gpuarr.On(s))
}

func wantWritten(v uint32) []uint32 {
	out := make([]uint32, elems)
	for i := range out {
		out[i] = v
	}
	out[0] = v + 1
	return out
}

// Read after write: goroutine P writes an array on stream A with a slow
// kernel and hands it over; goroutine C copies it on stream B with no
// synchronization of its own. 1,000 randomized trials across 4 streams.
func TestProducerConsumer(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	ss := newStreams(t, dev, nStreams)
	type job struct {
		x    *gpuarr.Array[uint32]
		v    uint32
		read *device.Stream
	}
	jobs := make(chan job) // unbuffered: C issues its read while P's write still runs
	errs := make(chan error, 2)
	go func() { // P
		defer close(jobs)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range trials {
			a, b := pickTwo(rng, ss)
			v := uint32(i) * 3
			x, err := gpuarr.Empty[uint32](gpuarr.Shape{elems}, gpuarr.On(a))
			if err == nil {
				err = writeSlow(ks, x, v, rng.Uint64N(maxSpin), a)
			}
			if err != nil {
				errs <- err
				return
			}
			jobs <- job{x, v, b}
		}
	}()
	wrong := 0
	for j := range jobs { // C
		y := must(gpuarr.Empty[uint32](gpuarr.Shape{elems}, gpuarr.On(j.read)))
		require.NoError(t, gpuarr.Launch(ks.Copy, linear(elems), gpuarr.Out(y), gpuarr.In(j.x), uint64(elems), gpuarr.On(j.read)))
		require.NoError(t, j.x.Release()) // the copy still reads it: the free must wait
		got := values(t, y)
		if !assert.ObjectsAreEqual(wantWritten(j.v), got) {
			wrong++
			if wrong <= 3 {
				t.Errorf("trial with v=%d read %v", j.v, got[:4])
			}
		}
		require.NoError(t, y.Release())
	}
	select {
	case err := <-errs:
		require.NoError(t, err)
	default:
	}
	assert.Zero(t, wrong, "wrong results in %d trials", trials)
}

// Write after read: C reads an array on stream B behind a slow kernel
// (the read itself is late), hands it back, and P overwrites it on stream
// A at once. The overwrite must wait for the read.
func TestWriteAfterRead(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	ss := newStreams(t, dev, nStreams)
	delay := make([]*gpuarr.Array[uint32], nStreams)
	for i, s := range ss {
		delay[i] = must(gpuarr.Zeros[uint32](gpuarr.Shape{1}, gpuarr.On(s)))
		defer delay[i].Release()
	}
	idx := func(s *device.Stream) int {
		for i := range ss {
			if ss[i] == s {
				return i
			}
		}
		return -1
	}

	type handoff struct {
		x, y *gpuarr.Array[uint32]
		err  error
	}
	toC, toP := make(chan handoff), make(chan handoff)
	rng := rand.New(rand.NewPCG(3, 4))
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(toC)
	wg.Go(func() { // C
		for h := range toC {
			b := ss[rng.IntN(nStreams)]
			h.y, h.err = gpuarr.Empty[uint32](gpuarr.Shape{elems}, gpuarr.On(b))
			if h.err == nil {
				h.err = gpuarr.Launch(ks.SpinWrite, one, gpuarr.Out(delay[idx(b)]), uint32(1), rng.Uint64N(maxSpin), gpuarr.On(b))
			}
			if h.err == nil {
				h.err = gpuarr.Launch(ks.Copy, linear(elems), gpuarr.Out(h.y), gpuarr.In(h.x), uint64(elems), gpuarr.On(b))
			}
			toP <- h
		}
	})

	wrong := 0
	for i := range trials { // P
		a := ss[i%nStreams]
		old, next := uint32(2*i+1), uint32(2*i+2)
		x := must(gpuarr.Full(gpuarr.Shape{elems}, old, gpuarr.On(a)))
		toC <- handoff{x: x}
		h := <-toP
		require.NoError(t, h.err)
		require.NoError(t, gpuarr.Launch(ks.Fill, linear(elems), gpuarr.Out(x), next, uint64(elems), gpuarr.On(a)))
		gotY, gotX := values(t, h.y), values(t, x)
		if gotY[0] != old || gotY[elems-1] != old || gotX[0] != next {
			wrong++
			if wrong <= 3 {
				t.Errorf("trial %d: reader saw %d…%d (want %d), array holds %d (want %d)", i, gotY[0], gotY[elems-1], old, gotX[0], next)
			}
		}
		require.NoError(t, x.Release())
		require.NoError(t, h.y.Release())
	}
	assert.Zero(t, wrong, "wrong results in %d trials", trials)
}

// An array read on streams B and C (late), then released and its memory
// reallocated and overwritten on A: the readers still see the old data.
// In the host backend's checking mode a missing RecordUse shows up as
// poisoned bytes; on a GPU as the new value.
func TestFreeAfterMultiStreamUse(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	ss := newStreams(t, dev, 3)
	a, b, c := ss[0], ss[1], ss[2]
	delayB := must(gpuarr.Zeros[uint32](gpuarr.Shape{1}, gpuarr.On(b)))
	defer delayB.Release()
	delayC := must(gpuarr.Zeros[uint32](gpuarr.Shape{1}, gpuarr.On(c)))
	defer delayC.Release()
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 200 {
		v, w := uint32(10*i+1), uint32(10*i+2)
		x := must(gpuarr.Full(gpuarr.Shape{elems}, v, gpuarr.On(a)))
		yb := must(gpuarr.Empty[uint32](gpuarr.Shape{elems}, gpuarr.On(b)))
		yc := must(gpuarr.Empty[uint32](gpuarr.Shape{elems}, gpuarr.On(c)))
		require.NoError(t, gpuarr.Launch(ks.SpinWrite, one, gpuarr.Out(delayB), uint32(0), rng.Uint64N(maxSpin), gpuarr.On(b)))
		require.NoError(t, gpuarr.Launch(ks.SpinWrite, one, gpuarr.Out(delayC), uint32(0), rng.Uint64N(maxSpin), gpuarr.On(c)))
		require.NoError(t, gpuarr.Launch(ks.Copy, linear(elems), gpuarr.Out(yb), gpuarr.In(x), uint64(elems), gpuarr.On(b)))
		require.NoError(t, gpuarr.Launch(ks.Copy, linear(elems), gpuarr.Out(yc), gpuarr.In(x), uint64(elems), gpuarr.On(c)))
		require.NoError(t, x.Release())
		z := must(gpuarr.Full(gpuarr.Shape{elems}, w, gpuarr.On(a))) // likely x's memory
		for name, y := range map[string]*gpuarr.Array[uint32]{"B": yb, "C": yc} {
			got := values(t, y)
			require.Equal(t, v, got[0], "trial %d: reader on %s", i, name)
			require.Equal(t, v, got[elems-1], "trial %d: reader on %s", i, name)
		}
		require.Equal(t, w, values(t, z)[0])
		for _, r := range []*gpuarr.Array[uint32]{yb, yc, z} {
			require.NoError(t, r.Release())
		}
	}
}

// A host read after a GPU write needs no explicit synchronization and
// waits once; reading again, or after other streams only read, waits for
// nothing.
func TestHostReadSyncsOnlyWhenDirty(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	ss := newStreams(t, dev, 2)
	x := must(gpuarr.Zeros[uint32](gpuarr.Shape{elems}, gpuarr.On(ss[0])))
	defer x.Release()
	require.NoError(t, gpuarr.Launch(ks.SpinWrite, one, gpuarr.Out(x), uint32(7), uint64(2_000_000), gpuarr.On(ss[0])))

	c0 := gpuarr.ReadCounters()
	assert.Equal(t, uint32(7), values(t, x)[0], "the read waits for the slow write")
	assert.Equal(t, uint64(1), gpuarr.ReadCounters().Sub(c0).HostSyncs)

	dst := make([]uint32, elems)
	for range 10 {
		assert.Equal(t, uint32(7), values(t, x)[0])
		require.NoError(t, x.CopyToHost(dst))
	}
	y := must(gpuarr.Empty[uint32](gpuarr.Shape{elems}, gpuarr.On(ss[1])))
	defer y.Release()
	require.NoError(t, gpuarr.Launch(ks.Copy, linear(elems), gpuarr.Out(y), gpuarr.In(x), uint64(elems), gpuarr.On(ss[1])))
	require.NoError(t, x.CopyToHost(dst))
	assert.Equal(t, uint64(1), gpuarr.ReadCounters().Sub(c0).HostSyncs, "clean reads make no synchronization")

	require.NoError(t, gpuarr.Launch(ks.Fill, linear(elems), gpuarr.Out(x), uint32(9), uint64(elems), gpuarr.On(ss[1])))
	assert.Equal(t, uint32(9), values(t, x)[elems-1])
	assert.Equal(t, uint32(7), values(t, y)[0])
	assert.Equal(t, uint64(3), gpuarr.ReadCounters().Sub(c0).HostSyncs, "one for x's new write, one for y's first read")
}

// Work that stays on one stream makes no tracking driver call; a hand-off
// makes one record and one wait, and only once per reader.
func TestTrackingDriverCalls(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	ss := newStreams(t, dev, 2)
	a, b := ss[0], ss[1]
	x := must(gpuarr.Zeros[uint32](gpuarr.Shape{elems}, gpuarr.On(a)))
	defer x.Release()
	y := must(gpuarr.Zeros[uint32](gpuarr.Shape{elems}, gpuarr.On(a)))
	defer y.Release()

	c0 := gpuarr.ReadCounters()
	for i := range 20 {
		require.NoError(t, gpuarr.Launch(ks.Fill, linear(elems), gpuarr.Out(x), uint32(i), uint64(elems), gpuarr.On(a)))
		require.NoError(t, gpuarr.Launch(ks.Copy, linear(elems), gpuarr.Out(y), gpuarr.In(x), uint64(elems), gpuarr.On(a)))
		require.NoError(t, gpuarr.Copy(x, y, gpuarr.On(a)))
		require.NoError(t, x.CopyFromHost(make([]uint32, elems), gpuarr.On(a)))
		v := must(x.Slice(0, 8))
		require.NoError(t, gpuarr.Launch(ks.Fill, linear(8), gpuarr.Out(v), uint32(1), uint64(8), gpuarr.On(a)))
		require.NoError(t, v.Release())
	}
	d := gpuarr.ReadCounters().Sub(c0)
	assert.Zero(t, d.EventRecords, "same-stream use records no event")
	assert.Zero(t, d.StreamWaits, "same-stream use waits for nothing")

	c1 := gpuarr.ReadCounters()
	require.NoError(t, gpuarr.Launch(ks.Copy, linear(elems), gpuarr.Out(y), gpuarr.In(x), uint64(elems), gpuarr.On(b)))
	d = gpuarr.ReadCounters().Sub(c1)
	// b reads x (waits for a's write of x) and writes y (waits for a's
	// write of y): each buffer records its own event on a.
	assert.Equal(t, uint64(2), d.StreamWaits)
	assert.Equal(t, uint64(2), d.EventRecords)

	c2 := gpuarr.ReadCounters()
	for range 5 { // b read x already: nothing new to wait for
		require.NoError(t, gpuarr.Launch(ks.Copy, linear(elems), gpuarr.Out(y), gpuarr.In(x), uint64(elems), gpuarr.On(b)))
	}
	assert.Zero(t, gpuarr.ReadCounters().Sub(c2).StreamWaits)

	c3 := gpuarr.ReadCounters()
	require.NoError(t, gpuarr.Launch(ks.Fill, linear(elems), gpuarr.Out(x), uint32(5), uint64(elems), gpuarr.On(a)))
	d = gpuarr.ReadCounters().Sub(c3)
	assert.Equal(t, uint64(1), d.StreamWaits, "a's write of x waits for b's reads")
	assert.Equal(t, uint64(1), d.EventRecords)
}
