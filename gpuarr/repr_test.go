package gpuarr_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// String shows the elements, like NumPy's repr: all of them up to six,
// else the first and last three, in row-major order (strided views
// included), after the type, shape and device.
func TestStringShowsValues(t *testing.T) {
	dev := testDevice(t)
	x := must(gpuarr.FromSlice([]float32{1, 2, 3, 4.5, 5, 6}, gpuarr.Shape{2, 3}))
	defer x.Release()
	assert.Equal(t, "gpuarr.Array[float32][2 3] on "+dev.String()+" [1 2 3 4.5 5 6]", x.String())
	assert.Equal(t, x.String(), fmt.Sprint(x))

	tr := must(x.Transpose())
	defer tr.Release()
	assert.Equal(t, "gpuarr.Array[float32][3 2] on "+dev.String()+" [1 4.5 2 5 3 6]", tr.String())

	data := make([]int64, 1000)
	for i := range data {
		data[i] = int64(i)
	}
	long := must(gpuarr.FromSlice(data, gpuarr.Shape{10, 100}))
	defer long.Release()
	assert.Equal(t, "gpuarr.Array[int64][10 100] on "+dev.String()+" [0 1 2 ... 997 998 999]", long.String())
	rev := must(long.Step(1, 99, -1, -1)) // each row backwards
	defer rev.Release()
	assert.Equal(t, "gpuarr.Array[int64][10 100] on "+dev.String()+" [99 98 97 ... 902 901 900]", rev.String())

	empty := must(gpuarr.Zeros[uint8](gpuarr.Shape{0, 3}))
	defer empty.Release()
	assert.Equal(t, "gpuarr.Array[uint8][0 3] on "+dev.String()+" []", empty.String())
	scalar := must(gpuarr.Full(gpuarr.Shape{}, int16(-7)))
	defer scalar.Release()
	assert.Equal(t, "gpuarr.Array[int16][] on "+dev.String()+" [-7]", scalar.String())

	require.NoError(t, scalar.Release())
	assert.Equal(t, "gpuarr.Array[int16][] on "+dev.String()+" (released)", scalar.String())
}

// String waits for the array's last writer (and only when one may be
// pending), so it shows what the GPU computed, as ToSlice would.
func TestStringWaitsForTheWriter(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	x := must(gpuarr.FromSlice([]float32{1, 2, 3}, gpuarr.Shape{3}))
	defer x.Release()
	for i := range 20 {
		y := must(gpuarr.Eval(gpuarr.Mul(x, gpuarr.Scalar(float32(i))), gpuarr.On(s)))
		want := fmt.Sprintf("gpuarr.Array[float32][3] on %s [%v %v %v]", dev, float32(i), float32(2*i), float32(3*i))
		before := arrayhook.HostSyncs()
		assert.Equal(t, want, y.String())
		assert.LessOrEqual(t, arrayhook.HostSyncs()-before, uint64(1), "one wait at most: the writer's event")
		before = arrayhook.HostSyncs()
		assert.Equal(t, want, y.String())
		assert.Equal(t, before, arrayhook.HostSyncs(), "read once, the array is clean: no wait")
		require.NoError(t, y.Release())
	}
	_ = x.String()
	clean := arrayhook.HostSyncs()
	_ = x.String()
	_, _ = x.ToSlice()
	assert.Equal(t, clean, arrayhook.HostSyncs(), "a clean array costs no wait")
}

// String called while an operation holds the array (here inside Track's
// issue function) leaves the values out instead of deadlocking.
func TestStringInsideAnOperation(t *testing.T) {
	dev := testDevice(t)
	x := must(gpuarr.Zeros[int32](gpuarr.Shape{4}))
	defer x.Release()
	var got string
	err := arrayhook.Track("Test", []arrayhook.Use{arrayhook.Writes(x, dev.DefaultStream())}, func() error {
		got = x.String()
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, "gpuarr.Array[int32][4] on "+dev.String()+" (values not shown: an operation holds the array)", got)
	assert.Equal(t, "gpuarr.Array[int32][4] on "+dev.String()+" [0 0 0 0]", x.String())
}

// Producer and consumer goroutines on streams of their own: each String
// made after a write was issued shows that write, never an older or a
// partial one (GPUARR_HOST_CHECK=1 delays the host backend's stream work
// at random, so a missing wait shows).
func TestStringAfterWritesOnOtherStreams(t *testing.T) {
	dev := testDevice(t)
	const pairs, rounds, n = 2, 100, 1000
	var wg sync.WaitGroup
	for p := range pairs {
		ss := newStreams(t, dev, 1)
		x := must(gpuarr.Zeros[int32](gpuarr.Shape{n}))
		defer x.Release()
		written, read := make(chan int32), make(chan struct{})
		wg.Go(func() { // producer
			defer close(written)
			for k := range int32(rounds) {
				v := int32(p*rounds) + k + 1
				if err := gpuarr.EvalInto(x, gpuarr.Scalar(v), gpuarr.On(ss[0])); err != nil {
					t.Error(err)
					return
				}
				written <- v
				<-read
			}
		})
		wg.Go(func() { // consumer
			for v := range written {
				want := fmt.Sprintf("gpuarr.Array[int32][%d] on %s [%d %d %d ... %d %d %d]", n, dev, v, v, v, v, v, v)
				if got := x.String(); got != want {
					t.Errorf("got %s, want %s", got, want)
				}
				read <- struct{}{}
			}
		})
	}
	wg.Wait()
}
