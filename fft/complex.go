package fft

import (
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// FFT is the discrete Fourier transform of x along one axis (NumPy's
// fft.fft): X[k] = Σⱼ x[j]·exp(−2πi·jk/n), scaled as Norm says (by 1 by
// default). It takes N (cut or pad the axis to n points), Axis (default
// -1), Norm and gpuarr.On or gpuarr.OnDevice; every other axis is a
// batch. The result is a new contiguous array of x's shape with n along
// the axis, of x's type, on the stream's device. Errors match
// gpuarr.ErrArgument (a nil array, a bad option or axis), gpuarr.ErrShape
// (no point to transform), gpuarr.ErrReleased, or device.ErrNotSupported
// naming cuFFT when it cannot be loaded.
func FFT[C gpuarr.ComplexFloat](x *gpuarr.Array[C], opts ...gpuarr.Option) (*gpuarr.Array[C], error) {
	return c2c("fft.FFT", x, false, false, nil, opts)
}

// IFFT is the inverse discrete Fourier transform along one axis (NumPy's
// fft.ifft): x[j] = (1/n)·Σₖ X[k]·exp(+2πi·jk/n) with the default
// Backward norm. Options, result and errors as FFT's.
func IFFT[C gpuarr.ComplexFloat](x *gpuarr.Array[C], opts ...gpuarr.Option) (*gpuarr.Array[C], error) {
	return c2c("fft.IFFT", x, true, false, nil, opts)
}

// FFT2 is the 2-D discrete Fourier transform (NumPy's fft.fft2): FFTN
// over the last two axes unless Axes says otherwise.
func FFT2[C gpuarr.ComplexFloat](x *gpuarr.Array[C], opts ...gpuarr.Option) (*gpuarr.Array[C], error) {
	return c2c("fft.FFT2", x, false, true, []int{-2, -1}, opts)
}

// IFFT2 is the inverse of FFT2 (NumPy's fft.ifft2).
func IFFT2[C gpuarr.ComplexFloat](x *gpuarr.Array[C], opts ...gpuarr.Option) (*gpuarr.Array[C], error) {
	return c2c("fft.IFFT2", x, true, true, []int{-2, -1}, opts)
}

// FFTN is the N-D discrete Fourier transform (NumPy's fft.fftn): the
// 1-D transform along each of the axes Axes names (every axis by
// default; the last len(s) with S), with lengths S, scaled once by Norm
// for the product of the lengths. Other axes are a batch. Up to three
// consecutive axes are one library call. Errors as FFT's.
func FFTN[C gpuarr.ComplexFloat](x *gpuarr.Array[C], opts ...gpuarr.Option) (*gpuarr.Array[C], error) {
	return c2c("fft.FFTN", x, false, true, nil, opts)
}

// IFFTN is the inverse of FFTN (NumPy's fft.ifftn).
func IFFTN[C gpuarr.ComplexFloat](x *gpuarr.Array[C], opts ...gpuarr.Option) (*gpuarr.Array[C], error) {
	return c2c("fft.IFFTN", x, true, true, nil, opts)
}

// c2c runs a complex transform: the axes and lengths from the options,
// a working copy only when the input must be cut, padded or made
// contiguous (with the scaling folded in), else out-of-place from x into
// the result and the scaling after.
func c2c[C gpuarr.ComplexFloat](call string, x *gpuarr.Array[C], inverse, nd bool, defAxes []int, opts []gpuarr.Option) (*gpuarr.Array[C], error) {
	return named[C](call)(c2cRun(call, x, inverse, nd, defAxes, opts))
}

func c2cRun[C gpuarr.ComplexFloat](call string, x *gpuarr.Array[C], inverse, nd bool, defAxes []int, opts []gpuarr.Option) (*gpuarr.Array[C], error) {
	st, err := setUp(call, x, nd, defAxes, false, opts)
	if err != nil {
		return nil, err
	}
	c, axes, lens, s := st.c, st.axes, st.lens, st.s
	sh := with(x.Shape(), axes, lens)
	if prod(sh) == 0 {
		return gpuarr.Zeros[C](sh, on(s))
	}
	sc := complexScale[C](c.scale(prod(lens), inverse))
	stages := c2cStages(dtype.Of[C](), sh, sortedActive(axes, lens, -1), inverse)
	if len(stages) > 0 && contiguous(x) && x.Shape().Equal(sh) {
		out, err := gpuarr.Empty[C](sh, on(s))
		if err != nil {
			return nil, err
		}
		err = execute(call, s, x, out, false, false, stages)
		if err == nil {
			err = scaleInPlace(out, sc, s)
		}
		if err != nil {
			out.Release()
			return nil, err
		}
		return out, nil
	}
	w, err := prepare(x, sh, sc, s)
	if err != nil {
		return nil, err
	}
	if err := execute(call, s, w, w, true, false, stages); err != nil {
		w.Release()
		return nil, err
	}
	return w, nil
}
