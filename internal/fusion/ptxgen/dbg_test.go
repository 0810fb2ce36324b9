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
	x := 11.699562236243693
	got := m.Call("erfc_f64", math.Float64bits(x))
	fn := lib.fns["gpuarr_erfc_f64"]
	r := m.files[fn]
	t.Logf("got %v", math.Float64frombits(got))
	for _, in := range fn.code {
		fs := strings.Fields(in.text)
		if len(fs) < 2 || !strings.HasSuffix(fs[0], "f64") {
			continue
		}
		d := strings.TrimSuffix(fs[1], ",")
		if i, ok := fn.regs[d]; ok {
			fmt.Printf("%-60s %v\n", in.text, math.Float64frombits(r[i]))
		}
	}
}
