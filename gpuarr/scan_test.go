package gpuarr_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

type scanKind int

const (
	kSum scanKind = iota
	kProd
	kMax
	kMin
)

// refScan is the scan of x (row-major, shape sh) along axis k (k < 0:
// flattened), accumulating float sums and products in float64 and
// integer ones in 64 bits, max and min in T with NaN propagating.
func refScan[T gpuarr.Numeric](x []T, sh gpuarr.Shape, k int, kind scanKind, exclusive bool) []T {
	outer, n, inner := 1, len(x), 1
	if k >= 0 {
		outer, n, inner = 1, sh[k], 1
		for d, e := range sh {
			if d < k {
				outer *= e
			} else if d > k {
				inner *= e
			}
		}
	}
	isFloat := T(1)/2 != 0
	out := make([]T, len(x))
	for o := range outer {
		for i := range inner {
			var f float64
			var u uint64
			var m T
			started := false
			switch kind {
			case kProd:
				f, u = 1, 1
			}
			for j := range n {
				at := (o*n+j)*inner + i
				v := x[at]
				var cur T
				switch kind {
				case kSum, kProd:
					if isFloat {
						if kind == kSum {
							f += float64(v)
						} else {
							f *= float64(v)
						}
					} else if kind == kSum {
						u += uint64(int64(v))
					} else {
						u *= uint64(int64(v))
					}
				case kMax, kMin:
					switch {
					case !started:
						m = v
					case m != m || v != v:
						m = T(math.NaN())
					case kind == kMax:
						m = max(m, v)
					default:
						m = min(m, v)
					}
					started = true
				}
				if isFloat {
					cur = T(f)
				} else {
					cur = T(u)
				}
				if kind == kMax || kind == kMin {
					cur = m
				}
				if exclusive {
					// shift: written below
					_ = cur
				}
				out[at] = cur
			}
			if exclusive {
				for j := n - 1; j >= 1; j-- {
					out[(o*n+j)*inner+i] = out[(o*n+j-1)*inner+i]
				}
				out[(o*n)*inner+i] = identityOf[T](kind)
			}
		}
	}
	return out
}

func identityOf[T gpuarr.Numeric](kind scanKind) T {
	var lo, hi any
	switch any(T(0)).(type) {
	case int8:
		lo, hi = int8(math.MinInt8), int8(math.MaxInt8)
	case int16:
		lo, hi = int16(math.MinInt16), int16(math.MaxInt16)
	case int32:
		lo, hi = int32(math.MinInt32), int32(math.MaxInt32)
	case int64:
		lo, hi = int64(math.MinInt64), int64(math.MaxInt64)
	case uint8:
		lo, hi = uint8(0), uint8(math.MaxUint8)
	case uint16:
		lo, hi = uint16(0), uint16(math.MaxUint16)
	case uint32:
		lo, hi = uint32(0), uint32(math.MaxUint32)
	case uint64:
		lo, hi = uint64(0), uint64(math.MaxUint64)
	case float32:
		lo, hi = float32(math.Inf(-1)), float32(math.Inf(1))
	default:
		lo, hi = math.Inf(-1), math.Inf(1)
	}
	switch kind {
	case kProd:
		return 1
	case kMax:
		return lo.(T)
	case kMin:
		return hi.(T)
	}
	return 0
}

func scanValues[T gpuarr.Numeric](rng *rand.Rand, n int, kind scanKind) []T {
	isFloat := T(1)/2 != 0
	out := make([]T, n)
	for i := range out {
		switch {
		case kind == kProd && isFloat:
			out[i] = T(0.9 + 0.2*rng.Float64())
		case kind == kProd:
			out[i] = T(rng.IntN(3) + 1)
		case isFloat:
			out[i] = T(rng.NormFloat64() * 10)
		default:
			out[i] = T(rng.IntN(100))
		}
	}
	return out
}

func closeEnough[T gpuarr.Numeric](t *testing.T, want, got []T, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	isFloat := T(1)/2 != 0
	for i := range want {
		w, g := float64(want[i]), float64(got[i])
		if !isFloat {
			require.Equal(t, want[i], got[i], "%s: element %d", what, i)
			continue
		}
		if math.IsNaN(w) || math.IsNaN(g) {
			require.True(t, math.IsNaN(w) && math.IsNaN(g), "%s: element %d: want %v, got %v", what, i, w, g)
			continue
		}
		require.InDelta(t, w, g, 1e-6*math.Max(1, math.Abs(w)), "%s: element %d", what, i)
	}
}

// scanShapes cover one tile and several, rows shorter and longer than a
// tile, and the axis before the last.
var scanShapes = []struct {
	sh gpuarr.Shape
	k  int
}{
	{gpuarr.Shape{1}, -1}, {gpuarr.Shape{100}, 0}, {gpuarr.Shape{2048}, -1}, {gpuarr.Shape{2049}, 0},
	{gpuarr.Shape{9000}, -1}, {gpuarr.Shape{3, 1000}, 1}, {gpuarr.Shape{1000, 3}, 1}, {gpuarr.Shape{2, 5000}, -1},
	{gpuarr.Shape{2, 4100}, 1}, {gpuarr.Shape{700, 7}, 0}, {gpuarr.Shape{4, 3, 5}, 1}, {gpuarr.Shape{3, 4, 5}, -3},
}

func testScanType[T gpuarr.Numeric](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, kind := range []scanKind{kSum, kProd, kMax, kMin} {
		for _, c := range scanShapes {
			if testing.Short() && c.sh.Len() > 5000 {
				continue
			}
			xs := scanValues[T](rng, c.sh.Len(), kind)
			x := must(gpuarr.FromSlice(xs, c.sh))
			k := c.k
			var opts []gpuarr.Option
			if k != -1 || len(c.sh) == 1 && rng.IntN(2) == 0 {
				if k == -1 {
					k = 0
				}
				opts = append(opts, gpuarr.Axis(k))
				if k < 0 {
					k += len(c.sh)
				}
			}
			for _, excl := range []bool{false, true} {
				o := opts
				if excl {
					o = append(append([]gpuarr.Option{}, opts...), gpuarr.Exclusive())
				}
				var got *gpuarr.Array[T]
				var err error
				switch kind {
				case kSum:
					got, err = gpuarr.CumsumAs[T](x, o...)
				case kProd:
					got, err = gpuarr.CumprodAs[T](x, o...)
				case kMax:
					got, err = gpuarr.Cummax(x, o...)
				default:
					got, err = gpuarr.Cummin(x, o...)
				}
				require.NoError(t, err)
				if len(o) == 0 || len(o) == 1 && excl {
					assert.Equal(t, gpuarr.Shape{c.sh.Len()}, got.Shape())
				} else {
					assert.Equal(t, c.sh, got.Shape())
				}
				closeEnough(t, refScan(xs, c.sh, k, kind, excl), values(t, got), "kind "+string(rune('0'+kind))+" "+c.sh.String())
			}
		}
	}
}

func TestScanEveryType(t *testing.T) {
	t.Run("int8", testScanType[int8])
	t.Run("int16", testScanType[int16])
	t.Run("int32", testScanType[int32])
	t.Run("int64", testScanType[int64])
	t.Run("uint8", testScanType[uint8])
	t.Run("uint16", testScanType[uint16])
	t.Run("uint32", testScanType[uint32])
	t.Run("uint64", testScanType[uint64])
	t.Run("float32", testScanType[float32])
	t.Run("float64", testScanType[float64])
}

// Cumsum(Mul(x, y), Axis(1)) is one fused pass and equals the scan of the
// product.
func TestCumsumOfAnExpression(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sh := gpuarr.Shape{3, 700}
	xs, ys := scanValues[float64](rng, sh.Len(), kSum), scanValues[float64](rng, sh.Len(), kSum)
	x, y := must(gpuarr.FromSlice(xs, sh)), must(gpuarr.FromSlice(ys, sh))
	got := must(gpuarr.Cumsum(gpuarr.Mul(x, y), gpuarr.Axis(1)))
	prod := make([]float64, len(xs))
	for i := range xs {
		prod[i] = xs[i] * ys[i]
	}
	closeEnough(t, refScan(prod, sh, 1, kSum, false), values(t, got), "cumsum(x*y)")

	// A broadcast operand: each row plus a per-row scalar column.
	col := must(gpuarr.FromSlice([]float64{1, 2, 3}, gpuarr.Shape{3, 1}))
	got2 := must(gpuarr.Cumsum(gpuarr.Add(x, col), gpuarr.Axis(1)))
	sum := make([]float64, len(xs))
	for i := range xs {
		sum[i] = xs[i] + float64(i/700+1)
	}
	closeEnough(t, refScan(sum, sh, 1, kSum, false), values(t, got2), "cumsum(x+col)")
}

func TestCumsumFloat32AccumulatesInFloat64(t *testing.T) {
	// 1 + 2⁻²⁴·k: a float32 running sum would lose the small addends.
	n := 5000
	xs := make([]float32, n)
	xs[0] = 1
	for i := 1; i < n; i++ {
		xs[i] = float32(math.Ldexp(1, -24))
	}
	got := values(t, must(gpuarr.Cumsum(must(gpuarr.FromSlice(xs, gpuarr.Shape{n})))))
	assert.Equal(t, float32(1+math.Ldexp(float64(n-1), -24)), got[n-1])
}

func TestCummaxPropagatesNaN(t *testing.T) {
	nan := float32(math.NaN())
	x := must(gpuarr.FromSlice([]float32{1, 3, 2, nan, 5, 1}, gpuarr.Shape{2, 3}))
	got := values(t, must(gpuarr.Cummax(x, gpuarr.Axis(1))))
	assert.Equal(t, []float32{1, 3, 3}, got[:3])
	assert.True(t, math.IsNaN(float64(got[3])) && math.IsNaN(float64(got[4])) && math.IsNaN(float64(got[5])))
	got = values(t, must(gpuarr.Cummin(x, gpuarr.Axis(0))))
	assert.Equal(t, []float32{1, 3, 2}, got[:3])
	assert.True(t, math.IsNaN(float64(got[3])))
	assert.Equal(t, []float32{3, 1}, got[4:])
}

func TestScanRefusals(t *testing.T) {
	x := must(gpuarr.FromSlice([]int16{1, 2, 3}, gpuarr.Shape{3}))
	_, err := gpuarr.Cumsum(x)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "gpuarr.CumsumAs[int64]")
	got := must(gpuarr.CumsumAs[int64](x))
	assert.Equal(t, []int64{1, 3, 6}, values(t, got))
	_, err = gpuarr.Cumprod(x)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = gpuarr.Cummax(x, gpuarr.Axis(1))
	require.ErrorIs(t, err, gpuarr.ErrShape)
	_, err = gpuarr.Cummax(x, gpuarr.Axis(0), gpuarr.Axis(0))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = gpuarr.Cummax(x, gpuarr.KeepDims())
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	e := must(gpuarr.Zeros[float32](gpuarr.Shape{0, 3}))
	assert.Equal(t, gpuarr.Shape{0, 3}, must(gpuarr.Cumsum(e, gpuarr.Axis(1))).Shape())
}
