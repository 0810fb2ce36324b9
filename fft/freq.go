package fft

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// FFTFreq is the sample frequencies of FFT's n terms for a sample
// spacing d (NumPy's fft.fftfreq): [0, 1, …, ⌈n/2⌉−1, −⌊n/2⌋, …, −1] / (d·n),
// as a new array of n elements on the device and stream the options name
// (gpuarr.On or gpuarr.OnDevice; device.Default()'s default stream
// without). n must be at least 1.
func FFTFreq[T gpuarr.Float](n int, d float64, opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	return freq[T]("fft.FFTFreq", n, d, false, opts)
}

// RFFTFreq is the sample frequencies of RFFT's n/2+1 terms (NumPy's
// fft.rfftfreq): [0, 1, …, ⌊n/2⌋] / (d·n). As FFTFreq otherwise.
func RFFTFreq[T gpuarr.Float](n int, d float64, opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	return freq[T]("fft.RFFTFreq", n, d, true, opts)
}

func freq[T gpuarr.Float](call string, n int, d float64, half bool, opts []gpuarr.Option) (*gpuarr.Array[T], error) {
	if n < 1 {
		return nil, fmt.Errorf("%s: n=%d: want at least 1: %w", call, n, gpuarr.ErrArgument)
	}
	for _, o := range opts {
		if _, ok := o.(*option); ok {
			return nil, fmt.Errorf("%s does not take the option %v: %w", call, o, gpuarr.ErrArgument)
		}
	}
	m := n
	if half {
		m = n/2 + 1
	}
	v := make([]T, m)
	for i := range v {
		k := i
		if !half && i >= (n+1)/2 {
			k = i - n
		}
		v[i] = T(float64(k) / (d * float64(n)))
	}
	return named[T](call)(gpuarr.FromSlice(v, gpuarr.Shape{m}, opts...))
}

// FFTShift moves the zero-frequency term to the centre (NumPy's
// fft.fftshift): each axis Axes names (every axis by default) is rolled
// by ⌊n/2⌋. IFFTShift undoes it. The result is a new contiguous array
// (one strided copy per piece that moves: 2^k for k axes).
func FFTShift[T gpuarr.Element](x *gpuarr.Array[T], opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	return shift("fft.FFTShift", x, false, opts)
}

// IFFTShift is the inverse of FFTShift (NumPy's fft.ifftshift): each
// axis is rolled by −⌊n/2⌋ (they differ for odd n).
func IFFTShift[T gpuarr.Element](x *gpuarr.Array[T], opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	return shift("fft.IFFTShift", x, true, opts)
}

func shift[T gpuarr.Element](call string, x *gpuarr.Array[T], inverse bool, opts []gpuarr.Option) (*gpuarr.Array[T], error) {
	return named[T](call)(shiftRun(call, x, inverse, opts))
}

func shiftRun[T gpuarr.Element](call string, x *gpuarr.Array[T], inverse bool, opts []gpuarr.Option) (*gpuarr.Array[T], error) {
	for _, o := range opts {
		if fo, ok := o.(*option); ok && fo != nil && fo.kind != optAxes {
			return nil, fmt.Errorf("%s does not take the option %v; it takes Axes: %w", call, fo, gpuarr.ErrArgument)
		}
	}
	c, err := parse(call, true, opts)
	if err != nil {
		return nil, err
	}
	if x == nil {
		return nil, fmt.Errorf("x is a nil array: %w", gpuarr.ErrArgument)
	}
	if x.Released() {
		return nil, fmt.Errorf("x %v: %w", x.Describe(), gpuarr.ErrReleased)
	}
	sh := x.Shape()
	if !c.hasA {
		c.axes = make([]int, len(sh))
		for i := range c.axes {
			c.axes[i] = i
		}
	}
	// The roll of each axis: r ∈ [0, n).
	roll := make([]int, len(sh))
	seen := make([]bool, len(sh))
	for _, k := range c.axes {
		a, err := normAxis(k, len(sh), x.Describe())
		if err != nil {
			return nil, err
		}
		if seen[a] {
			return nil, fmt.Errorf("axes %v name axis %d twice: %w", c.axes, a, gpuarr.ErrArgument)
		}
		seen[a] = true
		n := sh[a]
		if n > 0 {
			roll[a] = n / 2
			if inverse {
				roll[a] = (n - n/2) % n
			}
		}
	}
	s, err := streamOf(c.rest, x.Device())
	if err != nil {
		return nil, err
	}
	out, err := gpuarr.Empty[T](sh, on(s))
	if err != nil || out.Len() == 0 {
		return out, err
	}
	// Piece p takes, along each rolled axis, either the part that moves
	// forward (source [0, n−r) to [r, n)) or the part that wraps
	// (source [n−r, n) to [0, r)).
	var rolled []int
	for a, r := range roll {
		if r > 0 {
			rolled = append(rolled, a)
		}
	}
	for p := range 1 << len(rolled) {
		src := make([]gpuarr.Index, len(sh))
		dst := make([]gpuarr.Index, len(sh))
		for i := range sh {
			src[i], dst[i] = gpuarr.Colon, gpuarr.Colon
		}
		for j, a := range rolled {
			n, r := sh[a], roll[a]
			if p&(1<<j) == 0 {
				src[a], dst[a] = gpuarr.S(0, n-r), gpuarr.S(r, n)
			} else {
				src[a], dst[a] = gpuarr.S(n-r, n), gpuarr.S(0, r)
			}
		}
		if err := copyPiece(x, out, src, dst, s); err != nil {
			out.Release()
			return nil, err
		}
	}
	return out, nil
}

func copyPiece[T gpuarr.Element](x, out *gpuarr.Array[T], src, dst []gpuarr.Index, s *device.Stream) error {
	xv, err := x.Index(src...)
	if err != nil {
		return err
	}
	defer xv.Release()
	ov, err := out.Index(dst...)
	if err != nil {
		return err
	}
	defer ov.Release()
	return gpuarr.EvalInto(ov, xv, on(s))
}
