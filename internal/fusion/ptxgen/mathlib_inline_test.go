package ptxgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inlineWrapper is a .func "inl_<name>" whose body is two copies of
// name (InlineFunc, numbered from seq): the first computes the function of
// the arguments, the second of the same arguments again, and the result
// is the second's when the two agree, else a NaN-free marker that no
// function returns for these inputs' bits (all ones).
func inlineWrapper(name string, seq int) string {
	sig := mathSigs[name]
	var b strings.Builder
	params := make([]string, len(sig.args))
	args := make([]string, len(sig.args))
	for i, t := range sig.args {
		params[i] = fmt.Sprintf(".param .%s %s%d", mathParamType(t), argParam, i)
		args[i] = fmt.Sprintf("%%a%d", i)
	}
	fmt.Fprintf(&b, ".func (.param .%s %s) %s(%s)\n{\n", mathParamType(sig.ret), retParam, mathSymbol("inl_"+name), strings.Join(params, ", "))
	for i, t := range sig.args {
		fmt.Fprintf(&b, "\t.reg .%s %s;\n\tld.param.%s %s, [%s%d];\n", movType(t), args[i], t, args[i], argParam, i)
	}
	rt := movType(sig.ret)
	fmt.Fprintf(&b, "\t.reg .%s %%y1, %%y2, %%out;\n\t.reg .b%d %%k1, %%k2;\n\t.reg .pred %%same;\n", rt, 8*typeBytes(sig.ret))
	first, next := InlineFunc(name, "%y1", seq, args...)
	second, _ := InlineFunc(name, "%y2", next, args...)
	b.WriteString(first)
	b.WriteString(second)
	bits := 8 * typeBytes(sig.ret)
	fmt.Fprintf(&b, "\tmov.b%d %%k1, %%y1;\n\tmov.b%d %%k2, %%y2;\n\tsetp.eq.b%d %%same, %%k1, %%k2;\n", bits, bits, bits)
	fmt.Fprintf(&b, "\tselp.b%d %%k2, %%k2, -1, %%same;\n\tmov.b%d %%out, %%k2;\n", bits, bits)
	fmt.Fprintf(&b, "\tst.param.%s [%s], %%out;\n\tret;\n}\n", sig.ret, retParam)
	return b.String()
}

func typeBytes(t string) int {
	if t == "f32" {
		return 4
	}
	return 8
}

// Every library function copied into a body (InlineFunc) computes the same
// bits as its .func called (CallFunc), over special values and random
// bits, with two copies side by side in one body (their registers and
// labels must not collide: a shared label would send the first copy's
// branches into the second).
func TestInlineFuncMatchesCall(t *testing.T) {
	defs, err := FuncDefs(FuncNames())
	require.NoError(t, err)
	var wrappers strings.Builder
	for i, name := range FuncNames() {
		wrappers.WriteString(inlineWrapper(name, 10*i+3))
	}
	lib, err := parseSimLib(defs + wrappers.String())
	require.NoError(t, err, "%s", wrappers.String())
	m := newSimMachine(lib)
	rng := rand.New(rand.NewPCG(5, 9))
	for _, name := range FuncNames() {
		sig := mathSigs[name]
		inputs := inlineInputs(sig, rng)
		for _, in := range inputs {
			want := m.Call(name, in...)
			got := m.Call("inl_"+name, in...)
			if !assert.Equal(t, want, got, "%s%x: the inline copy differs from the call", name, in) {
				break
			}
		}
	}
}

// inlineInputs is argument bits for a function of signature sig: every
// pair of special values, then random bits and random ordinary numbers.
func inlineInputs(sig mathSig, rng *rand.Rand) [][]uint64 {
	if sig.args[0] == "u64" { // the random generators: seed, counter, stream
		var out [][]uint64
		for range 64 {
			out = append(out, []uint64{rng.Uint64(), rng.Uint64() >> rng.IntN(64), rng.Uint64N(4)})
		}
		return out
	}
	var vals []uint64
	if sig.args[0] == "f32" {
		for _, v := range []float32{0, -0.0, 1, -1, 0.5, 2, 3, 1e-40, -1e-40, 1e30, -1e30, 100, 1e5, 3e5, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())} {
			vals = append(vals, uint64(math.Float32bits(v)))
		}
		for range 300 {
			vals = append(vals, uint64(rng.Uint32()), uint64(math.Float32bits(float32(rng.NormFloat64()*4))))
		}
	} else {
		for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 2, 3, 1e-310, -1e-310, 1e300, -1e300, 100, 1e5, 1e17, math.Inf(1), math.Inf(-1), math.NaN()} {
			vals = append(vals, math.Float64bits(v))
		}
		for range 300 {
			vals = append(vals, rng.Uint64(), math.Float64bits(rng.NormFloat64()*4))
		}
	}
	var out [][]uint64
	if len(sig.args) == 1 {
		for _, v := range vals {
			out = append(out, []uint64{v})
		}
		return out
	}
	for i := range 17 {
		for j := range 17 {
			out = append(out, []uint64{vals[i], vals[j]})
		}
	}
	for i := 17; i+1 < len(vals); i += 2 {
		out = append(out, []uint64{vals[i], vals[i+1]}, []uint64{vals[i+1], vals[i]})
	}
	return out
}

// A copy renames the function's registers and labels after its number,
// moves the arguments in and the result out, and copies a function it
// calls in turn with the next number.
func TestInlineFuncText(t *testing.T) {
	text, next := InlineFunc("atanh_f64", "%fd9", 4, "%fd2")
	assert.Contains(t, text, "mov.f64 %fd9, ")
	assert.Regexp(t, `mov\.f64 %\w+_i4, %fd2;`, text)
	assert.Contains(t, text, "// log1p_f64", "atanh_f64 calls log1p_f64, which is copied in")
	assert.Regexp(t, `_i5\b`, text, "the nested copy takes the next number")
	assert.Equal(t, 6, next)
	assert.NotContains(t, text, "call")
	assert.NotContains(t, text, "ld.param")
	assert.NotContains(t, text, "ret;")

	_, next = InlineFunc("sin_f32", "%f1", 0, "%f2")
	assert.Equal(t, 1, next)
	assert.PanicsWithValue(t, `ptxgen.InlineFunc: unknown math library function "lgamma_f32"`, func() { InlineFunc("lgamma_f32", "%r", 0, "%x") })
	assert.PanicsWithValue(t, `ptxgen.InlineFunc: unknown math library function "two_over_pi"`, func() { InlineFunc("two_over_pi", "%r", 0) })
	assert.PanicsWithValue(t, `ptxgen.InlineFunc: pow_f32 takes 2 arguments, got 1`, func() { InlineFunc("pow_f32", "%r", 0, "%x") })
}

// A kernel's module holds the tables its copies read and no .func.
func TestInlineDefs(t *testing.T) {
	defs, err := InlineDefs([]string{"sin_f32", "exp_f32"})
	require.NoError(t, err)
	assert.Contains(t, defs, ".const .align 8 .b64 "+twoOverPiSym)
	assert.NotContains(t, defs, ".func")
	defs, err = InlineDefs([]string{"exp_f32", "atanh_f64"})
	require.NoError(t, err)
	assert.Empty(t, defs)
	_, err = InlineDefs([]string{"lgamma_f32"})
	assert.ErrorContains(t, err, `unknown math library function "lgamma_f32"`)
}

// quot32 gives div.rn.f32's correctly rounded quotient over its range,
// with the simulator's rcp.approx one ulp off either way (mlSim).
func TestQuot32IsCorrectlyRounded(t *testing.T) {
	f := &fnBuilder{name: "quot_test", def: funcDef{mathSig: mathBinary32}}
	fmt.Fprintf(&f.head, ".func (.param .b32 %s) %s(.param .b32 %s0, .param .b32 %s1)\n{\n", retParam, mathSymbol("quot_test"), argParam, argParam)
	a, b := f.newReg("f32"), f.newReg("f32")
	f.load(a, 0)
	f.load(b, 1)
	lib, err := parseSimLib(f.done(f.quot32(a, b)).text)
	require.NoError(t, err)
	m := newSimMachine(lib)
	rng := rand.New(rand.NewPCG(3, 4))
	mag := func(lo, hi int) float32 {
		return float32(math.Ldexp(1+rng.Float64(), lo+rng.IntN(hi-lo)) * float64(1-2*rng.IntN(2)))
	}
	check := func(x, y float32) {
		got := math.Float32frombits(uint32(m.Call("quot_test", uint64(math.Float32bits(x)), uint64(math.Float32bits(y)))))
		want := x / y
		if want != want {
			require.True(t, got != got, "%g/%g: want NaN, got %g", x, y, got)
			return
		}
		require.Equal(t, math.Float32bits(want), math.Float32bits(got), "%g/%g", x, y)
	}
	for range 200000 {
		check(mag(-64, 63), mag(-64, 63))
	}
	for range 20000 { // quotients near 1, where rounding is closest to a tie
		y := mag(-10, 10)
		check(y*float32(1+(rng.Float64()-0.5)*1e-6), y)
	}
	for _, y := range []float32{1, -1} {
		for _, x := range []float32{1e-45, -3e-40, 1e-38, 0, 3e38} {
			check(x, y)
		}
	}
	check(float32(math.NaN()), 0.75)
	check(0.5, float32(math.NaN()))
}
