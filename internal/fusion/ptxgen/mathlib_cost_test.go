package ptxgen

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// mlInstrs returns the PTX instructions of function name's common path:
// its .func body less declarations, labels, braces, comments and the
// parameter loads, stores and ret, and less the code a branch skips (a
// function's branches are taken for rare cases only: pow's special values,
// sin's huge arguments), each call one instruction.
func mlInstrs(name string) []string { return mlPath(name, 0) }

// mlPath is mlInstrs with the code that the first k branches skip counted
// too: the path of a warp whose arguments fall on both sides of those k
// branches and never beyond the later ones.
func mlPath(name string, k int) []string {
	var ins []string
	skipTo := ""
	branches := 0
	for _, l := range strings.Split(libFuncs()[name].text, "\n") {
		l = strings.TrimSpace(l)
		if skipTo != "" {
			if l == skipTo+":" {
				skipTo = ""
			}
			continue
		}
		switch {
		case strings.Contains(l, " bra "):
			if branches++; branches > k {
				skipTo = strings.TrimSuffix(l[strings.LastIndex(l, " ")+1:], ";")
			}
		case l == "", l == "{", l == "}", l == "ret;",
			strings.HasPrefix(l, "."), strings.HasPrefix(l, "//"), strings.HasSuffix(l, ":"),
			strings.HasPrefix(l, "ld.param"), strings.HasPrefix(l, "st.param"):
			continue
		}
		ins = append(ins, l)
	}
	return ins
}

func mlInstrCount(name string) int { return len(mlInstrs(name)) }

// mlBodyCount is the instruction count of function name's whole body,
// the code its branches skip included (as mlInstrs counts, branches
// followed): what a warp pays whose arguments take every path.
func mlBodyCount(name string) int {
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

// TestMathlibF32MixedCost: a warp whose arguments lie on both sides of a
// float32 function's branch (|x| = 1 for most of them: real data such as
// normal samples) runs both sides; that stays within these budgets. asinh's
// second branch, at |x| = 3, is one that normal samples rarely take: its
// budget counts the code before it.
func TestMathlibF32MixedCost(t *testing.T) {
	for name, c := range map[string]struct{ branches, budget int }{
		// Each at most its cost as one path for every x, before its
		// common path branched off.
		"asinh_f32": {1, 27},
		"erf_f32":   {1, 21},
		"sinh_f32":  {1, 39}, // one path for every x
		"cosh_f32":  {1, 40}, // one path for every x
		"tanh_f32":  {1, 19},
		"expm1_f32": {1, 31}, // one path for every x
	} {
		n := len(mlPath(name, c.branches))
		t.Logf("%s: %d PTX instructions across its first %d branch(es), %d on its common path, %d in its body (budget %d)",
			name, n, c.branches, mlInstrCount(name), mlBodyCount(name), c.budget)
		assert.LessOrEqual(t, n, c.budget, "%s: PTX instructions across its first %d branch(es)", name, c.branches)
	}
}

// TestMathlibF32Cost: the float32 functions whose cost decides their
// kernels' speed on a GPU (more than a memory-bound kernel's few dozen
// instructions per element) stay within their instruction budgets: the
// static PTX count of the function body plus its callees'. A change that
// makes one slower shows here, not only in a GPU benchmark.
func TestMathlibF32Cost(t *testing.T) {
	for name, budget := range map[string]int{
		"erf_f32":  11, // |x| < 1; beyond, a branch to 1 − erfc
		"erfc_f32": 47, // one path, no division, no select for NaN
		"sinh_f32": 39, // one path for every x
		"cosh_f32": 40, // one path for every x
		// asinh, acosh and atanh: their log1p inline, no call.
		"asinh_f32": 15, // |x| < 1; beyond, a branch to the log1p forms
		"acosh_f32": 38, // no branch: ln(x + √(x² − 1)) as a sum and its error, the huge form by selects
		"atanh_f32": 35, // its quotient by rcp.approx
		"tanh_f32":  14, // |x| < 1; beyond, a branch
		// The logarithms: one path, no division (mathlib_log32.go).
		"log_f32":   26,
		"log2_f32":  27,
		"log10_f32": 28,
		"log1p_f32": 32,
		"sin_f32":   30, // |x| < 2^17; beyond, a branch to Payne–Hanek
		"tan_f32":   31, // its reciprocal spelled out (quot32): div.rn.f32 counts one instruction here but is the same seven and a branch on the GPU
		"expm1_f32": 31, // one path for every x, float32 arithmetic only
		"acos_f32":  32, // the root by rsqrt.approx and its residual, no sqrt.rn.f32 (one here, more and a branch on the GPU)
		"asin_f32":  31, // the root spelled out (sqrt32)
		"pow_f32":   68, // x > 0 normal and finite, y finite, not ±½ or 1; the rest a branch; no cvt (k by shifter32)
		"atan_f32":  20, // one path for every x
		"atan2_f32": 36, // one path, one division
		"cos_f32":   29,
	} {
		n := mlInstrCount(name)
		for _, d := range libFuncs()[name].deps {
			n += mlInstrCount(d)
		}
		t.Logf("%s: %d PTX instructions (budget %d)", name, n, budget)
		assert.LessOrEqual(t, n, budget, "%s: PTX instructions", name)
	}
}

// TestMathlibPowF32Cost: pow_f32's common path is float32 arithmetic (its
// log₂|x| and y·log₂|x| as double-floats): no 64-bit instruction (float64
// is half the float32 rate on the GPUs it targets, or less, and its
// conversions slower still) and no division.
func TestMathlibPowF32Cost(t *testing.T) {
	n64 := 0
	for _, l := range mlInstrs("pow_f32") {
		op, _, _ := strings.Cut(l, " ")
		assert.False(t, strings.HasPrefix(op, "div."), "pow_f32 divides on its common path: %s", l)
		if strings.Contains(op, "64") {
			n64++
		}
	}
	t.Logf("pow_f32: %d PTX instructions on its common path, %d of them on 64-bit types", mlInstrCount("pow_f32"), n64)
	assert.Zero(t, n64, "pow_f32: 64-bit instructions on the common path")
}

// TestMathlibErfcF32Cost: erfc_f32 takes one path for every x and divides
// nowhere (a div.rn.f32 is a dozen instructions and a branch on the GPU):
// 1/(x + 2) comes from a reciprocal (rcp.approx) and its exact residual.
func TestMathlibErfcF32Cost(t *testing.T) {
	text := libFuncs()["erfc_f32"].text
	assert.False(t, strings.Contains(text, " bra "), "erfc_f32 branches")
	assert.False(t, strings.Contains(text, "div."), "erfc_f32 divides")
	assert.Empty(t, libFuncs()["erfc_f32"].deps, "erfc_f32 calls")
}

// TestMathlibExpm1F32Cost: expm1_f32 is float32 arithmetic: no float64
// instruction and no conversion to float64 anywhere in its body.
func TestMathlibExpm1F32Cost(t *testing.T) {
	assert.NotContains(t, libFuncs()["expm1_f32"].text, "f64", "expm1_f32's body")
}

// TestMathlibF32OnePath: these float32 functions take one path for every
// argument, no branch: a warp of arguments on both sides of |x| = 1 (most
// real data) pays for one body, not two. The logarithms do not divide
// either (a div.rn.f32 is a dozen instructions and a branch on the GPU).
func TestMathlibF32OnePath(t *testing.T) {
	for _, name := range []string{"atan_f32", "atan2_f32", "acos_f32", "asin_f32", "expm1_f32", "log_f32", "log2_f32", "log10_f32", "log1p_f32"} {
		assert.False(t, strings.Contains(libFuncs()[name].text, " bra "), "%s branches", name)
		for _, d := range libFuncs()[name].deps {
			assert.False(t, strings.Contains(libFuncs()[d].text, " bra "), "%s: its callee %s branches", name, d)
		}
		if strings.HasPrefix(name, "log") {
			assert.NotContains(t, libFuncs()[name].text, "div.", "%s divides", name)
			assert.Empty(t, libFuncs()[name].deps, "%s calls", name)
		}
	}
}

// TestMathlibDivmodF32Cost: float32 floor division and remainder divide
// nowhere on their common path (|a/b| < 2^20: one approximate
// reciprocal, corrected exactly).
func TestMathlibDivmodF32Cost(t *testing.T) {
	for name, budget := range map[string]int{"floordiv_f32": 29, "mod_f32": 29} {
		ins := mlInstrs(name)
		for _, l := range ins {
			assert.False(t, strings.HasPrefix(l, "div."), "%s divides on its common path: %s", name, l)
		}
		t.Logf("%s: %d PTX instructions on its common path (budget %d)", name, len(ins), budget)
		assert.LessOrEqual(t, len(ins), budget, "%s: PTX instructions", name)
	}
}
