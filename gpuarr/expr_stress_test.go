package gpuarr_test

import (
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// Many goroutines, each on its own stream, build and evaluate expressions
// over shared inputs and their own outputs, and compile the same new
// expression shapes at the same moment: every result is right without
// any synchronization in the test, and each shape compiles once.
func TestExpressionStress(t *testing.T) {
	dev := testDevice(t)
	const workers, rounds, n = 8, 25, 4099
	streams := newStreams(t, dev, workers)
	shared := must(gpuarr.FromSlice(sequence(n, 1), gpuarr.Shape{n}))
	defer shared.Release()
	before := gpuarr.ReadKernelStats()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			on := gpuarr.On(streams[w])
			acc, err := gpuarr.Zeros[float32](gpuarr.Shape{n}, on)
			if err != nil {
				errs <- err
				return
			}
			defer acc.Release()
			for r := 0; r < rounds; r++ {
				// acc = acc + shared·w, then a reduction of it on the same stream.
				e := gpuarr.FMA(shared, gpuarr.Scalar(float32(w)), acc)
				if err := gpuarr.EvalInto(acc, gpuarr.Maximum(e, gpuarr.Scalar[float32](-1e30)), on); err != nil {
					errs <- err
					return
				}
			}
			got, err := acc.ToSlice()
			if err != nil {
				errs <- err
				return
			}
			for i, v := range got {
				if want := float32(rounds*w) * float32(i+1); v != want {
					t.Errorf("worker %d element %d: %v, want %v", w, i, v, want)
					return
				}
			}
			s, err := gpuarr.Sum[float32](acc, on)
			if err != nil {
				errs <- err
				return
			}
			if _, err := s.Item(); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	after := gpuarr.ReadKernelStats()
	assert.LessOrEqual(t, after.Compiles-before.Compiles, uint64(6), "shared expression shapes compile once, not once per goroutine")
}

// Arrays of 2³¹ elements or more need 64-bit indexing. It runs on the GPU;
// on the host backend it is opt-in (GPUARR_TEST_LARGE=1), since it needs
// 4.3 GB of memory and minutes of CPU in CI.
func TestLargeUint8(t *testing.T) {
	dev := testDevice(t)
	if dev.Backend() == "host" && os.Getenv("GPUARR_TEST_LARGE") == "" {
		t.Skip("host backend: set GPUARR_TEST_LARGE=1 to run (4.3 GB)")
	}
	const n = 1<<31 + 4099
	if free, _, err := dev.MemInfo(); err == nil && free < 3*n {
		t.Skipf("%s has %d bytes free, the test needs %d", dev, free, 3*n)
	}
	a := must(gpuarr.Full(gpuarr.Shape{n}, uint8(3)))
	defer a.Release()
	b := must(gpuarr.Eval(gpuarr.Add(a, gpuarr.Scalar[uint8](4))))
	defer b.Release()
	// Mark the last element and find it: the reduction indexes past 2³¹ too.
	tail := must(b.Slice(n-1, n))
	require.NoError(t, gpuarr.EvalInto(tail, gpuarr.Add(tail, gpuarr.Scalar[uint8](1))))
	assert.Equal(t, int64(n-1), must(must(gpuarr.ArgMax[uint8](b)).Item()))
	assert.Equal(t, uint8(7), must(must(gpuarr.Min[uint8](b)).Item()))
	s := must(b.Slice(1<<31-2, 1<<31+2))
	assert.Equal(t, []uint8{7, 7, 7, 7}, values(t, s))
}
