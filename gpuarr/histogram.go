package gpuarr

import (
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/kernels"
)

// Counting functions: Bincount and Histogram. Both count with atomics,
// in shared memory per block when there are at most 2048 bins. Their
// result's length (Bincount) or range (Histogram without HistRange) depends
// on the data, which they then read first: they wait for the device once.

type (
	minLengthOption int
	rangeOption     struct{ lo, hi float64 }
)

func (minLengthOption) isOption() {}
func (rangeOption) isOption()     {}

func (o minLengthOption) String() string { return fmt.Sprintf("gpuarr.MinLength(%d)", int(o)) }
func (o rangeOption) String() string     { return fmt.Sprintf("gpuarr.HistRange(%g, %g)", o.lo, o.hi) }

// MinLength makes Bincount return at least n bins (NumPy's minlength).
func MinLength(n int) Option { return minLengthOption(n) }

// HistRange gives Histogram its range [lo, hi] (NumPy's range=(lo, hi)),
// instead of the data's minimum and maximum; elements outside it are not
// counted.
func HistRange(lo, hi float64) Option { return rangeOption{lo, hi} }

// Bincount counts the occurrences of each value of the 1-D non-negative
// integer array x, as NumPy's bincount: the result (int64) has max(x)+1
// bins, or MinLength's if larger. A negative value is an error matching
// ErrArgument. It waits for the device once, to learn the largest value.
func Bincount[I Integer](x *Array[I], opts ...Option) (*Array[int64], error) {
	const call = "Bincount"
	out, err := bincount[I, float64, int64](call, x, nil, opts)
	return out, err
}

// BincountWeights sums weights[i] into bin x[i], as NumPy's bincount(x,
// weights): a float64 result. weights has x's length. The sums' order is
// unspecified (atomic adds), so the last bits may differ between runs.
func BincountWeights[I Integer, W Numeric](x *Array[I], weights *Array[W], opts ...Option) (*Array[float64], error) {
	const call = "BincountWeights"
	if err := weights.check(call + ": weights"); err != nil {
		return nil, err
	}
	return bincount[I, W, float64](call, x, weights, opts)
}

func bincount[I Integer, W Numeric, R Numeric](call string, x *Array[I], weights *Array[W], opts []Option) (*Array[R], error) {
	if err := x.check(call + ": x"); err != nil {
		return nil, err
	}
	minLen := 0
	for _, o := range opts {
		if m, ok := o.(minLengthOption); ok {
			minLen = int(m)
		}
	}
	if minLen < 0 {
		return nil, fmt.Errorf("gpuarr.%s: MinLength(%d) is negative: %w", call, minLen, ErrArgument)
	}
	s, err := streamTaking(call, opts, x.c.Device(), optMinLength)
	if err != nil {
		return nil, err
	}
	if len(x.c.Shape()) != 1 {
		return nil, arg.Shapef(call, "x %s must be 1-D", x.c.Describe())
	}
	n := x.c.Len()
	if weights != nil && weights.c.Len() != n {
		return nil, arg.Shapef(call, "weights %s and x %s differ in length", weights.c.Describe(), x.c.Describe())
	}
	bins := minLen
	if n > 0 {
		lo, hi, err := minMax(call, x, s)
		if err != nil {
			return nil, err
		}
		if lo < 0 {
			return nil, fmt.Errorf("gpuarr.%s: x holds the negative value %d; it counts non-negative integers: %w", call, int64(lo), ErrArgument)
		}
		if hi >= math.MaxInt32*64 {
			return nil, fmt.Errorf("gpuarr.%s: x holds %g, too many bins to count: %w", call, hi, ErrArgument)
		}
		bins = max(bins, int(hi)+1)
	}
	out, err := Zeros[R](Shape{bins}, On(s))
	if err != nil {
		return nil, err
	}
	xc, done, err := contiguous(x, s)
	if err != nil {
		_ = out.Release()
		return nil, err
	}
	defer done()
	c := kernels.Count{X: &xc.c, Out: &out.c, T: dtype.Of[I](), N: n, NBins: bins}
	if weights != nil {
		wc, doneW, err := contiguous(weights, s)
		if err != nil {
			_ = out.Release()
			return nil, err
		}
		defer doneW()
		c.W, c.WT = &wc.c, dtype.Of[W]()
	}
	if err := c.Run(call, s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}

// minMax reads x's least and greatest elements (as float64, exact for
// integers up to 2⁵³), waiting for the device.
func minMax[T Numeric](call string, x *Array[T], s *device.Stream) (lo, hi float64, err error) {
	mn, err := Min[T](x, On(s))
	if err != nil {
		return 0, 0, err
	}
	defer mn.Release()
	mx, err := Max[T](x, On(s))
	if err != nil {
		return 0, 0, err
	}
	defer mx.Release()
	a, err := mn.Item()
	if err != nil {
		return 0, 0, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	b, err := mx.Item()
	if err != nil {
		return 0, 0, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return float64(a), float64(b), nil
}

// Histogram counts x's elements in bins equal bins over a range, as
// NumPy's histogram(x, bins): the range is HistRange's, else x's minimum and
// maximum (a range of one value widens to ±0.5 around it, no data gives
// [0, 1]). Each bin is half-open except the last, which holds its upper
// edge; elements outside the range, and NaNs, are not counted. The bin of
// an element is NumPy's, computed in float32 for float32 data and in
// float64 otherwise, so values on an edge land where NumPy puts them. It
// returns the counts (int64, bins of them) and the bins+1 edges (float64;
// NumPy gives float32 edges for float32 data). Without HistRange it waits for
// the device once, for the minimum and maximum; x holding a NaN is then an
// error, as in NumPy.
func Histogram[T Numeric](x *Array[T], bins int, opts ...Option) (*Array[int64], *Array[float64], error) {
	const call = "Histogram"
	if err := x.check(call); err != nil {
		return nil, nil, err
	}
	if bins < 1 {
		return nil, nil, fmt.Errorf("gpuarr.%s: %d bins; at least one is needed: %w", call, bins, ErrArgument)
	}
	var rng *rangeOption
	for _, o := range opts {
		if r, ok := o.(rangeOption); ok {
			rng = &r
		}
	}
	s, err := streamTaking(call, opts, x.c.Device(), optRange)
	if err != nil {
		return nil, nil, err
	}
	n := x.c.Len()
	var lo, hi float64
	switch {
	case rng != nil:
		lo, hi = rng.lo, rng.hi
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return nil, nil, fmt.Errorf("gpuarr.%s: HistRange(%g, %g) is not finite: %w", call, lo, hi, ErrArgument)
		}
		if lo > hi {
			return nil, nil, fmt.Errorf("gpuarr.%s: HistRange(%g, %g): the upper end is below the lower: %w", call, lo, hi, ErrArgument)
		}
	case n == 0:
		lo, hi = 0, 1
	default:
		if lo, hi, err = minMax(call, x, s); err != nil {
			return nil, nil, err
		}
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return nil, nil, fmt.Errorf("gpuarr.%s: the data's range [%g, %g] is not finite (give a HistRange): %w", call, lo, hi, ErrArgument)
		}
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	f32 := dtype.Of[T]() == dtype.Float32
	edges := histogramEdges(lo, hi, bins, f32, rng != nil)
	edges64, err := FromSlice(edges, Shape{bins + 1}, On(s))
	if err != nil {
		return nil, nil, err
	}
	counts, err := Zeros[int64](Shape{bins}, On(s))
	if err != nil {
		_ = edges64.Release()
		return nil, nil, err
	}
	fail := func(err error) (*Array[int64], *Array[float64], error) {
		_, _ = counts.Release(), edges64.Release()
		return nil, nil, err
	}
	if n == 0 {
		return counts, edges64, nil
	}
	ct := dtype.Float64
	ev := edges64
	if f32 {
		ct = dtype.Float32
		e32 := make([]float32, len(edges))
		for i, e := range edges {
			e32[i] = float32(e)
		}
		a, err := FromSlice(e32, Shape{bins + 1}, On(s))
		if err != nil {
			return fail(err)
		}
		defer a.Release()
		xc, done, err := contiguous(x, s)
		if err != nil {
			return fail(err)
		}
		defer done()
		c := kernels.Count{X: &xc.c, Out: &counts.c, Edges: &a.c, T: dtype.Of[T](), CT: ct, N: n, NBins: bins, Histogram: true}
		if err := c.Run(call, s); err != nil {
			return fail(err)
		}
		return counts, edges64, nil
	}
	xc, done, err := contiguous(x, s)
	if err != nil {
		return fail(err)
	}
	defer done()
	c := kernels.Count{X: &xc.c, Out: &counts.c, Edges: &ev.c, T: dtype.Of[T](), CT: ct, N: n, NBins: bins, Histogram: true}
	if err := c.Run(call, s); err != nil {
		return fail(err)
	}
	return counts, edges64, nil
}

// histogramEdges is NumPy's linspace(lo, hi, bins+1): edge i = i·step +
// lo with step = (hi - lo) / bins, the last exactly hi. For float32 data
// (f32) the edges are float32 values: from a given range (fromRange;
// Python floats in NumPy's call) NumPy computes them in float64 and
// rounds each once; from the data's float32 minimum and maximum, they are
// computed in float32 arithmetic.
func histogramEdges(lo, hi float64, bins int, f32, fromRange bool) []float64 {
	r := func(x float64) float64 {
		if f32 {
			return float64(float32(x))
		}
		return x
	}
	edges := make([]float64, bins+1)
	if fromRange || !f32 {
		step := (hi - lo) / float64(bins)
		for i := range edges {
			edges[i] = r(float64(i)*step + lo)
		}
		edges[bins] = r(hi)
		return edges
	}
	lo, hi = r(lo), r(hi)
	step := r(r(hi-lo) / float64(bins))
	for i := range edges {
		edges[i] = r(r(float64(i)*step) + lo)
	}
	edges[bins] = hi
	return edges
}
