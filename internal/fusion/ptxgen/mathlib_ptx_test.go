package ptxgen

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// The PTX text itself: every function passes the device's PTX check (a
// JIT on a GPU, the host backend's checker in CI) inside a module that
// calls it, FuncDefs orders and deduplicates definitions, and bad names
// are refused.

// mlPublicFuncs are the functions kernels call (cos2pi_f64 is only a
// dependency of the normal draws).
var mlPublicFuncs = slices.DeleteFunc(FuncNames(), func(n string) bool { return n == "cos2pi_f64" })

const mlHeader = ".version 7.8\n.target sm_90\n.address_size 64\n"

// callerModule is a module whose one kernel calls each of names once.
func mlCallerModule(t *testing.T, entry string, names []string) string {
	t.Helper()
	defs, err := FuncDefs(names)
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString(mlHeader + "\n" + defs + "\n")
	fmt.Fprintf(&b, ".visible .entry %s(.param .u64 out)\n{\n", entry)
	b.WriteString("\t.reg .f32 %fa, %fb, %fr;\n\t.reg .f64 %da, %db, %dr;\n\t.reg .b64 %ua, %ub, %uc, %po;\n")
	b.WriteString("\tmov.f32 %fa, 0f3F000000;\n\tmov.f32 %fb, 0f40000000;\n")
	b.WriteString("\tmov.f64 %da, 0d3FE0000000000000;\n\tmov.f64 %db, 0d4000000000000000;\n")
	b.WriteString("\tmov.u64 %ua, 1;\n\tmov.u64 %ub, 2;\n\tmov.u64 %uc, 3;\n")
	b.WriteString("\tld.param.u64 %po, [out];\n\tcvta.to.global.u64 %po, %po;\n")
	for _, name := range names {
		s := mathSigs[name]
		var args []string
		switch {
		case s.args[0] == "u64":
			args = []string{"%ua", "%ub", "%uc"}
		case s.ret == "f32":
			args = []string{"%fa", "%fb"}[:len(s.args)]
		default:
			args = []string{"%da", "%db"}[:len(s.args)]
		}
		ret := map[string]string{"f32": "%fr", "f64": "%dr"}[s.ret]
		b.WriteString(CallFunc(name, ret, args...))
		fmt.Fprintf(&b, "\tst.global.%s [%%po], %s;\n", s.ret, ret)
	}
	b.WriteString("\tret;\n}\n")
	return b.String()
}

func mlLoadPTX(t *testing.T, entry, ptx string) {
	t.Helper()
	dev, err := device.Default()
	require.NoError(t, err)
	if dev.RunsHostKernels() {
		_, err := dev.RegisterHostKernel(entry, func(*hostkernel.Launch) error { return nil })
		require.NoError(t, err)
	}
	mod, err := dev.LoadPTX(ptx)
	require.NoError(t, err, "PTX:\n%s", mlNumbered(ptx))
	_, err = mod.Kernel(entry)
	assert.NoError(t, err)
	require.NoError(t, mod.Close())
}

func mlNumbered(s string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = fmt.Sprintf("%4d  %s", i+1, lines[i])
	}
	return strings.Join(lines, "\n")
}

var mlReFuncDef = regexp.MustCompile(`(?m)^\.func \(.*?\) (gpuarr_\w+)\(`)

func TestFuncDefsLoadEach(t *testing.T) {
	for _, name := range FuncNames() {
		t.Run(name, func(t *testing.T) {
			mlLoadPTX(t, "gpuarr_mltest_call_"+name, mlCallerModule(t, "gpuarr_mltest_call_"+name, []string{name}))
		})
	}
}

func TestFuncDefsAllOnceCalleesFirst(t *testing.T) {
	names := append(append([]string{}, mlPublicFuncs...), mlPublicFuncs...) // duplicates too
	defs, err := FuncDefs(names)
	require.NoError(t, err)
	var order []string
	for _, m := range mlReFuncDef.FindAllStringSubmatch(defs, -1) {
		order = append(order, m[1])
	}
	assert.ElementsMatch(t, mlPrefixed(FuncNames()), order, "every function (cos2pi_f64 as a dependency), each once")
	// Each call names a function defined before it.
	for _, m := range regexp.MustCompile(`call\.uni \(\w+\), (\w+),`).FindAllStringSubmatchIndex(defs, -1) {
		callee := defs[m[2]:m[3]]
		def := strings.Index(defs, ") "+callee+"(")
		require.GreaterOrEqual(t, def, 0, "callee %s defined", callee)
		assert.Less(t, def, m[0], "%s is defined before a call to it", callee)
	}
	mlLoadPTX(t, "gpuarr_mltest_call_all", mlCallerModule(t, "gpuarr_mltest_call_all", mlPublicFuncs))

	none, err := FuncDefs(nil)
	require.NoError(t, err)
	assert.Empty(t, none)
}

func mlPrefixed(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = mathSymbol(n)
	}
	return out
}

func TestFuncDefsUnknown(t *testing.T) {
	for _, bad := range []string{"lgamma_f32", "", "gpuarr_exp_f32", "EXP_F32", "exp_f16"} {
		_, err := FuncDefs([]string{"exp_f32", bad})
		require.Error(t, err, "%q", bad)
		assert.Contains(t, err.Error(), fmt.Sprintf("%q", bad))
		assert.Contains(t, err.Error(), "exp_f32", "the error lists the known names")
	}
}

func TestCallFunc(t *testing.T) {
	got := CallFunc("pow_f64", "%out", "%a", "%b")
	for _, want := range []string{
		".param .b64 gpuarr_ca0;", ".param .b64 gpuarr_ca1;", ".param .b64 gpuarr_cr;",
		"st.param.f64 [gpuarr_ca0], %a;", "st.param.f64 [gpuarr_ca1], %b;",
		"call.uni (gpuarr_cr), gpuarr_pow_f64, (gpuarr_ca0, gpuarr_ca1);",
		"ld.param.f64 %out, [gpuarr_cr];",
	} {
		assert.Contains(t, got, want)
	}
	assert.Equal(t, strings.Count(got, "{"), strings.Count(got, "}"))
	assert.True(t, strings.HasPrefix(strings.TrimSpace(got), "{"), "its own scope, so calls can repeat")

	r := CallFunc("rand_uniform_f32", "%f", "%s", "%c", "%t")
	assert.Contains(t, r, "st.param.u64 [gpuarr_ca2], %t;")
	assert.Contains(t, r, ".param .b32 gpuarr_cr;")
	assert.Contains(t, r, "ld.param.f32 %f, [gpuarr_cr];")

	assert.PanicsWithValue(t, `ptxgen.CallFunc: unknown math library function "lgamma_f32"`, func() { CallFunc("lgamma_f32", "%r", "%x") })
	assert.Panics(t, func() { CallFunc("exp_f32", "%r") }, "wrong argument count")
}

// Every Math op of the op table has its library function for both float
// types, taking as many operands as the op.
func TestMathOpsHaveLibraryFunctions(t *testing.T) {
	for op := expr.Op(0); op.Info().Name != "op?"; op++ {
		info := op.Info()
		if !info.Math {
			continue
		}
		for _, ty := range []string{"f32", "f64"} {
			sig, ok := mathSigs[info.Name+"_"+ty]
			if assert.True(t, ok, "op %s has no %s_%s in the math library", info.Name, info.Name, ty) {
				assert.Len(t, sig.args, info.Arity, "%s_%s's parameters", info.Name, ty)
			}
		}
	}
}

// TestFuncDefsAreASCII: ptxas refuses any byte outside ASCII, comments
// included.
func TestFuncDefsAreASCII(t *testing.T) {
	defs, err := FuncDefs(FuncNames())
	require.NoError(t, err)
	for i, r := range defs {
		if r > 127 {
			line := 1 + strings.Count(defs[:i], "\n")
			t.Fatalf("the math library's PTX has %q on line %d", r, line)
		}
	}
}
