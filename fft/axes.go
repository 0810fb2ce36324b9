package fft

import (
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

func sqrt(x float64) float64 { return math.Sqrt(x) }

// check refuses a nil or released argument.
func check[T gpuarr.Element](a *gpuarr.Array[T]) error {
	if a == nil {
		return fmt.Errorf("x is a nil array: %w", gpuarr.ErrArgument)
	}
	if a.Released() {
		return fmt.Errorf("x %v: %w", a.Describe(), gpuarr.ErrReleased)
	}
	return nil
}

// named prefixes a transform's error with its call.
func named[T gpuarr.Element](call string) func(*gpuarr.Array[T], error) (*gpuarr.Array[T], error) {
	return func(out *gpuarr.Array[T], err error) (*gpuarr.Array[T], error) {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", call, err)
		}
		return out, nil
	}
}

// normAxis is axis k of a rank-r array, negative counting from the end.
func normAxis(k, r int, desc string) (int, error) {
	if k < -r || k >= r {
		return 0, fmt.Errorf("axis %d is out of range for x %s (rank %d): %w", k, desc, r, gpuarr.ErrArgument)
	}
	if k < 0 {
		k += r
	}
	return k, nil
}

// transformAxes resolves what a call transforms: its axes (in order,
// non-negative, each once) and their lengths (n: the number of points,
// which for IRFFT's real axis is the output length). defLen is the
// default length along an axis of extent m that is the last (real) axis
// of a real inverse: 2(m−1) for the C2R functions, m otherwise. defAxes is
// the axes of a 2-D function unless Axes is given (nil for the N-D ones,
// whose default is every axis, or the last len(s) with S).
func transformAxes[T gpuarr.Element](x *gpuarr.Array[T], c config, nd bool, defAxes []int, c2r bool) (axes, lens []int, err error) {
	sh := x.Shape()
	r := len(sh)
	desc := x.Describe()
	if r == 0 {
		return nil, nil, fmt.Errorf("x %s is a scalar: want at least one axis: %w", desc, gpuarr.ErrShape)
	}
	var raw []int
	switch {
	case !nd:
		raw = []int{c.axis}
	case c.hasA:
		raw = c.axes
		if c.hasS && len(c.s) != len(c.axes) {
			return nil, nil, fmt.Errorf("fft.S has %d lengths and fft.Axes %d axes: want one length per axis: %w", len(c.s), len(c.axes), gpuarr.ErrArgument)
		}
	case defAxes != nil:
		raw = defAxes
		if c.hasS && len(c.s) != len(defAxes) {
			return nil, nil, fmt.Errorf("fft.S has %d lengths for the %d axes %v: %w", len(c.s), len(defAxes), defAxes, gpuarr.ErrArgument)
		}
	case c.hasS:
		if len(c.s) > r {
			return nil, nil, fmt.Errorf("fft.S has %d lengths and x %s only %d axes: %w", len(c.s), desc, r, gpuarr.ErrArgument)
		}
		for i := range c.s {
			raw = append(raw, r-len(c.s)+i)
		}
	default:
		for i := range r {
			raw = append(raw, i)
		}
	}
	if len(raw) == 0 {
		return nil, nil, fmt.Errorf("no axes to transform: %w", gpuarr.ErrArgument)
	}
	seen := make([]bool, r)
	for _, k := range raw {
		a, err := normAxis(k, r, desc)
		if err != nil {
			return nil, nil, err
		}
		if seen[a] {
			return nil, nil, fmt.Errorf("axes %v name axis %d twice: %w", raw, a, gpuarr.ErrArgument)
		}
		seen[a] = true
		axes = append(axes, a)
	}
	lens = make([]int, len(axes))
	for i, a := range axes {
		switch {
		case !nd && c.hasN:
			lens[i] = c.n
		case nd && c.hasS:
			lens[i] = c.s[i]
		case c2r && i == len(axes)-1:
			lens[i] = 2 * (sh[a] - 1)
		default:
			lens[i] = sh[a]
		}
		if lens[i] < 1 {
			what := fmt.Sprintf("x %s has %d elements along axis %d", desc, sh[a], a)
			if c2r && i == len(axes)-1 {
				what += fmt.Sprintf(", so the default output length 2(m−1) is %d", lens[i])
			}
			return nil, nil, fmt.Errorf("%s: a transform needs at least 1 point (give fft.N or fft.S): %w", what, gpuarr.ErrShape)
		}
	}
	return axes, lens, nil
}

// setup is what every transform starts from: its options, the axes it
// transforms with their output lengths, and the stream it runs on.
type setup struct {
	c          config
	axes, lens []int
	s          *device.Stream
}

// setUp parses a transform's options and checks x against them (c2r:
// the lengths are a complex-to-real transform's).
func setUp[T gpuarr.Element](call string, x *gpuarr.Array[T], nd bool, defAxes []int, c2r bool, opts []gpuarr.Option) (setup, error) {
	c, err := parse(call, nd, opts)
	if err != nil {
		return setup{}, err
	}
	if err := check(x); err != nil {
		return setup{}, err
	}
	axes, lens, err := transformAxes(x, c, nd, defAxes, c2r)
	if err != nil {
		return setup{}, err
	}
	s, err := streamOf(c.rest, x.Device())
	if err != nil {
		return setup{}, err
	}
	return setup{c: c, axes: axes, lens: lens, s: s}, nil
}
