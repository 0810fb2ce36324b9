package device_test

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// Stream.FFT on device memory, on whichever device is selected (cuFFT on
// a GPU, gonum on the host).

// fftRun runs c with the workspace the plan asks for and waits.
func fftRun(t *testing.T, dev *device.Device, s *device.Stream, c device.FFTCall) {
	t.Helper()
	need, err := s.FFTWorkspace(&c.Plan)
	require.NoError(t, err)
	if need > 0 {
		c.Work, c.WorkBytes = alloc(t, dev, need), need
	}
	require.NoError(t, s.FFT(&c))
	require.NoError(t, s.Synchronize())
}

// dft is the direct transform of x (sign −1 forward, +1 inverse).
func dft(x []complex128, sign float64) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	for k := range n {
		for j := range n {
			out[k] += x[j] * cmplx.Exp(complex(0, sign*2*math.Pi*float64(j*k)/float64(n)))
		}
	}
	return out
}

// A batch of strided 1-D transforms (the columns of a 3×5 matrix),
// in place and out of place, forward and inverse, against the direct
// transform.
func TestFFTStridedBatch(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	x := make([]complex128, 15)
	for i := range x {
		x[i] = complex(float64(i%7)-3, float64(i%4))
	}
	in := alloc(t, dev, 15*16)
	out := alloc(t, dev, 15*16)
	require.NoError(t, device.Upload(s, in, x))
	plan := device.FFTPlan{Kind: device.C2C, Type: device.Complex128, Rank: 1, N: [3]int{3}, Batch: 5,
		IStride: 5, IDist: 1, OStride: 5, ODist: 1}
	for _, inverse := range []bool{false, true} {
		fftRun(t, dev, s, device.FFTCall{Plan: plan, Inverse: inverse, In: in, Out: out})
		got := make([]complex128, 15)
		require.NoError(t, device.Download(s, got, out))
		sign := -1.0
		if inverse {
			sign = 1
		}
		for c := range 5 {
			want := dft([]complex128{x[c], x[5+c], x[10+c]}, sign)
			for r := range 3 {
				assert.InDelta(t, 0, cmplx.Abs(got[r*5+c]-want[r]), 1e-12, "inverse=%v (%d,%d)", inverse, r, c)
			}
		}
	}
	// In place.
	fftRun(t, dev, s, device.FFTCall{Plan: plan, In: in, Out: in})
	got := make([]complex128, 15)
	require.NoError(t, device.Download(s, got, in))
	want := dft([]complex128{x[0], x[5], x[10]}, -1)
	assert.InDelta(t, 0, cmplx.Abs(got[5]-want[1]), 1e-12)
}

// R2C then C2R of float32 data gives n times the data back.
func TestFFTRealRoundTrip(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	const n, batch = 12, 3
	x := make([]float32, n*batch)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	in := alloc(t, dev, uint64(len(x))*4)
	spec := alloc(t, dev, batch*(n/2+1)*8)
	back := alloc(t, dev, uint64(len(x))*4)
	require.NoError(t, device.Upload(s, in, x))
	r2c := device.FFTPlan{Kind: device.R2C, Type: device.Complex64, Rank: 1, N: [3]int{n}, Batch: batch,
		IStride: 1, IDist: n, OStride: 1, ODist: n/2 + 1}
	fftRun(t, dev, s, device.FFTCall{Plan: r2c, In: in, Out: spec})
	c2r := r2c
	c2r.Kind, c2r.IDist, c2r.ODist = device.C2R, n/2+1, n
	fftRun(t, dev, s, device.FFTCall{Plan: c2r, Inverse: true, In: spec, Out: back})
	got := make([]float32, len(x))
	require.NoError(t, device.Download(s, got, back))
	for i := range x {
		assert.InDelta(t, float64(x[i])*n, float64(got[i]), 1e-4, "element %d", i)
	}
}

// Bad plans and calls are refused before the library sees them.
func TestFFTRefusesBadCalls(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	good := device.FFTPlan{Kind: device.C2C, Type: device.Complex64, Rank: 1, N: [3]int{8}, Batch: 1,
		IStride: 1, IDist: 8, OStride: 1, ODist: 8}
	bad := func(mod func(p *device.FFTPlan), want string) {
		t.Helper()
		p := good
		mod(&p)
		_, err := s.FFTWorkspace(&p)
		require.ErrorIs(t, err, device.ErrInvalidValue)
		assert.ErrorContains(t, err, want)
	}
	bad(func(p *device.FFTPlan) { p.Kind = 9 }, "transform kind")
	bad(func(p *device.FFTPlan) { p.Type = device.Float32 }, "want Complex64 or Complex128")
	bad(func(p *device.FFTPlan) { p.Rank = 4 }, "rank 4")
	bad(func(p *device.FFTPlan) { p.N[0] = 0 }, "N[0]=0")
	bad(func(p *device.FFTPlan) { p.N[2] = 4 }, "beyond rank")
	bad(func(p *device.FFTPlan) { p.IStride = 0 }, "strides")
	p := good
	buf := alloc(t, dev, 8*8)
	for _, c := range []struct {
		call device.FFTCall
		want string
	}{
		{device.FFTCall{Plan: p, In: 0, Out: buf}, "null data pointer"},
		{device.FFTCall{Plan: device.FFTPlan{Kind: device.R2C, Type: device.Complex64, Rank: 1, N: [3]int{8}, Batch: 1, IStride: 1, OStride: 1}, Inverse: true, In: buf, Out: buf + 64}, "R2C is forward"},
		{device.FFTCall{Plan: device.FFTPlan{Kind: device.C2R, Type: device.Complex64, Rank: 1, N: [3]int{8}, Batch: 1, IStride: 1, OStride: 1}, Inverse: true, In: buf, Out: buf}, "out-of-place only"},
		{device.FFTCall{Plan: device.FFTPlan{Kind: device.C2C, Type: device.Complex64, Rank: 1, N: [3]int{4}, Batch: 2, IStride: 1, IDist: 4, OStride: 2, ODist: 1}, In: buf, Out: buf}, "different input and output layouts"},
	} {
		require.ErrorIs(t, s.FFT(&c.call), device.ErrInvalidValue, c.want)
		assert.ErrorContains(t, s.FFT(&c.call), c.want)
	}
	// A short workspace (the host always asks for one; cuFFT for most).
	need, err := s.FFTWorkspace(&good)
	require.NoError(t, err)
	if need > 0 {
		err := s.FFT(&device.FFTCall{Plan: good, In: buf, Out: buf, Work: buf, WorkBytes: need - 1})
		require.ErrorIs(t, err, device.ErrInvalidValue)
		assert.ErrorContains(t, err, "workspace")
	}
}

// A machine without cuFFT: HideSymbol("libcufft") plays it on either
// backend, and the error names the library.
func TestFFTMissingLibrary(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	restore := dev.HideSymbol("libcufft")
	defer restore()
	p := device.FFTPlan{Kind: device.C2C, Type: device.Complex64, Rank: 1, N: [3]int{8}, Batch: 1, IStride: 1, IDist: 8, OStride: 1, ODist: 8}
	_, err := s.FFTWorkspace(&p)
	require.ErrorIs(t, err, device.ErrNotSupported)
	assert.ErrorContains(t, err, "libcufft.so.12 or libcufft.so.11")
}
