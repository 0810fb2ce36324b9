package fft

import (
	"fmt"
	"strings"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// NormMode is how a transform is scaled (NumPy's norm argument). A
// forward transform (FFT, RFFT and their 2-D and N-D forms) is scaled by
// 1 for Backward, 1/√n for Ortho and 1/n for Forward; an inverse one
// (IFFT, IRFFT, …) by 1/n, 1/√n and 1, where n is the number of points
// transformed (the product of the transformed lengths, the real ones for
// the real transforms). So a forward and an inverse transform of the same
// mode are inverses of each other.
type NormMode uint8

const (
	// Backward: the inverse transform is scaled by 1/n (NumPy's default).
	Backward NormMode = iota
	// Ortho: both directions are scaled by 1/√n (unitary transforms).
	Ortho
	// Forward: the forward transform is scaled by 1/n.
	Forward
)

func (m NormMode) String() string {
	switch m {
	case Backward:
		return "Backward"
	case Ortho:
		return "Ortho"
	case Forward:
		return "Forward"
	}
	return fmt.Sprintf("NormMode(%d)", int(m))
}

// optKind is the kind of an option of this package.
type optKind uint8

const (
	optN optKind = iota + 1
	optAxis
	optS
	optAxes
	optNorm
)

// option is an option of this package. It is a gpuarr.Option (the
// embedded one, which is never used, makes it one) so that the
// functions here take this package's options and gpuarr's stream options
// in one list; gpuarr's own calls refuse it by name.
type option struct {
	gpuarr.Option
	kind optKind
	ints []int
	norm NormMode
}

// marker is any gpuarr option: what option embeds.
var marker = gpuarr.Axis(0)

func (o *option) String() string {
	switch o.kind {
	case optN:
		return fmt.Sprintf("fft.N(%d)", o.ints[0])
	case optAxis:
		return fmt.Sprintf("fft.Axis(%d)", o.ints[0])
	case optS:
		return "fft.S(" + joinInts(o.ints) + ")"
	case optAxes:
		return "fft.Axes(" + joinInts(o.ints) + ")"
	}
	return "fft.Norm(" + o.norm.String() + ")"
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// N sets the length of the transformed axis of FFT, IFFT, RFFT and IRFFT
// (NumPy's n): the input is cut to its first n elements along the axis,
// or padded with zeros to n. For RFFT it is the number of real input
// points; for IRFFT the number of real output points (the input is cut
// or padded to n/2+1 coefficients). n must be at least 1.
func N(n int) gpuarr.Option { return &option{Option: marker, kind: optN, ints: []int{n}} }

// Axis sets the axis FFT, IFFT, RFFT and IRFFT transform (NumPy's axis):
// negative counts from the end; the default is -1, the last.
func Axis(k int) gpuarr.Option { return &option{Option: marker, kind: optAxis, ints: []int{k}} }

// S sets the lengths of the transformed axes of the 2-D and N-D
// functions (NumPy's s), one per axis, each at least 1, as N does for one
// axis. Without Axes, the N-D functions transform the last len(s) axes;
// the 2-D ones take two lengths, for their two axes.
func S(s ...int) gpuarr.Option {
	return &option{Option: marker, kind: optS, ints: append([]int(nil), s...)}
}

// Axes sets the axes the 2-D and N-D functions transform (NumPy's axes),
// in order: negative counts from the end; an axis may appear once. The
// real transforms (RFFT2, RFFTN, IRFFT2, IRFFTN) take the last axis named
// as the real one. The defaults: the last two axes for the 2-D
// functions, every axis for the N-D ones (the last len(s) with S).
func Axes(axes ...int) gpuarr.Option {
	return &option{Option: marker, kind: optAxes, ints: append([]int(nil), axes...)}
}

// Norm sets the scaling (NumPy's norm); the default is Backward.
func Norm(m NormMode) gpuarr.Option { return &option{Option: marker, kind: optNorm, norm: m} }

// config is a call's options, read.
type config struct {
	n, axis    int // 1-D: n (0: the default), axis
	hasN       bool
	s, axes    []int
	hasS, hasA bool
	norm       NormMode
	rest       []gpuarr.Option // gpuarr's options: the stream
}

// parse reads opts for call; nd says whether call is a 2-D or N-D
// function (which take S and Axes rather than N and Axis).
func parse(call string, nd bool, opts []gpuarr.Option) (config, error) {
	c := config{axis: -1}
	for _, o := range opts {
		fo, ok := o.(*option)
		if !ok {
			c.rest = append(c.rest, o)
			continue
		}
		if fo == nil {
			return c, fmt.Errorf("a nil fft option: %w", gpuarr.ErrArgument)
		}
		if nd != (fo.kind == optS || fo.kind == optAxes) && fo.kind != optNorm {
			takes := "N, Axis and Norm (the 2-D and N-D functions take S and Axes)"
			if nd {
				takes = "S, Axes and Norm (the 1-D functions take N and Axis)"
			}
			return c, fmt.Errorf("%s does not take the option %v; it takes %s: %w", call, fo, takes, gpuarr.ErrArgument)
		}
		switch fo.kind {
		case optN:
			c.n, c.hasN = fo.ints[0], true
			if c.n < 1 {
				return c, fmt.Errorf("%v: the number of points must be at least 1: %w", fo, gpuarr.ErrArgument)
			}
		case optAxis:
			c.axis = fo.ints[0]
		case optS:
			c.s, c.hasS = fo.ints, true
			for _, v := range c.s {
				if v < 1 {
					return c, fmt.Errorf("%v: each length must be at least 1: %w", fo, gpuarr.ErrArgument)
				}
			}
		case optAxes:
			c.axes, c.hasA = fo.ints, true
		case optNorm:
			if fo.norm > Forward {
				return c, fmt.Errorf("fft.Norm(%v): want Backward, Ortho or Forward: %w", fo.norm, gpuarr.ErrArgument)
			}
			c.norm = fo.norm
		}
	}
	return c, nil
}

// scale is the factor a transform of n points is multiplied by.
func (c config) scale(n int, inverse bool) float64 {
	switch {
	case c.norm == Ortho:
		return 1 / sqrt(float64(n))
	case (c.norm == Backward) == inverse:
		return 1 / float64(n)
	}
	return 1
}
