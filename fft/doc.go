// Package fft is discrete Fourier transforms of gpuarr arrays, NumPy's
// numpy.fft: complex transforms (FFT, IFFT), transforms of real data
// (RFFT, IRFFT), their 2-D and N-D forms over chosen axes, and the
// helpers FFTFreq, RFFTFreq, FFTShift and IFFTShift. They run NVIDIA's
// cuFFT on a GPU and gonum's dsp/fourier on the host device, with the
// same results within rounding.
//
//	X, err := fft.FFT(x)                              // along the last axis
//	X, err := fft.FFT(x, fft.Axis(0), fft.N(1024))    // axis 0, cut or padded to 1024
//	S, err := fft.RFFT2[complex64](img, fft.Norm(fft.Ortho))
//	y, err := fft.IRFFT[float32](S1, fft.N(9))        // 9 real points
//
// Example and the other examples run these.
//
// # Arguments and options
//
// The complex functions take complex64 and complex128 arrays and return
// the input's type. The real ones take float32 or float64 (RFFT*) or
// their complex types (IRFFT*) and are told the other type, which Go
// cannot derive: RFFT[complex64] of a float32 array, IRFFT[float32] of a
// complex64 one (a mismatched pair is an error naming the right call).
// Options, as NumPy's keyword arguments:
//
//	N(n), Axis(k)     the 1-D functions: NumPy's n and axis (default -1)
//	S(…), Axes(…)     the 2-D and N-D functions: NumPy's s and axes
//	Norm(mode)        Backward (default), Ortho or Forward, NumPy's norm
//
// and gpuarr.On or gpuarr.OnDevice for the stream. Every axis not
// transformed is a batch. N and S cut the input to its first n elements
// along an axis or pad it with zeros; for the real inverses they are the
// output's real lengths (default 2(m−1) along the last axis). Arguments
// may be any arrays, strided views included; they are never changed.
// Results are new contiguous arrays on the stream's device.
//
// # How it runs
//
// Each call is one cuFFT plan per run of up to three consecutive
// transformed axes, the other axes its batch (engine.go): FFT of a vector,
// FFT2 of a matrix and RFFT of a vector are one library call each, and no
// axis is moved. A copy is made only to cut, pad or make the input
// contiguous, and for the real inverses, whose library call overwrites
// its input; the Norm scaling is folded into that copy or is one fused
// pass. Plans are cached per device and serve every stream; each call's
// workspace is a pooled array on its stream, so it counts against the
// memory limits like any array. Calls return once the work is queued.
// libcufft is opened the first time a stream transforms (libcufft.so.12,
// else .11; GPUARR_CUFFT_LIB names another file).
//
// # Precision
//
// complex64 and float32 data is transformed in single precision on a GPU
// (as NumPy 2 does; NumPy 1 computes in double) and in double precision
// and rounded once on the host; complex128 and float64 in double. The
// error of an n-point transform is about ε·log₂n times the size of the
// result; the tests hold both backends to 8·ε·(log₂n + 1)·rms(result)
// elementwise against NumPy (testdata/gen_goldens.py).
//
// # Errors
//
// gpuarr.ErrArgument for a nil array, a bad option, axis or length, a
// repeated axis (NumPy transforms it twice: see gpuarr's table of
// differences) or a mismatched element type; gpuarr.ErrShape when there
// is no point to transform; gpuarr.ErrReleased; device.ErrStreamCapture
// on a capturing stream (library calls are not recorded into graphs);
// device.ErrNotSupported without cuFFT. Each names the call (fft.FFT …)
// and what was wrong.
//
// # Boundaries
//
// This package owns the transform API and the layout of its plans. It
// issues its library calls through arrayhook.Track (engine.go) and the
// device package's FFT calls (device.Stream.FFT); the bindings are
// device/cuda's and device/host's. It must not allocate device memory
// except as gpuarr arrays.
package fft
