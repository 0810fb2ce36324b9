package ptxgen

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestDbg(t *testing.T) {
	lib := simLibrary(t)
	m := newSimMachine(lib)
	x, y := -1.3345004073856662e-213, -2.0
	got := m.Call("pow_f64", math.Float64bits(x), math.Float64bits(y))
	fn := lib.fns["gpuarr_pow_f64"]
	r := m.files[fn]
	t.Logf("got %v", math.Float64frombits(got))
	for _, in := range fn.code {
		fs := strings.Fields(in.text)
		if len(fs) < 2 {
			continue
		}
		d := strings.TrimSuffix(fs[1], ",")
		if i, ok := fn.regs[d]; ok {
			fmt.Printf("%-60s %v\n", in.text, math.Float64frombits(r[i]))
		}
	}
}
