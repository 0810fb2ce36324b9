//go:build cgo && gpuarrbench

package cuda

import "testing"

func BenchmarkCtxGetCurrent(b *testing.B) {
	gpu(b)
	for b.Loop() {
		if _, err := CtxGetCurrent(); err != nil {
			b.Fatal(err)
		}
	}
}
