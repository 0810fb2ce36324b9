package unified

import (
	"testing"

	"github.com/gpuarr/gpuarr/gpuarr"
)

var benchSink float64

// BenchmarkViewReads compares At, Values and All with the same loop over a
// plain slice (the bench/unified program reports the ratio on a GPU; the
// element path does not depend on the backend). The loops sit in closures
// like the program's, so the View is captured the way user code captures
// it. Targets: at, values and all within 1.2× of plain.
func BenchmarkViewReads(b *testing.B) {
	const n = 1 << 16
	plain := make([]float64, n)
	for i := range plain {
		plain[i] = float64(i)
	}
	a, err := FromSlice(plain, gpuarr.Shape{n})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Release()
	v, err := Host(a)
	if err != nil {
		b.Fatal(err)
	}
	loops := []struct {
		name string
		f    func() float64
	}{
		{"plain", func() float64 {
			var t float64
			for i := 0; i < n; i++ {
				t += plain[i]
			}
			return t
		}},
		{"at", func() float64 {
			var t float64
			for i := 0; i < n; i++ {
				t += v.At(i)
			}
			return t
		}},
		{"values", func() float64 {
			var t float64
			for x := range v.Values() {
				t += x
			}
			return t
		}},
		{"all", func() float64 {
			var t float64
			for i, x := range v.All() {
				t += x + float64(i)
			}
			return t
		}},
		{"plain-indexed", func() float64 {
			var t float64
			for i, x := range plain {
				t += x + float64(i)
			}
			return t
		}},
	}
	for _, l := range loops {
		b.Run(l.name, func(b *testing.B) {
			for b.Loop() {
				benchSink += l.f()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/elem")
		})
	}
}

// BenchmarkStridedValues: iterating a transposed view (no target: it
// shows the strided walk costs a strided memory access, not a call, per
// element).
func BenchmarkStridedValues(b *testing.B) {
	const r, c = 256, 256
	a, err := Zeros[float64](gpuarr.Shape{r, c})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Release()
	tr, err := a.Transpose()
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Release()
	v, err := Host(tr)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var t float64
		for x := range v.Values() {
			t += x
		}
		benchSink += t
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(r*c), "ns/elem")
}
