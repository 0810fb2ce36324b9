//go:build cgo && gpuarrbench

package cuda

import "testing"

func BenchmarkCtxGetCurrent(b *testing.B) {
	d := gpu(b)
	for b.Loop() {
		if _, err := d.CtxGetCurrent(); err != nil {
			b.Fatal(err)
		}
	}
}
