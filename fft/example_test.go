package fft_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuarr/gpuarr/fft"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// The spectrum of a sampled cosine: RFFT of 8 samples of cos(2π·2t/8),
// with the frequencies of its terms.
func Example() {
	v := make([]float64, 8)
	for i := range v {
		v[i] = math.Cos(2 * math.Pi * 2 * float64(i) / 8)
	}
	x, err := gpuarr.FromSlice(v, gpuarr.Shape{8})
	if err != nil {
		panic(err)
	}
	X, err := fft.RFFT[complex128](x)
	if err != nil {
		panic(err)
	}
	f, err := fft.RFFTFreq[float64](8, 1)
	if err != nil {
		panic(err)
	}
	spec, _ := X.ToSlice()
	freq, _ := f.ToSlice()
	for i, c := range spec {
		fmt.Printf("f=%.3f |X|=%.1f\n", freq[i], math.Round(math.Hypot(real(c), imag(c))*1e9)/1e9)
	}
	// Output:
	// f=0.000 |X|=0.0
	// f=0.125 |X|=0.0
	// f=0.250 |X|=4.0
	// f=0.375 |X|=0.0
	// f=0.500 |X|=0.0
}

// A 2-D transform over chosen axes of a batch, and back.
func ExampleFFTN() {
	x, err := gpuarr.FromSlice([]complex64{1, 2, 3, 4, 5, 6, 7, 8}, gpuarr.Shape{2, 2, 2})
	if err != nil {
		panic(err)
	}
	// Axes 0 and 2; axis 1 is a batch.
	X, err := fft.FFTN(x, fft.Axes(0, 2))
	if err != nil {
		panic(err)
	}
	y, err := fft.IFFTN(X, fft.Axes(0, 2))
	if err != nil {
		panic(err)
	}
	for _, a := range []*gpuarr.Array[complex64]{X, y} {
		v, _ := a.ToSlice()
		parts := make([]string, len(v))
		for i, c := range v {
			// +0 prints a negative zero as 0.
			parts[i] = fmt.Sprintf("%g%+gi", real(c)+0, imag(c)+0)
		}
		fmt.Println(strings.Join(parts, " "))
	}
	// Output:
	// 14+0i -2+0i 22+0i -2+0i -8+0i 0+0i -8+0i 0+0i
	// 1+0i 2+0i 3+0i 4+0i 5+0i 6+0i 7+0i 8+0i
}

// IRFFT with an odd output length: N says it, since 2(m−1) is even.
func ExampleIRFFT() {
	x, err := gpuarr.FromSlice([]float32{1, 2, 3, 4, 5}, gpuarr.Shape{5})
	if err != nil {
		panic(err)
	}
	X, err := fft.RFFT[complex64](x, fft.Norm(fft.Ortho))
	if err != nil {
		panic(err)
	}
	y, err := fft.IRFFT[float32](X, fft.N(5), fft.Norm(fft.Ortho))
	if err != nil {
		panic(err)
	}
	v, _ := y.ToSlice()
	fmt.Printf("%.4f\n", v)
	// Output:
	// [1.0000 2.0000 3.0000 4.0000 5.0000]
}
