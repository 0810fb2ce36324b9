//go:build cgo

package cuda

import (
	"math/cmplx"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// fftOnes transforms n ones (complex64) on s with a plan from the cache
// and returns the result: n at index 0, zeros elsewhere. It makes no
// assertion, so goroutines may call it.
func fftOnes(d *device, s *stream, n int) ([]complex64, error) {
	x := make([]complex64, n)
	for i := range x {
		x[i] = 1
	}
	var ptrs []driver.Ptr
	defer func() {
		_ = s.Synchronize()
		for _, p := range ptrs {
			_ = d.Free(p)
		}
	}()
	mem := func(b uint64) (driver.Ptr, error) {
		p, err := d.Alloc(b)
		if err == nil {
			ptrs = append(ptrs, p)
		}
		return p, err
	}
	in, err := mem(uint64(8 * n))
	if err != nil {
		return nil, err
	}
	out, err := mem(uint64(8 * n))
	if err != nil {
		return nil, err
	}
	if err := s.CopyHtoD(in, unsafe.Pointer(&x[0]), uint64(8*n)); err != nil {
		return nil, err
	}
	p := driver.FFTPlan{Kind: driver.C2C, Type: dtype.Complex64, Rank: 1, N: [3]int{n}, Batch: 1, IStride: 1, IDist: n, OStride: 1, ODist: n}
	need, err := s.FFTWorkspace(&p)
	if err != nil {
		return nil, err
	}
	var work driver.Ptr
	if need > 0 {
		if work, err = mem(need); err != nil {
			return nil, err
		}
	}
	if err := s.FFT(&driver.FFTCall{Plan: p, In: in, Out: out, Work: work, WorkBytes: need}); err != nil {
		return nil, err
	}
	got := make([]complex64, n)
	if err := s.CopyDtoH(unsafe.Pointer(&got[0]), out, uint64(8*n)); err != nil {
		return nil, err
	}
	return got, s.Synchronize()
}

// More plans than the cache holds: the least recently used go, the cache
// stays bounded, and an evicted plan is made again when needed.
func TestFFTPlanCacheBounded(t *testing.T) {
	d := gpu(t)
	s := newStream(t, d)
	if err := loadCufft(d.info.DriverVersion); err != nil {
		t.Skipf("needs cuFFT: %v", err)
	}
	for n := 2; n < maxFFTPlans+20; n++ {
		got, err := fftOnes(d, s, n)
		require.NoError(t, err)
		assert.InDelta(t, float64(n), float64(real(got[0])), 1e-3, "n=%d", n)
		assert.InDelta(t, 0, cmplx.Abs(complex128(got[n-1])), 1e-3, "n=%d", n)
	}
	d.ffts.mu.Lock()
	size := len(d.ffts.m)
	d.ffts.mu.Unlock()
	assert.LessOrEqual(t, size, maxFFTPlans)
	got, err := fftOnes(d, s, 2)
	require.NoError(t, err)
	assert.InDelta(t, 2, float64(real(got[0])), 1e-6)
}

// One plan serves several streams at once: its stream and work area are
// set per call, under the plan's lock.
func TestFFTPlanSharedByStreams(t *testing.T) {
	d := gpu(t)
	if err := loadCufft(d.info.DriverVersion); err != nil {
		t.Skipf("needs cuFFT: %v", err)
	}
	var wg sync.WaitGroup
	for range 4 {
		s := newStream(t, d)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				got, err := fftOnes(d, s, 1000)
				if !assert.NoError(t, err) || !assert.InDelta(t, 1000, float64(real(got[0])), 1e-2) {
					return
				}
			}
		}()
	}
	wg.Wait()
}
