package fft

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// RFFT is the discrete Fourier transform of real x along one axis
// (NumPy's fft.rfft): the n/2+1 non-negative frequency terms of FFT (the
// others are their complex conjugates). C is the complex type of x's
// parts, named at the call since Go cannot derive it:
//
//	X, err := fft.RFFT[complex64](x) // x an *Array[float32]
//
// A C that does not match x's type is an error matching
// gpuarr.ErrArgument. N sets the number of real input points (cut or
// padded); options, result and errors otherwise as FFT's.
func RFFT[C gpuarr.ComplexFloat, R gpuarr.Float](x *gpuarr.Array[R], opts ...gpuarr.Option) (*gpuarr.Array[C], error) {
	return r2c[C]("fft.RFFT", x, false, nil, opts)
}

// IRFFT is the inverse of RFFT (NumPy's fft.irfft): n real points from
// the n/2+1 coefficients of a Hermitian-symmetric spectrum along the axis.
// n is N, else 2(m−1) for m input coefficients, and the input is cut or
// padded to n/2+1 of them. As NumPy's, it ignores the imaginary parts of
// the coefficients that must be real (the first, and for even n the
// last). R is the part type of x's complex type:
//
//	y, err := fft.IRFFT[float32](X, fft.N(9)) // X an *Array[complex64]
//
// The input is never changed (the library overwrites a working copy).
// Options and errors as FFT's.
func IRFFT[R gpuarr.Float, C gpuarr.ComplexFloat](x *gpuarr.Array[C], opts ...gpuarr.Option) (*gpuarr.Array[R], error) {
	return c2r[R]("fft.IRFFT", x, false, nil, opts)
}

// RFFT2 is RFFTN over the last two axes unless Axes says otherwise
// (NumPy's fft.rfft2).
func RFFT2[C gpuarr.ComplexFloat, R gpuarr.Float](x *gpuarr.Array[R], opts ...gpuarr.Option) (*gpuarr.Array[C], error) {
	return r2c[C]("fft.RFFT2", x, true, []int{-2, -1}, opts)
}

// IRFFT2 is IRFFTN over the last two axes unless Axes says otherwise
// (NumPy's fft.irfft2).
func IRFFT2[R gpuarr.Float, C gpuarr.ComplexFloat](x *gpuarr.Array[C], opts ...gpuarr.Option) (*gpuarr.Array[R], error) {
	return c2r[R]("fft.IRFFT2", x, true, []int{-2, -1}, opts)
}

// RFFTN is the N-D transform of real x (NumPy's fft.rfftn): RFFT along
// the last of the axes, then FFT along the others; the last axis keeps
// n/2+1 terms. Axes and S as for FFTN.
func RFFTN[C gpuarr.ComplexFloat, R gpuarr.Float](x *gpuarr.Array[R], opts ...gpuarr.Option) (*gpuarr.Array[C], error) {
	return r2c[C]("fft.RFFTN", x, true, nil, opts)
}

// IRFFTN is the inverse of RFFTN (NumPy's fft.irfftn): IFFT along all
// but the last of the axes, then IRFFT along the last (whose output
// length is the last of S, else 2(m−1)).
func IRFFTN[R gpuarr.Float, C gpuarr.ComplexFloat](x *gpuarr.Array[C], opts ...gpuarr.Option) (*gpuarr.Array[R], error) {
	return c2r[R]("fft.IRFFTN", x, true, nil, opts)
}

// pair checks that C is the complex type of R's parts.
func pair[C gpuarr.ComplexFloat, R gpuarr.Float](call string, realFirst bool) error {
	ct, rt := dtype.Of[C](), dtype.Of[R]()
	if complexOf[R]() == ct {
		return nil
	}
	want := "complex64"
	if rt == dtype.Float64 {
		want = "complex128"
	}
	if realFirst {
		return fmt.Errorf("%s values have %s parts, not %s: call %s[%s]: %w", ct, expart(ct), rt, call, expart(ct), gpuarr.ErrArgument)
	}
	return fmt.Errorf("the transform of %s values is %s, not %s: call %s[%s]: %w", rt, want, ct, call, want, gpuarr.ErrArgument)
}

func expart(ct device.DType) string {
	if ct == dtype.Complex64 {
		return "float32"
	}
	return "float64"
}

// realSetUp starts a real transform of x (c2r: complex to real): it
// checks the type pair and sets up the axes; r is the real axis (the last
// transformed) and nr its length.
func realSetUp[C gpuarr.ComplexFloat, R gpuarr.Float, T gpuarr.Element](call string, x *gpuarr.Array[T], nd bool, defAxes []int, c2r bool, opts []gpuarr.Option) (st setup, r, nr int, err error) {
	if err := pair[C, R](call, c2r); err != nil {
		return setup{}, 0, 0, err
	}
	if st, err = setUp(call, x, nd, defAxes, c2r, opts); err != nil {
		return setup{}, 0, 0, err
	}
	last := len(st.axes) - 1
	return st, st.axes[last], st.lens[last], nil
}

func r2c[C gpuarr.ComplexFloat, R gpuarr.Float](call string, x *gpuarr.Array[R], nd bool, defAxes []int, opts []gpuarr.Option) (*gpuarr.Array[C], error) {
	return named[C](call)(r2cRun[C](call, x, nd, defAxes, opts))
}

func r2cRun[C gpuarr.ComplexFloat, R gpuarr.Float](call string, x *gpuarr.Array[R], nd bool, defAxes []int, opts []gpuarr.Option) (*gpuarr.Array[C], error) {
	st, r, nr, err := realSetUp[C, R](call, x, nd, defAxes, false, opts)
	if err != nil {
		return nil, err
	}
	c, axes, lens, s := st.c, st.axes, st.lens, st.s
	ct := dtype.Of[C]()
	ish := with(x.Shape(), axes, lens)
	osh := append(gpuarr.Shape(nil), ish...)
	osh[r] = nr/2 + 1
	if prod(ish) == 0 {
		return gpuarr.Zeros[C](osh, on(s))
	}
	f := c.scale(prod(lens), false)
	w, sc := x, realScale[R](f)
	if !contiguous(x) || !x.Shape().Equal(ish) {
		if w, err = prepare(x, ish, sc, s); err != nil {
			return nil, err
		}
		defer w.Release()
		sc = nil
	}
	var out *gpuarr.Array[C]
	rest := sortedActive(axes, lens, r)
	if nr == 1 {
		// One real point: its transform is itself.
		var re gpuarr.Operand[R] = w
		if sc != nil {
			re = sc(w)
		}
		if out, err = gpuarr.Eval(gpuarr.Complex[C](re, gpuarr.Scalar[R](0)), on(s)); err != nil {
			return nil, err
		}
		sc = nil
		err = execute(call, s, out, out, true, false, c2cStages(ct, osh, rest, false))
	} else {
		// The real chunk: the real axis and up to two transformed axes
		// just before it.
		ch := chunk{r, r}
		in := map[int]bool{}
		for _, a := range rest {
			in[a] = true
		}
		for ch.lo > 0 && in[ch.lo-1] && ch.hi-ch.lo+1 < device.MaxFFTRank {
			ch.lo--
			delete(in, ch.lo)
		}
		var others []int
		for _, a := range rest {
			if in[a] {
				others = append(others, a)
			}
		}
		if out, err = gpuarr.Empty[C](osh, on(s)); err != nil {
			return nil, err
		}
		stages := append([]stage{stageFor(device.R2C, ct, ish, osh, ch, false)}, c2cStages(ct, osh, others, false)...)
		err = execute(call, s, w, out, false, false, stages)
	}
	if err == nil {
		err = scaleInPlace(out, complexScale[C](factorOf(sc, f)), s)
	}
	if err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// factorOf is f when the scaling is still to do (sc not nil), else 1.
func factorOf[T gpuarr.Element](sc scaler[T], f float64) float64 {
	if sc == nil {
		return 1
	}
	return f
}

func c2r[R gpuarr.Float, C gpuarr.ComplexFloat](call string, x *gpuarr.Array[C], nd bool, defAxes []int, opts []gpuarr.Option) (*gpuarr.Array[R], error) {
	return named[R](call)(c2rRun[R](call, x, nd, defAxes, opts))
}

func c2rRun[R gpuarr.Float, C gpuarr.ComplexFloat](call string, x *gpuarr.Array[C], nd bool, defAxes []int, opts []gpuarr.Option) (*gpuarr.Array[R], error) {
	st, r, nr, err := realSetUp[C, R](call, x, nd, defAxes, true, opts)
	if err != nil {
		return nil, err
	}
	c, axes, lens, s := st.c, st.axes, st.lens, st.s
	ct := dtype.Of[C]()
	osh := with(x.Shape(), axes, lens)
	wsh := append(gpuarr.Shape(nil), osh...)
	wsh[r] = nr/2 + 1
	if prod(osh) == 0 {
		return gpuarr.Zeros[R](osh, on(s))
	}
	// The working copy: cut or padded, scaled, and then overwritten by the
	// library; x is only read.
	w, err := prepare(x, wsh, complexScale[C](c.scale(prod(lens), true)), s)
	if err != nil {
		return nil, err
	}
	defer w.Release()
	if err := execute(call, s, w, w, true, false, c2cStages(ct, wsh, sortedActive(axes, lens, r), true)); err != nil {
		return nil, err
	}
	if nr == 1 {
		return gpuarr.Eval(gpuarr.Real[R](w), on(s))
	}
	// The coefficients that must be real: keep their real parts only.
	for _, k := range []int{0, nr / 2} {
		if k == nr/2 && nr%2 == 1 {
			continue
		}
		if err := zeroImag[R](w, r, k, s); err != nil {
			return nil, err
		}
	}
	out, err := gpuarr.Empty[R](osh, on(s))
	if err != nil {
		return nil, err
	}
	if err := execute(call, s, w, out, false, true, []stage{stageFor(device.C2R, ct, wsh, osh, chunk{r, r}, true)}); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// zeroImag zeroes the imaginary parts of index k along axis ax of w.
func zeroImag[R gpuarr.Float, C gpuarr.ComplexFloat](w *gpuarr.Array[C], ax, k int, s *device.Stream) error {
	idx := make([]gpuarr.Index, w.Rank())
	for i := range idx {
		idx[i] = gpuarr.Colon
	}
	idx[ax] = gpuarr.S(k, k+1)
	v, err := w.Index(idx...)
	if err != nil {
		return err
	}
	defer v.Release()
	return gpuarr.EvalInto(v, gpuarr.Complex[C](gpuarr.Real[R](v), gpuarr.Scalar[R](0)), on(s))
}
