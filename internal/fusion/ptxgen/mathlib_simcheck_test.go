package ptxgen

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The interpreter against the Go models of the existing functions.
func TestSimMatchesModels(t *testing.T) {
	lib := simLibrary(t)
	m := newSimMachine(lib)
	rng := rand.New(rand.NewPCG(1, 2))
	for name, model := range mlModels {
		sig := mathSigs[name]
		bad := 0
		for i := range 20000 {
			var a [3]uint64
			for k, ty := range sig.args {
				switch ty {
				case "f32":
					a[k] = uint64(rng.Uint32())
					if i%2 == 0 {
						a[k] = uint64(math.Float32bits(float32(rng.NormFloat64() * 10)))
					}
				case "f64":
					a[k] = rng.Uint64()
					if i%2 == 0 {
						a[k] = math.Float64bits(rng.NormFloat64() * 10)
					}
				default:
					a[k] = rng.Uint64()
				}
			}
			if name == "cos2pi_f64" { // its domain is [0, 1)
				a[0] = math.Float64bits(rng.Float64())
			}
			got := m.Call(name, a[:len(sig.args)]...)
			want := model(a[0], a[1], a[2])
			nan := func(v uint64) bool {
				if sig.ret == "f32" {
					return math.IsNaN(float64(math.Float32frombits(uint32(v))))
				}
				return math.IsNaN(math.Float64frombits(v))
			}
			if got != want && !(nan(got) && nan(want)) {
				if bad < 3 {
					t.Errorf("%s(%x) = %#x, model %#x", name, a[:len(sig.args)], got, want)
				}
				bad++
			}
		}
	}
}
