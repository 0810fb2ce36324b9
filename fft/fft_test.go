package fft_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/fft"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// These run on whichever device is selected (cuFFT on a GPU, gonum on
// the host). Tolerances: as the golden set's, 8·ε·(log₂n + 1) times the
// root mean square of the expected values.

func randComplex[C complex64 | complex128](rng *rand.Rand, n int) []C {
	v := make([]C, n)
	for i := range v {
		v[i] = C(complex(rng.NormFloat64(), rng.NormFloat64()))
	}
	return v
}

func randReal[R float32 | float64](rng *rand.Rand, n int) []R {
	v := make([]R, n)
	for i := range v {
		v[i] = R(rng.NormFloat64())
	}
	return v
}

func epsOf[T complex64 | complex128 | float32 | float64]() float64 {
	var z T
	switch any(z).(type) {
	case complex64, float32:
		return 1.1920928955078125e-07
	}
	return 2.220446049250313e-16
}

// near checks got ≈ want elementwise within the tolerance for n points.
func near[T complex64 | complex128 | float32 | float64](t *testing.T, want, got []T, n int, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	var ss float64
	for _, w := range want {
		c := complex128(complex(toC(w)))
		ss += real(c)*real(c) + imag(c)*imag(c)
	}
	tol := 8 * epsOf[T]() * (math.Log2(float64(max(n, 2))) + 1) * math.Sqrt(ss/float64(max(1, len(want))))
	for i := range want {
		a, b := complex(toC(want[i])), complex(toC(got[i]))
		require.LessOrEqual(t, cmplx.Abs(a-b), tol, "%s: element %d: want %v, got %v", what, i, want[i], got[i])
	}
}

func toC[T complex64 | complex128 | float32 | float64](v T) (float64, float64) {
	switch x := any(v).(type) {
	case complex64:
		return float64(real(x)), float64(imag(x))
	case complex128:
		return real(x), imag(x)
	case float32:
		return float64(x), 0
	case float64:
		return x, 0
	}
	return 0, 0
}

func slice[T gpuarr.Element](t *testing.T, a *gpuarr.Array[T]) []T {
	t.Helper()
	v, err := a.ToSlice()
	require.NoError(t, err)
	return v
}

func upload[T gpuarr.Element](t *testing.T, v []T, sh gpuarr.Shape) *gpuarr.Array[T] {
	t.Helper()
	a, err := gpuarr.FromSlice(v, sh)
	require.NoError(t, err)
	t.Cleanup(func() { a.Release() })
	return a
}

var norms = []fft.NormMode{fft.Backward, fft.Ortho, fft.Forward}

// The inverse of each transform, with the same norm, gives the input
// back: complex 1-D and N-D, real 1-D (even and odd lengths, which need
// N) and N-D, both precisions.
func TestRoundTrips(t *testing.T) {
	t.Run("complex128", func(t *testing.T) { roundTrips[complex128, float64](t) })
	t.Run("complex64", func(t *testing.T) { roundTrips[complex64, float32](t) })
}

func roundTrips[C complex64 | complex128, R float32 | float64](t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range []gpuarr.Shape{{1}, {7}, {16}, {97}, {4, 9}, {3, 5, 6}, {2, 3, 2, 5}} {
		for _, nm := range norms {
			x := upload(t, randComplex[C](rng, sh.Len()), sh)
			y, err := fft.FFT(x, fft.Norm(nm))
			require.NoError(t, err)
			z, err := fft.IFFT(y, fft.Norm(nm))
			require.NoError(t, err)
			near(t, slice(t, x), slice(t, z), sh[len(sh)-1], "IFFT(FFT)")
			y2, err := fft.FFTN(x, fft.Norm(nm))
			require.NoError(t, err)
			z2, err := fft.IFFTN(y2, fft.Norm(nm))
			require.NoError(t, err)
			near(t, slice(t, x), slice(t, z2), sh.Len(), "IFFTN(FFTN)")
			release(y, z, y2, z2)

			r := upload(t, randReal[R](rng, sh.Len()), sh)
			n := sh[len(sh)-1]
			rs, err := fft.RFFT[C](r, fft.Norm(nm))
			require.NoError(t, err)
			rb, err := fft.IRFFT[R](rs, fft.N(n), fft.Norm(nm))
			require.NoError(t, err)
			near(t, slice(t, r), slice(t, rb), n, "IRFFT(RFFT)")
			rsn, err := fft.RFFTN[C](r, fft.Norm(nm))
			require.NoError(t, err)
			rbn, err := fft.IRFFTN[R](rsn, fft.S(sh...), fft.Norm(nm))
			require.NoError(t, err)
			near(t, slice(t, r), slice(t, rbn), sh.Len(), "IRFFTN(RFFTN)")
			release(rs, rsn)
			release(rb, rbn)
		}
	}
}

func release[T gpuarr.Element](a ...*gpuarr.Array[T]) {
	for _, x := range a {
		x.Release()
	}
}

// Parseval: Σ|x|² = Σ|X|²/n for the default norm, = Σ|X|² for Ortho.
func TestParseval(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sh := range []gpuarr.Shape{{100}, {17, 6}, {8, 8, 8}} {
		v := randComplex[complex128](rng, sh.Len())
		x := upload(t, v, sh)
		var ex float64
		for _, c := range v {
			ex += real(c)*real(c) + imag(c)*imag(c)
		}
		for _, nm := range []fft.NormMode{fft.Backward, fft.Ortho} {
			y, err := fft.FFTN(x, fft.Norm(nm))
			require.NoError(t, err)
			var ey float64
			for _, c := range slice(t, y) {
				ey += real(c)*real(c) + imag(c)*imag(c)
			}
			if nm == fft.Backward {
				ey /= float64(sh.Len())
			}
			assert.InEpsilon(t, ex, ey, 1e-12, "%v %v", sh, nm)
			y.Release()
		}
	}
}

// Strided views (a transpose, a reversed step, an offset slice) are
// transformed as their contiguous copies would be, and left unchanged.
func TestStridedInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	v := randComplex[complex64](rng, 6*10)
	x := upload(t, v, gpuarr.Shape{6, 10})
	tr, err := x.Transpose()
	require.NoError(t, err)
	defer tr.Release()
	sl, err := x.Index(gpuarr.S(1, 5), gpuarr.S(2, 10).Step(2))
	require.NoError(t, err)
	defer sl.Release()
	for name, view := range map[string]*gpuarr.Array[complex64]{"transpose": tr, "slice": sl} {
		c, err := gpuarr.Clone(view)
		require.NoError(t, err)
		for _, axis := range []int{0, 1} {
			want, err := fft.FFT(c, fft.Axis(axis))
			require.NoError(t, err)
			got, err := fft.FFT(view, fft.Axis(axis))
			require.NoError(t, err)
			near(t, slice(t, want), slice(t, got), 10, name)
			release(want, got)
		}
		c.Release()
	}
	assert.Equal(t, v, slice(t, x), "the input changed")
}

// Every axis not transformed is a batch: FFT along axis 1 of a [3, 5, 4]
// array equals FFT of each [:, :, k] column taken apart.
func TestBatchAxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	v := randComplex[complex128](rng, 60)
	x := upload(t, v, gpuarr.Shape{3, 5, 4})
	y, err := fft.FFT(x, fft.Axis(1), fft.N(7))
	require.NoError(t, err)
	require.Equal(t, gpuarr.Shape{3, 7, 4}, y.Shape())
	got := slice(t, y)
	for i := range 3 {
		for k := range 4 {
			col := make([]complex128, 7)
			for j := range 5 {
				col[j] = v[(i*5+j)*4+k]
			}
			want := dft(col)
			for j := range 7 {
				assert.InDelta(t, 0, cmplx.Abs(got[(i*7+j)*4+k]-want[j]), 1e-12)
			}
		}
	}
	// An empty batch gives an empty result of NumPy's shape.
	e, err := gpuarr.Zeros[complex64](gpuarr.Shape{0, 8})
	require.NoError(t, err)
	ye, err := fft.RFFT[complex64](must(gpuarr.Zeros[float32](gpuarr.Shape{0, 8})))
	require.NoError(t, err)
	assert.Equal(t, gpuarr.Shape{0, 5}, ye.Shape())
	ce, err := fft.FFT(e)
	require.NoError(t, err)
	assert.Equal(t, gpuarr.Shape{0, 8}, ce.Shape())
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func dft(x []complex128) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	for k := range n {
		for j := range n {
			out[k] += x[j] * cmplx.Exp(complex(0, -2*math.Pi*float64(j*k)/float64(n)))
		}
	}
	return out
}

// IRFFT ignores the imaginary parts of the terms that must be real (the
// first, and the last for even n) as NumPy does, on both backends.
func TestIRFFTIgnoresImaginaryDCAndNyquist(t *testing.T) {
	clean := []complex128{4, 1 - 2i, 3 + 1i, 0.5, -1}
	dirty := append([]complex128(nil), clean...)
	dirty[0] += 5i
	dirty[4] -= 3i
	for _, n := range []int{8, 9} {
		a, err := fft.IRFFT[float64](upload(t, clean, gpuarr.Shape{5}), fft.N(n))
		require.NoError(t, err)
		b, err := fft.IRFFT[float64](upload(t, dirty, gpuarr.Shape{5}), fft.N(n))
		require.NoError(t, err)
		if n == 8 {
			assert.InDeltaSlice(t, slice(t, a), slice(t, b), 1e-14)
		} else {
			// Odd n: the last term is not a Nyquist term; its imaginary
			// part counts (NumPy's irfft).
			assert.NotEqual(t, slice(t, a), slice(t, b))
		}
	}
	// The input is never changed (cuFFT overwrites C2R's input: the
	// transform works on a copy).
	x := upload(t, dirty, gpuarr.Shape{5})
	_, err := fft.IRFFT[float64](x)
	require.NoError(t, err)
	assert.Equal(t, dirty, slice(t, x))
}

// Bad arguments are errors naming what was wrong.
func TestErrors(t *testing.T) {
	x := upload(t, []complex64{1, 2, 3, 4}, gpuarr.Shape{2, 2})
	r := upload(t, []float32{1, 2, 3, 4}, gpuarr.Shape{4})
	gone := upload(t, []complex64{1}, gpuarr.Shape{1})
	require.NoError(t, gone.Release())
	scalar, err := gpuarr.Full[complex64](gpuarr.Shape{}, 1)
	require.NoError(t, err)
	defer scalar.Release()
	one := upload(t, []complex64{1}, gpuarr.Shape{1})
	x3 := upload(t, make([]complex64, 8), gpuarr.Shape{2, 2, 2})
	empty := upload(t, []complex64{}, gpuarr.Shape{0})
	for _, c := range []struct {
		name string
		err  error
		want error
		msg  string
	}{
		{"nil", second(fft.FFT[complex64](nil)), gpuarr.ErrArgument, "nil array"},
		{"released", second(fft.FFT(gone)), gpuarr.ErrReleased, "fft.FFT"},
		{"axis", second(fft.FFT(x, fft.Axis(2))), gpuarr.ErrArgument, "axis 2 is out of range"},
		{"negative axis", second(fft.IFFT(x, fft.Axis(-3))), gpuarr.ErrArgument, "axis -3"},
		{"n<1", second(fft.FFT(x, fft.N(0))), gpuarr.ErrArgument, "fft.N(0)"},
		{"s<1", second(fft.FFTN(x, fft.S(2, -1))), gpuarr.ErrArgument, "fft.S(2, -1)"},
		{"s and axes", second(fft.FFTN(x, fft.S(2, 2), fft.Axes(0))), gpuarr.ErrArgument, "one length per axis"},
		{"s too long", second(fft.FFTN(x, fft.S(2, 2, 2))), gpuarr.ErrArgument, "3 lengths"},
		{"fft2 s", second(fft.FFT2(x3, fft.S(2, 2, 2))), gpuarr.ErrArgument, "3 lengths for the 2 axes"},
		{"twice", second(fft.FFTN(x, fft.Axes(0, -2))), gpuarr.ErrArgument, "twice"},
		{"no axes", second(fft.FFTN(x, fft.Axes())), gpuarr.ErrArgument, "no axes"},
		{"N on FFTN", second(fft.FFTN(x, fft.N(3))), gpuarr.ErrArgument, "fft.FFTN does not take the option fft.N(3)"},
		{"Axes on FFT", second(fft.FFT(x, fft.Axes(0))), gpuarr.ErrArgument, "fft.FFT does not take the option fft.Axes(0)"},
		{"norm", second(fft.FFT(x, fft.Norm(7))), gpuarr.ErrArgument, "NormMode(7)"},
		{"scalar", second(fft.FFT(scalar)), gpuarr.ErrShape, "scalar"},
		{"empty axis", second(fft.FFT(empty)), gpuarr.ErrShape, "at least 1 point"},
		{"irfft of one term", second(fft.IRFFT[float32](one)), gpuarr.ErrShape, "2(m−1) is 0"},
		{"rfft pair", second(fft.RFFT[complex128](r)), gpuarr.ErrArgument, "call fft.RFFT[complex64]"},
		{"irfft pair", second(fft.IRFFT[float64](x)), gpuarr.ErrArgument, "call fft.IRFFT[float32]"},
		{"other option", second(fft.FFT(x, gpuarr.KeepDims())), gpuarr.ErrArgument, "KeepDims"},
		{"freq", second(fft.FFTFreq[float64](0, 1)), gpuarr.ErrArgument, "n=0"},
		{"shift norm", second(fft.FFTShift(x, fft.Norm(fft.Ortho))), gpuarr.ErrArgument, "takes Axes"},
	} {
		require.ErrorIs(t, c.err, c.want, c.name)
		assert.ErrorContains(t, c.err, c.msg, c.name)
	}
	// gpuarr's own calls refuse this package's options by name.
	_, err = gpuarr.Sum(x, fft.N(3))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.ErrorContains(t, err, "fft.N(3)")
}

func second[T any](_ T, err error) error { return err }

// Without cuFFT the error names the library (HideSymbol("libcufft")
// plays a machine without it on either backend).
func TestMissingLibrary(t *testing.T) {
	dev := testutil.Device(t)
	restore := dev.HideSymbol("libcufft")
	defer restore()
	x := upload(t, []complex64{1, 2, 3, 4}, gpuarr.Shape{4})
	_, err := fft.FFT(x)
	require.ErrorIs(t, err, device.ErrNotSupported)
	assert.ErrorContains(t, err, "libcufft.so.12 or libcufft.so.11")
	assert.ErrorContains(t, err, "fft.FFT")
}

// On(s) runs the transform on s; the result lives on s's device.
func TestStreamOption(t *testing.T) {
	dev := testutil.Device(t)
	s := testutil.Stream(t, dev)
	x := upload(t, []complex128{1, 1, 1, 1}, gpuarr.Shape{4})
	y, err := fft.FFT(x, gpuarr.On(s))
	require.NoError(t, err)
	assert.Equal(t, dev, y.Device())
	assert.Equal(t, []complex128{4, 0, 0, 0}, slice(t, y))
}

// NumPy's examples of fftfreq, rfftfreq, fftshift and ifftshift.
func TestFreqAndShift(t *testing.T) {
	f, err := fft.FFTFreq[float64](8, 0.1)
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{0, 1.25, 2.5, 3.75, -5, -3.75, -2.5, -1.25}, slice(t, f), 1e-12)
	f, err = fft.FFTFreq[float64](5, 1)
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{0, 0.2, 0.4, -0.4, -0.2}, slice(t, f), 1e-12)
	rf, err := fft.RFFTFreq[float32](9, 0.5)
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float32{0, 2.0 / 9, 4.0 / 9, 6.0 / 9, 8.0 / 9}, slice(t, rf), 1e-6)

	v := make([]complex64, 15)
	for i := range v {
		v[i] = complex(float32(i), 0)
	}
	x := upload(t, v, gpuarr.Shape{3, 5})
	s, err := fft.FFTShift(x)
	require.NoError(t, err)
	// NumPy: fftshift(arange(15).reshape(3, 5)) rolls rows by 1, columns by 2.
	assert.Equal(t, []complex64{13, 14, 10, 11, 12, 3, 4, 0, 1, 2, 8, 9, 5, 6, 7}, slice(t, s))
	b, err := fft.IFFTShift(s)
	require.NoError(t, err)
	assert.Equal(t, v, slice(t, b))
	s1, err := fft.FFTShift(x, fft.Axes(1))
	require.NoError(t, err)
	assert.Equal(t, []complex64{3, 4, 0, 1, 2, 8, 9, 5, 6, 7, 13, 14, 10, 11, 12}, slice(t, s1))
}

// Transforms on several streams at once, sharing plans (and, on CUDA,
// the device's plan cache), each checked: run under GPUARR_HOST_CHECK=1
// it also shuffles the host streams' timing.
func TestConcurrentStreams(t *testing.T) {
	dev := testutil.Device(t)
	type result struct {
		want, got []complex128
	}
	const workers = 4
	out := make(chan result, workers*5)
	done := make(chan error, workers)
	for w := range workers {
		s := testutil.Stream(t, dev)
		go func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for i := range 5 {
				sh := gpuarr.Shape{3, 16 + i}
				v := randComplex[complex128](rng, sh.Len())
				x, err := gpuarr.FromSlice(v, sh, gpuarr.On(s))
				if err != nil {
					done <- err
					return
				}
				y, err := fft.FFT(x, gpuarr.On(s))
				if err == nil {
					var z *gpuarr.Array[complex128]
					if z, err = fft.IFFT(y, gpuarr.On(s)); err == nil {
						var got []complex128
						if got, err = z.ToSlice(); err == nil {
							out <- result{v, got}
						}
						z.Release()
					}
					y.Release()
				}
				x.Release()
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range workers {
		require.NoError(t, <-done)
	}
	close(out)
	n := 0
	for r := range out {
		near(t, r.want, r.got, 20, "IFFT(FFT) on a stream of its own")
		n++
	}
	assert.Equal(t, workers*5, n)
}
