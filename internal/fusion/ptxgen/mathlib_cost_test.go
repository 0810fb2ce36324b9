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

// TestMathlibF32Cost: the float32 functions that outrun memory bandwidth
// on a GPU stay within their instruction budgets (static PTX count of the
// function body; the callees are counted separately), so that a change
// that makes one slower shows here and not only in a GPU benchmark.
func TestMathlibF32Cost(t *testing.T) {
	for name, budget := range map[string]int{
		"erf_f32":  56,
		"erfc_f32": 80,
	} {
		n := mlInstrCount(name)
		t.Logf("%s: %d PTX instructions (budget %d)", name, n, budget)
		assert.LessOrEqual(t, n, budget, "%s: PTX instructions", name)
	}
}
