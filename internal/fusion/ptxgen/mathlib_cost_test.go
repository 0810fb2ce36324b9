package ptxgen

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// mlInstrCount is the number of PTX instructions in function name's body
// (its .func text less declarations, labels, braces, comments and the
// parameter loads, stores and ret), each call counted as one.
func mlInstrCount(name string) int {
	n := 0
	for _, l := range strings.Split(libFuncs()[name].text, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "", l == "{", l == "}", l == "ret;",
			strings.HasPrefix(l, "."), strings.HasPrefix(l, "//"), strings.HasSuffix(l, ":"),
			strings.HasPrefix(l, "ld.param"), strings.HasPrefix(l, "st.param"):
			continue
		}
		n++
	}
	return n
}

// TestMathlibF32Cost: the float32 functions whose cost decides their
// kernels' speed on a GPU (more than a memory-bound kernel's few dozen
// instructions per element) stay within their instruction budgets: the
// static PTX count of the function body plus its callees'. A change that
// makes one slower shows here, not only in a GPU benchmark.
func TestMathlibF32Cost(t *testing.T) {
	for name, budget := range map[string]int{
		"erf_f32":  56,
		"erfc_f32": 80,
		"sinh_f32": 60,
		"cosh_f32": 65,
		// asinh, acosh and atanh: their log1p inline, no call.
		"asinh_f32": 75,
		"acosh_f32": 72,
		"atanh_f32": 70,
		"tanh_f32":  45,
	} {
		n := mlInstrCount(name)
		for _, d := range libFuncs()[name].deps {
			n += mlInstrCount(d)
		}
		t.Logf("%s: %d PTX instructions (budget %d)", name, n, budget)
		assert.LessOrEqual(t, n, budget, "%s: PTX instructions", name)
	}
}
