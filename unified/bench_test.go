package unified

import (
	"testing"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// BenchmarkViewReads compares At and Values with the same loop over a plain
// slice (the bench/unified program reports the ratio on a GPU).
func BenchmarkViewReads(b *testing.B) {
	const n = 1 << 16
	plain := make([]float64, n)
	a, err := FromSlice(plain, gpuarr.Shape{n})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Release()
	v, err := Host(a)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("plain", func(b *testing.B) {
		var t float64
		for b.Loop() {
			for i := 0; i < n; i++ {
				t += plain[i]
			}
		}
		_ = t
	})
	b.Run("at", func(b *testing.B) {
		var t float64
		for b.Loop() {
			for i := 0; i < n; i++ {
				t += v.At(i)
			}
		}
		_ = t
	})
	b.Run("values", func(b *testing.B) {
		var t float64
		for b.Loop() {
			for x := range v.Values() {
				t += x
			}
		}
		_ = t
	})
}
