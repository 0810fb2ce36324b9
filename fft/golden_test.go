package fft_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/fft"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// The differential set: NumPy's numpy.fft on the inputs stored in
// testdata/goldens.json.gz (testdata/gen_goldens.py writes it), on
// whichever device is selected (cuFFT on a GPU, gonum on the host).
//
// Tolerance: an FFT of n points computed in floating point has errors of
// about ε·log₂n times the size of its outputs (Cooley–Tukey and
// Bluestein alike), so each element may differ from NumPy's by
// 8·ε·(log₂n + 1)·rms(y), where n is the number of points of one
// transform (the product of the transformed lengths, input or output,
// whichever is larger), rms(y) the root mean square of NumPy's output and
// ε the machine epsilon of the case's precision.

type goldenArray struct {
	Shape []int     `json:"shape"`
	Re    []float64 `json:"re"`
	Im    []float64 `json:"im"`
}

type goldenCase struct {
	Name   string      `json:"name"`
	Op     string      `json:"op"`
	DType  string      `json:"dtype"`
	Params goldenParam `json:"params"`
	X      goldenArray `json:"x"`
	Y      goldenArray `json:"y"`
}

type goldenParam struct {
	N    *int   `json:"n"`
	Axis *int   `json:"axis"`
	S    []int  `json:"s"`
	Axes []int  `json:"axes"`
	Norm string `json:"norm"`
}

func loadGoldens(t *testing.T) []goldenCase {
	f, err := os.Open("testdata/goldens.json.gz")
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	var doc struct {
		Cases []goldenCase `json:"cases"`
	}
	require.NoError(t, json.NewDecoder(z).Decode(&doc))
	require.NotEmpty(t, doc.Cases)
	return doc.Cases
}

// options are the case's parameters as this package's options.
func (p goldenParam) options(t *testing.T) []gpuarr.Option {
	var o []gpuarr.Option
	if p.N != nil {
		o = append(o, fft.N(*p.N))
	}
	if p.Axis != nil {
		o = append(o, fft.Axis(*p.Axis))
	}
	if p.S != nil {
		o = append(o, fft.S(p.S...))
	}
	if p.Axes != nil {
		o = append(o, fft.Axes(p.Axes...))
	}
	switch p.Norm {
	case "", "backward":
	case "ortho":
		o = append(o, fft.Norm(fft.Ortho))
	case "forward":
		o = append(o, fft.Norm(fft.Forward))
	default:
		t.Fatalf("norm %q", p.Norm)
	}
	return o
}

func complexData[C complex64 | complex128](a goldenArray) []C {
	out := make([]C, len(a.Re))
	for i := range out {
		im := 0.0
		if a.Im != nil {
			im = a.Im[i]
		}
		out[i] = C(complex(a.Re[i], im))
	}
	return out
}

func realData[R float32 | float64](a goldenArray) []R {
	out := make([]R, len(a.Re))
	for i, v := range a.Re {
		out[i] = R(v)
	}
	return out
}

type complexOp[C complex64 | complex128] func(*gpuarr.Array[C], ...gpuarr.Option) (*gpuarr.Array[C], error)

func complexOps[C complex64 | complex128]() map[string]complexOp[C] {
	return map[string]complexOp[C]{
		"fft": fft.FFT[C], "ifft": fft.IFFT[C], "fft2": fft.FFT2[C], "ifft2": fft.IFFT2[C],
		"fftn": fft.FFTN[C], "ifftn": fft.IFFTN[C],
	}
}

func forwardReal[C complex64 | complex128, R float32 | float64]() map[string]func(*gpuarr.Array[R], ...gpuarr.Option) (*gpuarr.Array[C], error) {
	return map[string]func(*gpuarr.Array[R], ...gpuarr.Option) (*gpuarr.Array[C], error){
		"rfft": fft.RFFT[C, R], "rfft2": fft.RFFT2[C, R], "rfftn": fft.RFFTN[C, R],
	}
}

func inverseReal[R float32 | float64, C complex64 | complex128]() map[string]func(*gpuarr.Array[C], ...gpuarr.Option) (*gpuarr.Array[R], error) {
	return map[string]func(*gpuarr.Array[C], ...gpuarr.Option) (*gpuarr.Array[R], error){
		"irfft": fft.IRFFT[R, C], "irfft2": fft.IRFFT2[R, C], "irfftn": fft.IRFFTN[R, C],
	}
}

func TestGoldens(t *testing.T) {
	cases := loadGoldens(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			opts := c.Params.options(t)
			var got []complex128
			var shape gpuarr.Shape
			eps := 2.220446049250313e-16
			switch c.DType {
			case "complex128":
				got, shape = runComplex[complex128, float64](t, c, opts)
			case "complex64":
				got, shape = runComplex[complex64, float32](t, c, opts)
				eps = 1.1920928955078125e-07
			case "float64":
				got, shape = runReal[complex128, float64](t, c, opts)
			case "float32":
				got, shape = runReal[complex64, float32](t, c, opts)
				eps = 1.1920928955078125e-07
			default:
				t.Fatalf("dtype %q", c.DType)
			}
			require.Equal(t, c.Y.Shape, []int(shape), "result shape")
			want := complexData[complex128](c.Y)
			require.Len(t, got, len(want))
			var ss float64
			for _, w := range want {
				ss += real(w)*real(w) + imag(w)*imag(w)
			}
			rms := math.Sqrt(ss / float64(max(1, len(want))))
			n := transformPoints(c)
			tol := 8 * eps * (math.Log2(float64(n)) + 1) * rms
			worst, at := 0.0, 0
			for i := range want {
				if d := cmplx.Abs(got[i] - want[i]); d > worst || math.IsNaN(d) {
					worst, at = d, i
				}
			}
			require.LessOrEqual(t, worst, tol, "element %d: got %v, NumPy %v (n=%d)", at, got[at], want[at], n)
		})
	}
}

// transformPoints is the number of points of one transform: the product,
// over the transformed axes, of the larger of the input's and output's
// extents.
func transformPoints(c goldenCase) int {
	x, y := c.X.Shape, c.Y.Shape
	var axes []int
	switch {
	case c.Params.Axes != nil:
		axes = c.Params.Axes
	case c.Params.Axis != nil:
		axes = []int{*c.Params.Axis}
	case c.Op == "fft" || c.Op == "ifft" || c.Op == "rfft" || c.Op == "irfft":
		axes = []int{-1}
	case c.Params.S != nil:
		for i := range c.Params.S {
			axes = append(axes, len(x)-len(c.Params.S)+i)
		}
	case c.Op == "fft2" || c.Op == "ifft2" || c.Op == "rfft2" || c.Op == "irfft2":
		axes = []int{-2, -1}
	default:
		for i := range x {
			axes = append(axes, i)
		}
	}
	n := 1
	for i, a := range axes {
		if a < 0 {
			a += len(x)
		}
		m := max(x[a], y[a])
		if i == len(axes)-1 && (c.Op[0] == 'r' || c.Op[:2] == "ir") {
			m = max(m, 2*(min(x[a], y[a])-1))
		}
		n *= m
	}
	return n
}

func runComplex[C complex64 | complex128, R float32 | float64](t *testing.T, c goldenCase, opts []gpuarr.Option) ([]complex128, gpuarr.Shape) {
	x, err := gpuarr.FromSlice(complexData[C](c.X), gpuarr.Shape(c.X.Shape))
	require.NoError(t, err)
	defer x.Release()
	before, err := x.ToSlice()
	require.NoError(t, err)
	var y interface {
		Shape() gpuarr.Shape
		Release() error
	}
	var got []complex128
	if op, ok := complexOps[C]()[c.Op]; ok {
		out, err := op(x, opts...)
		require.NoError(t, err)
		y = out
		v, err := out.ToSlice()
		require.NoError(t, err)
		for _, e := range v {
			got = append(got, complex128(e))
		}
	} else if op, ok := inverseReal[R, C]()[c.Op]; ok {
		out, err := op(x, opts...)
		require.NoError(t, err)
		y = out
		v, err := out.ToSlice()
		require.NoError(t, err)
		for _, e := range v {
			got = append(got, complex(float64(e), 0))
		}
	} else {
		t.Fatalf("op %q", c.Op)
	}
	defer y.Release()
	after, err := x.ToSlice()
	require.NoError(t, err)
	require.Equal(t, before, after, "the input changed")
	return got, y.Shape()
}

func runReal[C complex64 | complex128, R float32 | float64](t *testing.T, c goldenCase, opts []gpuarr.Option) ([]complex128, gpuarr.Shape) {
	x, err := gpuarr.FromSlice(realData[R](c.X), gpuarr.Shape(c.X.Shape))
	require.NoError(t, err)
	defer x.Release()
	before, err := x.ToSlice()
	require.NoError(t, err)
	op, ok := forwardReal[C, R]()[c.Op]
	require.True(t, ok, fmt.Sprintf("op %q", c.Op))
	out, err := op(x, opts...)
	require.NoError(t, err)
	defer out.Release()
	after, err := x.ToSlice()
	require.NoError(t, err)
	require.Equal(t, before, after, "the input changed")
	v, err := out.ToSlice()
	require.NoError(t, err)
	got := make([]complex128, len(v))
	for i, e := range v {
		got[i] = complex128(e)
	}
	return got, out.Shape()
}
