package ptxgen

import (
	"math"
	"testing"
)

func TestDbg(t *testing.T) {
	m := newSimMachine(simLibrary(t))
	for _, x := range []float32{8.000617, 2, 3, 1.5, 5} {
		got := math.Float32frombits(uint32(m.Call("cosh_f32", uint64(math.Float32bits(x)))))
		ref := math.Cosh(float64(x))
		t.Logf("x=%v got %v ref %v err %.3f ulp", x, got, ref, (float64(got)-ref)/float64(math.Nextafter32(float32(ref), 1e30)-float32(ref)))
	}
}
