package ptxgen

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

func generate(t *testing.T, p *expr.Program) string {
	t.Helper()
	ptx, err := Generate(p, genHeader)
	require.NoError(t, err, "%s", p)
	return ptx
}

// section is the text between two labels' definitions (from's line to to's).
func section(t *testing.T, ptx, from, to string) string {
	t.Helper()
	i := regexp.MustCompile(`(?m)^\$L_` + from + `_\d+:`).FindStringIndex(ptx)
	require.NotNil(t, i, "label %s", from)
	j := regexp.MustCompile(`(?m)^\$L_` + to + `_\d+:`).FindStringIndex(ptx[i[1]:])
	require.NotNil(t, j, "label %s", to)
	return ptx[i[0] : i[1]+j[0]]
}

// TestVectorByteStores: a 1-byte output (bool, int8, uint8) of vector
// inputs is packed into 32-bit words and written with one store per
// vector, not a byte per element.
func TestVectorByteStores(t *testing.T) {
	stubMath(t)
	f32 := dtype.Float32
	for _, c := range []struct {
		name  string
		p     *expr.Program
		store string
	}{
		{"isnan f32×4", &expr.Program{Vector: 4, Inputs: []expr.Input{mem(f32)},
			Code: []expr.Instr{in(f32, 0), un(expr.OpIsNaN, dtype.Bool, 0)}}, "st.global.b32"},
		{"lt f64×2", &expr.Program{Vector: 2, Inputs: []expr.Input{mem(dtype.Float64), mem(dtype.Float64)},
			Code: []expr.Instr{in(dtype.Float64, 0), in(dtype.Float64, 1), bin(expr.OpLt, dtype.Bool, 0, 1)}}, "st.global.u16"},
		{"int16 to uint8 ×8", &expr.Program{Vector: 8, Inputs: []expr.Input{mem(dtype.Int16)},
			Code: []expr.Instr{in(dtype.Int16, 0), un(expr.OpCast, dtype.Uint8, 0)}}, "st.global.v2.b32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, c.p.Validate())
			ptx := generate(t, c.p)
			assert.Equal(t, VectorsPerThread, strings.Count(ptx, c.store+" "), "one packed store per vector")
			// The scalar tail stores single bytes.
			assert.Equal(t, 1, strings.Count(ptx, "st.global.u8 "))
		})
	}
}

func TestVectorLoads(t *testing.T) {
	stubMath(t)
	for _, c := range []struct {
		t    dtype.DType
		v    int
		load string
	}{
		{dtype.Float32, 4, "ld.global.v4.f32"}, {dtype.Float32, 2, "ld.global.v2.f32"}, {dtype.Float64, 2, "ld.global.v2.f64"},
		{dtype.Int32, 4, "ld.global.v4.s32"}, {dtype.Uint32, 4, "ld.global.v4.u32"}, {dtype.Uint64, 2, "ld.global.v2.u64"},
		{dtype.Int64, 2, "ld.global.v2.s64"},
	} {
		p := binary(expr.OpAdd, c.t)
		p.Vector = c.v
		ptx := generate(t, p)
		// Each of a thread's vectors: one load per operand, one store.
		assert.Equal(t, 2*VectorsPerThread, strings.Count(ptx, c.load+" "), "%s×%d", c.t, c.v)
		assert.Equal(t, VectorsPerThread, strings.Count(ptx, strings.Replace(c.load, "ld.", "st.", 1)+" "), "%s×%d", c.t, c.v)
		// The scalar tail loads single elements in the same kernel.
		assert.Contains(t, ptx, "ld.global."+ty(c.t)+" ")
		// No division anywhere in the contiguous path.
		assert.NotRegexp(t, `\bdiv\.`, ptx)
		assert.NotRegexp(t, `\brem\.`, ptx)

		p.Vector = 0
		assert.NotContains(t, generate(t, p), "ld.global.v")
	}
	// The sum reduction reads 16-byte vectors, two per iteration.
	p := &expr.Program{Vector: 4, Reduce: expr.Sum, ArgIndex: -1, Inputs: []expr.Input{mem(dtype.Float32)}, Code: []expr.Instr{in(dtype.Float32, 0)}}
	ptx := generate(t, p)
	pair := section(t, ptx, "v_pair", "v_single")
	assert.Equal(t, 2, strings.Count(pair, "ld.global.v4.f32"))
	assert.Equal(t, 8, strings.Count(pair, "add.rn.f64"))
}

func TestIndexWidth(t *testing.T) {
	stubMath(t)
	p := binary(expr.OpMul, dtype.Float32)
	ptx32 := generate(t, p)
	loop32 := section(t, ptx32, "loop", "done")
	assert.Contains(t, loop32, "mul.wide.u32")
	assert.Contains(t, loop32, "add.u32")
	assert.NotContains(t, loop32, "add.u64")
	p.Index64 = true
	loop64 := section(t, generate(t, p), "loop", "done")
	assert.Contains(t, loop64, "shl.b64")
	assert.Contains(t, loop64, "add.u64")
	assert.NotContains(t, loop64, "mul.wide.u32")

	// Strided: divisions only there, in the index width, strides signed.
	s := &expr.Program{Rank: 3, Inputs: []expr.Input{strided(dtype.Float64)}, Code: []expr.Instr{in(dtype.Float64, 0)}}
	ptx := generate(t, s)
	assert.Equal(t, 2, strings.Count(ptx, "div.u32"), "rank 3: two divisions")
	assert.Contains(t, ptx, "mad.lo.s32")
	assert.Contains(t, ptx, "mul.wide.s32")
	s.Index64 = true
	ptx = generate(t, s)
	assert.Equal(t, 2, strings.Count(ptx, "div.u64"))
	assert.Contains(t, ptx, "mad.lo.s64")
	assert.NotContains(t, ptx, "div.u32")
	for d := range 3 {
		assert.Regexp(t, `ld\.param\.s64 %rd\d+, \[in0_stride`+itoa(d)+`\]`, ptx)
	}
}

func TestReductionShape(t *testing.T) {
	stubMath(t)
	for _, c := range []struct {
		t      dtype.DType
		r      expr.ReduceOp
		st     expr.Stage
		store  []string
		result dtype.DType
	}{
		{dtype.Float32, expr.Sum, expr.Final, []string{"cvt.rn.f32.f64", "st.global.f32"}, 0},
		{dtype.Float32, expr.Sum, expr.Partial, []string{"st.global.f64"}, 0},
		{dtype.Int8, expr.Sum, expr.Final, []string{"st.global.s8"}, 0},
		{dtype.Int8, expr.Sum, expr.Partial, []string{"st.global.s64"}, 0},
		{dtype.Uint16, expr.Prod, expr.Partial, []string{"st.global.u64"}, 0},
		{dtype.Int32, expr.Mean, expr.Final, []string{"shr.s64", "rem.u64", "neg.s64", "st.global.s32"}, 0},
		{dtype.Uint8, expr.Mean, expr.Final, []string{"rem.u64", "cvt.rn.f64.u64", "div.rn.f64", "cvt.rn.f32.f64", "st.global.f32"}, dtype.Float32},
		{dtype.Int64, expr.Mean, expr.Partial, []string{"st.global.u64", "st.global.s64"}, 0},
		{dtype.Int64, expr.Sum, expr.Final, []string{"cvt.u32.u64", "st.global.s8"}, dtype.Int8},
		{dtype.Float32, expr.Mean, expr.Final, []string{"div.rn.f64", "st.global.f64"}, dtype.Float64},
		{dtype.Float64, expr.Min, expr.Final, []string{"setp.nan.f64", "st.global.f64"}, 0},
		{dtype.Float32, expr.ArgMax, expr.Final, []string{"st.global.s64"}, 0},
		{dtype.Float32, expr.ArgMin, expr.Partial, []string{"st.global.f32", "st.global.s64"}, 0},
	} {
		p := unary(expr.OpNeg, c.t)
		p.Reduce, p.Stage, p.ArgIndex, p.Result = c.r, c.st, -1, c.result
		ptx := generate(t, p)
		name := c.r.String() + " " + c.t.String()
		assert.Equal(t, 10, strings.Count(ptx, "shfl.sync.down.b32")/shflPerStep(c.t, c.r), name)
		assert.Contains(t, ptx, "bar.sync 0", name)
		assert.Contains(t, ptx, ".shared .align 8 .b8 gpuarr_red_val[256]", name)
		if c.r.IsArg() || expr.Wide(c.r, c.t) {
			assert.Contains(t, ptx, "gpuarr_red_pos", name)
		}
		for _, s := range c.store {
			assert.Contains(t, ptx, s, name)
		}
	}
}

// shflPerStep is how many 32-bit shuffles move one accumulator.
func shflPerStep(t dtype.DType, r expr.ReduceOp) int {
	n := expr.AccType(r, t).Size() / 4
	n = max(n, 1)
	if r.IsArg() || expr.Wide(r, t) {
		n += 2
	}
	return n
}

func TestMathFunctions(t *testing.T) {
	calls := stubMath(t)
	var called [][]string
	var seqs []int
	inlineFunc = func(name, ret string, seq int, args ...string) (string, int) {
		called = append(called, append([]string{name, ret}, args...))
		seqs = append(seqs, seq)
		return "\t// call " + name + "\n", seq + 2
	}
	p := &expr.Program{
		Rank:    2,
		Inputs:  []expr.Input{mem(dtype.Float32), {Kind: expr.Random, T: dtype.Float64, Normal: true, Strided: true}},
		Scalars: []dtype.DType{dtype.Float32},
		Code: []expr.Instr{in(dtype.Float32, 0), un(expr.OpExp, dtype.Float32, 0), sc(dtype.Float32, 0),
			bin(expr.OpPow, dtype.Float32, 1, 2), {Op: expr.OpRandom, T: dtype.Float64, Aux: 1},
			un(expr.OpCast, dtype.Float32, 4), bin(expr.OpAdd, dtype.Float32, 3, 5), un(expr.OpTanh, dtype.Float32, 6)},
	}
	ptx := generate(t, p)
	require.Len(t, *calls, 1)
	assert.Equal(t, []string{"exp_f32", "pow_f32", "rand_normal_f64", "tanh_f32"}, (*calls)[0])
	assert.Contains(t, ptx, "// math functions exp_f32 pow_f32 rand_normal_f64 tanh_f32")
	require.Len(t, called, 4)
	assert.Equal(t, []int{0, 2, 4, 6}, seqs, "each copy numbered after the last one's callees")
	byName := map[string][]string{}
	for _, c := range called {
		byName[c[0]] = c[1:]
	}
	assert.Regexp(t, `^%f\d+$`, byName["exp_f32"][0])
	assert.Len(t, byName["pow_f32"], 3)
	r := byName["rand_normal_f64"]
	require.Len(t, r, 4)
	assert.Regexp(t, `^%fd\d+$`, r[0])
	for _, a := range r[1:] {
		assert.Regexp(t, `^%rd\d+$`, a, "seed, counter and stream are u64 registers")
	}
	assert.Regexp(t, `ld\.param\.u64 `+r[1]+`, \[in1\]`, ptx, "seed is the input's parameter")
	assert.Regexp(t, `ld\.param\.u64 `+r[3]+`, \[in1_stream\]`, ptx)
	// The declarations come after the header and before the entry.
	assert.Less(t, strings.Index(ptx, "// math functions"), strings.Index(ptx, ".entry"))

	// A program without math calls asks for nothing.
	*calls = nil
	generate(t, binary(expr.OpAdd, dtype.Float32))
	assert.Empty(t, *calls)

	// FuncDefs' error is passed on.
	funcDefs = func([]string) (string, error) { return "", assert.AnError }
	_, err := Generate(unary(expr.OpLog, dtype.Float64), genHeader)
	assert.ErrorIs(t, err, assert.AnError)
}

func TestSemanticsInstructions(t *testing.T) {
	stubMath(t)
	has := func(p *expr.Program, want ...string) {
		t.Helper()
		ptx := generate(t, p)
		for _, w := range want {
			assert.Contains(t, ptx, w, "%s", p)
		}
	}
	has(binary(expr.OpAdd, dtype.Float32), "add.rn.f32")
	has(binary(expr.OpDiv, dtype.Float64), "div.rn.f64")
	has(binary(expr.OpDiv, dtype.Int32), "setp.eq.s32", "div.s32", ", -1")
	has(binary(expr.OpDiv, dtype.Uint64), "div.u64")
	has(binary(expr.OpMin, dtype.Float32), "min.f32", "setp.nan.f32")
	has(binary(expr.OpMax, dtype.Uint8), "max.u32")
	has(binary(expr.OpAdd, dtype.Int8), "add.s32", "cvt.s32.s8")
	has(binary(expr.OpSub, dtype.Uint16), "sub.u32", "and.b32", "65535")
	has(&expr.Program{Inputs: []expr.Input{mem(dtype.Float32)}, Code: []expr.Instr{in(dtype.Float32, 0), cst(dtype.Float32, 0),
		bin(expr.OpNe, dtype.Bool, 0, 1), un(expr.OpCast, dtype.Uint8, 2)}}, "setp.neu.f32", "selp.b32")
	has(unary(expr.OpSqrt, dtype.Float32), "sqrt.rn.f32")
	has(unary(expr.OpNeg, dtype.Uint32), "neg.s32")
	has(&expr.Program{Inputs: []expr.Input{mem(dtype.Float64)}, Code: []expr.Instr{in(dtype.Float64, 0), cst(dtype.Float64, 1.5),
		cst(dtype.Float64, 2), tern(expr.OpFMA, dtype.Float64, 0, 1, 2)}}, "fma.rn.f64", "0d3FF8000000000000", "0d4000000000000000")
	has(&expr.Program{Inputs: []expr.Input{mem(dtype.Int16)}, Code: []expr.Instr{in(dtype.Int16, 0), cst(dtype.Int16, -3),
		tern(expr.OpFMA, dtype.Int16, 0, 1, 0)}}, "mad.lo.s32", "0xFFFFFFFD", "ld.global.s16")
	has(&expr.Program{Inputs: []expr.Input{mem(dtype.Float32)}, Code: []expr.Instr{in(dtype.Float32, 0), un(expr.OpCast, dtype.Uint8, 0)}},
		"cvt.rzi.u32.f32", "min.u32", "setp.nan.f32", "st.global.u8")
	has(&expr.Program{Inputs: []expr.Input{mem(dtype.Int8)}, Code: []expr.Instr{in(dtype.Int8, 0), un(expr.OpCast, dtype.Float32, 0)}},
		"ld.global.s8", "cvt.rn.f32.s32")
	has(&expr.Program{Inputs: []expr.Input{mem(dtype.Float32)}, Code: []expr.Instr{in(dtype.Float32, 0), un(expr.OpCast, dtype.Float64, 0)}},
		"cvt.f64.f32")
	has(&expr.Program{Inputs: []expr.Input{mem(dtype.Int32)}, Code: []expr.Instr{in(dtype.Int32, 0), un(expr.OpCast, dtype.Bool, 0),
		un(expr.OpCast, dtype.Float32, 1)}}, "setp.ne.s32", "selp.f32", "0f3F800000")
	// Scalars travel in their parameter type and are loaded once, before the loop.
	p := &expr.Program{Inputs: []expr.Input{mem(dtype.Uint8)}, Scalars: []dtype.DType{dtype.Uint8},
		Code: []expr.Instr{in(dtype.Uint8, 0), sc(dtype.Uint8, 0), bin(expr.OpAdd, dtype.Uint8, 0, 1)}}
	ptx := generate(t, p)
	assert.Contains(t, ptx, ".param .u32 s0")
	assert.Less(t, strings.Index(ptx, "[s0]"), strings.Index(ptx, "$L_loop"))
}

func TestGenerateErrors(t *testing.T) {
	stubMath(t)
	ok := func() *expr.Program { return binary(expr.OpAdd, dtype.Float32) }
	for _, c := range []struct {
		name string
		edit func(p *expr.Program)
		want string
	}{
		{"empty", func(p *expr.Program) { p.Code = nil }, "no instructions"},
		{"forward operand", func(p *expr.Program) { p.Code[2].B = 2 }, "operand B is %2, not an earlier instruction"},
		{"negative operand", func(p *expr.Program) { p.Code[2].A = -1 }, "operand A is %-1"},
		{"input index", func(p *expr.Program) { p.Code[1].Aux = 5 }, "input index 5 out of range"},
		{"input type", func(p *expr.Program) { p.Code[1].T = dtype.Float64 }, "input in1 has type float32"},
		{"operand type", func(p *expr.Program) { p.Code[0] = cst(dtype.Int32, 1) }, "operand A has type int32; want float32"},
		{"exp of int", func(p *expr.Program) {
			*p = *unary(expr.OpExp, dtype.Int32)
		}, "op exp takes floats only, not int32"},
		{"add on bool", func(p *expr.Program) {
			p.Code = append(p.Code, bin(expr.OpLt, dtype.Bool, 0, 1), bin(expr.OpAdd, dtype.Bool, 3, 3), un(expr.OpCast, dtype.Float32, 4))
		}, "op add does not take bool"},
		{"add of halves", func(p *expr.Program) {
			p.Inputs[0].T, p.Code[0].T, p.Code[1] = dtype.Float16, dtype.Float16, in(dtype.Float16, 0)
			p.Code[2].T = dtype.Float16
		}, "operand A has type float16, which add does not take: programs compute halves in float32"},
		{"complex result of add", func(p *expr.Program) {
			p.Code = append(p.Code, bin(expr.OpComplex, dtype.Complex64, 0, 1), bin(expr.OpAdd, dtype.Complex64, 3, 3))
		}, "operand A has type complex64, which add does not take: programs compute complex numbers by parts"},
		{"int to half", func(p *expr.Program) {
			p.Code = append(p.Code, un(expr.OpCast, dtype.Int32, 2), un(expr.OpCast, dtype.Float16, 3))
		},
			"no cast from int32 to float16"},
		{"half to float64", func(p *expr.Program) {
			p.Code = append(p.Code, un(expr.OpCast, dtype.BFloat16, 2), un(expr.OpCast, dtype.Float64, 3))
		}, "no cast from bfloat16 to float64"},
		{"real of a float", func(p *expr.Program) { p.Code = append(p.Code, un(expr.OpReal, dtype.Float32, 2)) },
			"real takes a complex operand and yields its part type"},
		{"complex of float64s", func(p *expr.Program) {
			p.Code = append(p.Code, un(expr.OpCast, dtype.Float64, 2), bin(expr.OpComplex, dtype.Complex64, 3, 3))
		}, "operand A has type float64; want float32"},
		{"half scalar", func(p *expr.Program) { p.Scalars = []dtype.DType{dtype.Float16} }, "scalar s0 has type float16"},
		{"vector complex", func(p *expr.Program) {
			p.Inputs[0].T, p.Code[0], p.Vector = dtype.Complex64, in(dtype.Complex64, 0), 2
			p.Code[2] = un(expr.OpReal, dtype.Float32, 0)
		}, "vector width 2 with complex64 input in0"},
		{"rank", func(p *expr.Program) { p.Rank = 9 }, "rank 9 out of range"},
		{"vector width", func(p *expr.Program) { p.Vector = 3 }, "vector width 3"},
		{"vector too wide", func(p *expr.Program) { *p = *binary(expr.OpAdd, dtype.Float64); p.Vector = 4 }, "exceeds 16 bytes"},
		{"vector strided", func(p *expr.Program) { p.Vector, p.Rank, p.Inputs[0].Strided = 4, 1, true }, "strided, random or iota input in0"},
		{"vector narrow", func(p *expr.Program) { *p = *binary(expr.OpAdd, dtype.Int8); p.Vector = 2 }, "int8 input in0"},
		{"random not float", func(p *expr.Program) {
			p.Inputs = append(p.Inputs, expr.Input{Kind: expr.Random, T: dtype.Int32, Strided: true})
		}, "random input in2 has type int32"},
		{"random op on memory", func(p *expr.Program) { p.Code[0] = expr.Instr{Op: expr.OpRandom, T: dtype.Float32} }, "in0 is not a random input"},
		{"scalar", func(p *expr.Program) { p.Code[0] = sc(dtype.Float32, 0) }, "scalar index 0 out of range"},
		{"compare result", func(p *expr.Program) { p.Code[2].Op = expr.OpLt }, "a comparison yields bool, not float32"},
		{"where condition", func(p *expr.Program) { p.Code = append(p.Code, tern(expr.OpWhere, dtype.Float32, 0, 1, 2)) }, "operand A has type float32; want bool"},
		{"bad op", func(p *expr.Program) { p.Code[2].Op = 200 }, "invalid op 200"},
		{"bad reduce", func(p *expr.Program) { p.Reduce = 99 }, "invalid reduce op 99"},
		{"arg index range", func(p *expr.Program) { p.Reduce, p.ArgIndex = expr.ArgMax, 7 }, "ArgIndex 7 out of range"},
		{"arg index type", func(p *expr.Program) { p.Reduce, p.ArgIndex = expr.ArgMax, 0 }, "ArgIndex input in0 must be an int64"},
		{"wide high words type", func(p *expr.Program) { *p = *binary(expr.OpAdd, dtype.Int32); p.Reduce, p.ArgIndex = expr.Mean, 1 },
			"ArgIndex input in1 must be an int64"},
		{"min result", func(p *expr.Program) { p.Reduce, p.Result = expr.Min, dtype.Complex64 }, "min of float32 values writes complex64, which is no cast of float32"},
		{"max of complex", func(p *expr.Program) {
			p.Code = append(p.Code, bin(expr.OpComplex, dtype.Complex64, 0, 1))
			p.Reduce = expr.Max
		}, "max of complex64 values: complex numbers are not ordered"},
		{"sum of bools", func(p *expr.Program) { p.Code = append(p.Code, bin(expr.OpLt, dtype.Bool, 0, 1)); p.Reduce = expr.Sum },
			"sum of bool values: reduce them converted"},
		{"arg result", func(p *expr.Program) { p.Reduce, p.ArgIndex, p.Result = expr.ArgMin, -1, dtype.Int32 }, "argmin writes int64 positions, not int32"},
		{"bad result", func(p *expr.Program) { p.Reduce, p.Result = expr.Sum, 77 }, "result type DType(77)"},
		{"complex result of a real sum", func(p *expr.Program) { p.Reduce, p.Result = expr.Sum, dtype.Complex128 }, "which is no cast of float64"},
		{"mean of complex into a float", func(p *expr.Program) {
			p.Code = append(p.Code, bin(expr.OpComplex, dtype.Complex64, 0, 1))
			p.Reduce, p.Result = expr.Mean, dtype.Float32
		}, "mean of complex64 values writes float32, which is no cast of complex128"},
		{"complex input", func(p *expr.Program) { p.Inputs[0].T = dtype.Complex64 }, "input in0 has type complex64"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := ok()
			c.edit(p)
			_, err := Generate(p, genHeader)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, strings.HasPrefix(err.Error(), "ptxgen: expr: "), err.Error())
		})
	}
	_, err := Generate(ok(), genHeader)
	assert.NoError(t, err)
}

// A strided output stores through its own strides (signed, in the index
// width) and never in vectors; an Iota input has no base parameter and
// its value is its offset, sign-extended to s64.
func TestStridedOutAndIotaCode(t *testing.T) {
	for _, idx64 := range []bool{false, true} {
		p := &expr.Program{Rank: 2, Index64: idx64, OutStrided: true,
			Inputs: []expr.Input{mem(dtype.Float32), {Kind: expr.Iota, T: dtype.Int64, Strided: true}},
			Code: []expr.Instr{in(dtype.Float32, 0), {Op: expr.OpIota, T: dtype.Int64, Aux: 1, A: -1, B: -1, C: -1},
				un(expr.OpCast, dtype.Float32, 1), bin(expr.OpAdd, dtype.Float32, 0, 2)}}
		ptx := generate(t, p)
		for d := range 2 {
			assert.Regexp(t, `ld\.param\.s64 %rd\d+, \[out_stride`+itoa(d)+`\]`, ptx)
			assert.Regexp(t, `ld\.param\.s64 %rd\d+, \[in1_stride`+itoa(d)+`\]`, ptx)
		}
		assert.NotContains(t, ptx, "[in1]", "an iota input has no base")
		assert.NotContains(t, ptx, ".param .u64 in1\n")
		assert.NotContains(t, ptx, "st.global.v")
		loop := section(t, ptx, "loop", "done")
		if idx64 {
			assert.Contains(t, loop, "mul.lo.s64")
		} else {
			assert.Contains(t, loop, "mul.wide.s32")
			assert.Contains(t, loop, "cvt.s64.s32", "the iota's offset sign-extends")
		}
	}
	p := &expr.Program{Rank: 1, OutStrided: true, Vector: 4, Inputs: []expr.Input{mem(dtype.Float32)}, Code: []expr.Instr{in(dtype.Float32, 0)}}
	_, err := Generate(p, "")
	assert.ErrorContains(t, err, "strided output")
}

// A strided output of complex or bool elements stores each element as a
// contiguous one is stored: the two parts in one st.global.v2, a bool as
// a 0/1 byte (one scalar store of either is invalid PTX).
func TestStridedOutStoresWholeElements(t *testing.T) {
	for _, c := range []struct {
		t     dtype.DType
		store string
	}{
		{dtype.Complex64, `st\.global\.v2\.f32 \[%rd\d+\], \{%f\d+, %f\d+\};`},
		{dtype.Complex128, `st\.global\.v2\.f64 \[%rd\d+\], \{%fd\d+, %fd\d+\};`},
		{dtype.Bool, `selp\.u32 (%r\d+), 1, 0, %p\d+;\s+st\.global\.u8 \[%rd\d+\], (%r\d+);`},
	} {
		p := &expr.Program{Rank: 2, OutStrided: true, Inputs: []expr.Input{strided(c.t)}, Code: []expr.Instr{in(c.t, 0)}}
		assert.Regexp(t, c.store, section(t, generate(t, p), "loop", "done"), "%v", c.t)
	}
}

// A Columns reduction indexes its rows without dividing (the group and
// row of each element are known), reads four rows per iteration and
// combines the threads of a group through per-thread .shared slots.
func TestColumnsCode(t *testing.T) {
	p := &expr.Program{Rank: 2, Columns: true, Reduce: expr.Var, Stage: expr.Partial, ArgIndex: -1,
		Inputs: []expr.Input{strided(dtype.Float32)}, Code: []expr.Instr{in(dtype.Float32, 0)}}
	ptx := generate(t, p)
	rows := section(t, ptx, "rows4", "rows_end")
	assert.NotContains(t, rows, "div.", "no division per element")
	assert.Equal(t, 4, strings.Count(section(t, ptx, "rows4", "rows1"), "ld.global.f32"))
	for _, a := range []string{"gpuarr_col_val", "gpuarr_col_pos", "gpuarr_col_third"} {
		assert.Contains(t, ptx, ".shared .align 8 .b8 "+a+"[2048];")
	}
	p.Rank = 1
	_, err := Generate(p, "")
	assert.ErrorContains(t, err, "Columns needs rank 2")
	p.Rank, p.Inputs[0].Strided = 2, false
	_, err = Generate(p, "")
	assert.ErrorContains(t, err, "contiguous input in0")
}
