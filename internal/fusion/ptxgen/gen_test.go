package ptxgen

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

const genHeader = ".version 7.8\n.target sm_90\n.address_size 64\n"

// stubMath replaces the math library for one test: FuncDefs records the
// names it is asked for and returns a comment, InlineFunc a comment line.
func stubMath(t *testing.T) *[][]string {
	t.Helper()
	var calls [][]string
	oldDefs, oldInline := funcDefs, inlineFunc
	funcDefs = func(names []string) (string, error) {
		calls = append(calls, slices.Clone(names))
		return "// math functions " + strings.Join(names, " ") + "\n", nil
	}
	inlineFunc = func(name, ret string, seq int, args ...string) (string, int) {
		return "\t// call " + name + "\n", seq + 1
	}
	t.Cleanup(func() { funcDefs, inlineFunc = oldDefs, oldInline })
	return &calls
}

// check runs the host backend's PTX checker over ptx.
func check(t *testing.T, p *expr.Program, ptx string) {
	t.Helper()
	dev, err := device.Default()
	require.NoError(t, err)
	if dev.RunsHostKernels() {
		_, err := dev.RegisterHostKernel(p.EntryName(), func(*hostkernel.Launch) error { return nil })
		require.NoError(t, err)
	} else {
		t.Logf("%s: loading on %s", p.EntryName(), dev)
	}
	m, err := dev.LoadPTX(ptx)
	require.NoError(t, err, "%s\n%s", p, numberLines(ptx))
	k, err := m.Kernel(p.EntryName())
	require.NoError(t, err)
	assert.Equal(t, p.EntryName(), k.Name())
	require.NoError(t, m.Close())
}

func numberLines(s string) string {
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		b.WriteString(strings.Repeat(" ", 5-len(itoa(i+1))) + itoa(i+1) + "  " + l + "\n")
	}
	return b.String()
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

// Program builders.

func mem(t dtype.DType) expr.Input            { return expr.Input{Kind: expr.Memory, T: t} }
func strided(t dtype.DType) expr.Input        { return expr.Input{Kind: expr.Memory, T: t, Strided: true} }
func in(t dtype.DType, i int32) expr.Instr    { return expr.Instr{Op: expr.OpInput, T: t, Aux: i} }
func sc(t dtype.DType, j int32) expr.Instr    { return expr.Instr{Op: expr.OpScalar, T: t, Aux: j} }
func cst(t dtype.DType, x float64) expr.Instr { return expr.Instr{Op: expr.OpConst, T: t, Const: x} }
func un(op expr.Op, t dtype.DType, a int32) expr.Instr {
	return expr.Instr{Op: op, T: t, A: a}
}
func bin(op expr.Op, t dtype.DType, a, b int32) expr.Instr {
	return expr.Instr{Op: op, T: t, A: a, B: b}
}
func tern(op expr.Op, t dtype.DType, a, b, c int32) expr.Instr {
	return expr.Instr{Op: op, T: t, A: a, B: b, C: c}
}

// binary is out = in0 op in1 over type t.
func binary(op expr.Op, t dtype.DType) *expr.Program {
	return &expr.Program{
		Inputs: []expr.Input{mem(t), mem(t)},
		Code:   []expr.Instr{in(t, 0), in(t, 1), bin(op, t, 0, 1)},
	}
}

func unary(op expr.Op, t dtype.DType) *expr.Program {
	return &expr.Program{Inputs: []expr.Input{mem(t)}, Code: []expr.Instr{in(t, 0), un(op, t, 0)}}
}

var allTypes = []dtype.DType{dtype.Int8, dtype.Int16, dtype.Int32, dtype.Int64, dtype.Uint8, dtype.Uint16, dtype.Uint32,
	dtype.Uint64, dtype.Float32, dtype.Float64}

// programs is the representative set every structural test runs over.
func programs() map[string]*expr.Program {
	ps := map[string]*expr.Program{}
	for _, t := range allTypes {
		for _, op := range []expr.Op{expr.OpAdd, expr.OpSub, expr.OpMul, expr.OpDiv, expr.OpMin, expr.OpMax} {
			ps[op.String()+"_"+t.String()] = binary(op, t)
		}
		for _, op := range []expr.Op{expr.OpNeg, expr.OpAbs} {
			ps[op.String()+"_"+t.String()] = unary(op, t)
		}
		if t.IsInt() {
			// NumPy's integer // and %, Go's % (0 divisors and MinInt / −1
			// guarded), bitwise ops and shifts (counts past the width).
			for _, op := range []expr.Op{expr.OpFloorDiv, expr.OpMod, expr.OpRem, expr.OpBitAnd, expr.OpBitOr, expr.OpBitXor, expr.OpShl, expr.OpShr} {
				ps[op.String()+"_"+t.String()] = binary(op, t)
			}
		}
		for _, op := range []expr.Op{expr.OpLt, expr.OpLe, expr.OpGt, expr.OpGe, expr.OpEq, expr.OpNe} {
			// where(a op b, a, b·2+scalar)
			ps[op.String()+"_"+t.String()] = &expr.Program{
				Inputs:  []expr.Input{mem(t), mem(t)},
				Scalars: []dtype.DType{t},
				Code: []expr.Instr{in(t, 0), in(t, 1), bin(op, dtype.Bool, 0, 1), cst(t, 2), sc(t, 0),
					tern(expr.OpFMA, t, 1, 3, 4), tern(expr.OpWhere, t, 2, 0, 5)},
			}
		}
		for _, to := range append([]dtype.DType{dtype.Bool}, allTypes...) {
			// cast t → to, then back to an array type when to is Bool
			code := []expr.Instr{in(t, 0), un(expr.OpCast, to, 0)}
			if to == dtype.Bool {
				code = append(code, un(expr.OpNot, dtype.Bool, 1), cst(dtype.Bool, 1), bin(expr.OpOr, dtype.Bool, 2, 3),
					bin(expr.OpAnd, dtype.Bool, 4, 1), bin(expr.OpNe, dtype.Bool, 5, 2), un(expr.OpCast, dtype.Uint8, 6))
			}
			ps["cast_"+t.String()+"_"+to.String()] = &expr.Program{Inputs: []expr.Input{mem(t)}, Code: code}
		}
		for _, r := range []expr.ReduceOp{expr.Sum, expr.Prod, expr.Min, expr.Max, expr.Mean, expr.ArgMin, expr.ArgMax} {
			for _, st := range []expr.Stage{expr.Final, expr.Partial} {
				p := unary(expr.OpAbs, t)
				p.Reduce, p.Stage, p.ArgIndex = r, st, -1
				ps[r.String()+"_"+itoa(int(st))+"_"+t.String()] = p
			}
		}
	}
	for _, t := range []dtype.DType{dtype.Float32, dtype.Float64} {
		for _, op := range []expr.Op{expr.OpSqrt, expr.OpExp, expr.OpLog, expr.OpTanh} {
			ps[op.String()+"_"+t.String()] = unary(op, t)
		}
		ps["pow_"+t.String()] = binary(expr.OpPow, t)
		// NumPy's float // and %, Go's % (math library calls).
		for _, op := range []expr.Op{expr.OpFloorDiv, expr.OpMod, expr.OpRem} {
			ps[op.String()+"_"+t.String()] = binary(op, t)
		}
		for _, normal := range []bool{false, true} {
			p := &expr.Program{
				Rank:   2,
				Inputs: []expr.Input{{Kind: expr.Random, T: t, Normal: normal, Strided: true}, strided(t)},
				Code:   []expr.Instr{{Op: expr.OpRandom, T: t, Aux: 0}, in(t, 1), bin(expr.OpMul, t, 0, 1)},
			}
			ps["random_"+t.String()+map[bool]string{false: "_uniform", true: "_normal"}[normal]] = p
		}
	}
	// Math functions copied into a vector loop: sin reads a .const table
	// and branches; atanh_f64 copies log1p_f64 into its own copy.
	for _, c := range []struct {
		name string
		op   expr.Op
		t    dtype.DType
		v    int
	}{{"sin_f32x4", expr.OpSin, dtype.Float32, 4}, {"atanh_f64x2", expr.OpAtanh, dtype.Float64, 2}} {
		p := unary(c.op, c.t)
		p.Vector = c.v
		ps["vec_"+c.name] = p
	}
	// a + b with a strided and broadcast input, 32- and 64-bit indexes.
	for _, idx64 := range []bool{false, true} {
		for rank := 0; rank <= 3; rank++ {
			p := &expr.Program{
				Rank: rank, Index64: idx64,
				Inputs: []expr.Input{strided(dtype.Float32), mem(dtype.Float32), strided(dtype.Int8)},
				Code: []expr.Instr{in(dtype.Float32, 0), in(dtype.Float32, 1), bin(expr.OpAdd, dtype.Float32, 0, 1),
					in(dtype.Int8, 2), un(expr.OpCast, dtype.Float32, 3), bin(expr.OpMul, dtype.Float32, 2, 4)},
			}
			ps["strided_r"+itoa(rank)+map[bool]string{false: "", true: "_64"}[idx64]] = p
			r := *p
			r.Reduce, r.ArgIndex = expr.ArgMax, -1
			ps["strided_argmax_r"+itoa(rank)+map[bool]string{false: "", true: "_64"}[idx64]] = &r
		}
	}
	for _, idx64 := range []bool{false, true} {
		sfx := map[bool]string{false: "", true: "_64"}[idx64]
		for _, c := range []struct {
			name string
			t    dtype.DType
			v    int
		}{{"f32x4", dtype.Float32, 4}, {"f32x2", dtype.Float32, 2}, {"f64x2", dtype.Float64, 2}, {"i32x4", dtype.Int32, 4}, {"u64x2", dtype.Uint64, 2}} {
			p := binary(expr.OpAdd, c.t)
			p.Vector, p.Index64 = c.v, idx64
			ps["vec_"+c.name+sfx] = p
			for _, r := range []expr.ReduceOp{expr.Sum, expr.Max, expr.ArgMin, expr.Mean} {
				q := binary(expr.OpMul, c.t)
				q.Vector, q.Index64, q.Reduce, q.ArgIndex = c.v, idx64, r, -1
				ps["vec_"+r.String()+"_"+c.name+sfx] = q
			}
		}
		// A float32 value with a float64 input: V = 2 for both.
		ps["vec_mixed"+sfx] = &expr.Program{
			Vector: 2, Index64: idx64,
			Inputs: []expr.Input{mem(dtype.Float32), mem(dtype.Float64)},
			Code: []expr.Instr{in(dtype.Float32, 0), in(dtype.Float64, 1), un(expr.OpCast, dtype.Float32, 1),
				bin(expr.OpAdd, dtype.Float32, 0, 2)},
		}
		// Arg reductions over partials: positions from in1.
		for _, st := range []expr.Stage{expr.Final, expr.Partial} {
			for _, r := range []expr.ReduceOp{expr.ArgMin, expr.ArgMax} {
				ps["argindex_"+r.String()+itoa(int(st))+sfx] = &expr.Program{
					Index64: idx64, Reduce: r, Stage: st, ArgIndex: 1,
					Inputs: []expr.Input{mem(dtype.Float32), mem(dtype.Int64)},
					Code:   []expr.Instr{in(dtype.Float32, 0)},
				}
			}
			q := &expr.Program{
				Index64: idx64, Reduce: expr.ArgMax, Stage: st, ArgIndex: 1, Vector: 2,
				Inputs: []expr.Input{mem(dtype.Float32), mem(dtype.Int64)},
				Code:   []expr.Instr{in(dtype.Float32, 0)},
			}
			ps["argindex_vec"+itoa(int(st))+sfx] = q
		}
		// Wide means over partials (low words, high words from in1) into
		// integer and float results; a float32 sum into float64.
		for _, rt := range []dtype.DType{dtype.Int64, dtype.Uint64, dtype.Int8, dtype.Uint16, dtype.Float32, dtype.Float64} {
			ps["wide_partials_"+rt.String()+sfx] = &expr.Program{
				Index64: idx64, Reduce: expr.Mean, ArgIndex: 1, Result: rt,
				Inputs: []expr.Input{mem(dtype.Uint64), mem(dtype.Int64)},
				Code:   []expr.Instr{in(dtype.Uint64, 0)},
			}
		}
		ps["sum_f32_into_f64"+sfx] = &expr.Program{Index64: idx64, Reduce: expr.Sum, ArgIndex: -1, Result: dtype.Float64,
			Inputs: []expr.Input{mem(dtype.Float32)}, Code: []expr.Instr{in(dtype.Float32, 0)}}
	}
	ps["bool_where"] = &expr.Program{
		Inputs: []expr.Input{mem(dtype.Int32)},
		Code: []expr.Instr{in(dtype.Int32, 0), cst(dtype.Int32, 0), bin(expr.OpGt, dtype.Bool, 0, 1),
			bin(expr.OpLt, dtype.Bool, 0, 1), tern(expr.OpWhere, dtype.Bool, 2, 3, 2), un(expr.OpCast, dtype.Int16, 4)},
	}
	for name, p := range storagePrograms() {
		ps[name] = p
	}
	ps["consts_only"] = &expr.Program{
		Scalars: []dtype.DType{dtype.Float64, dtype.Bool},
		Code: []expr.Instr{sc(dtype.Float64, 0), un(expr.OpExp, dtype.Float64, 0), sc(dtype.Bool, 1),
			cst(dtype.Float64, math.Pi), tern(expr.OpWhere, dtype.Float64, 2, 1, 3)},
	}
	return ps
}

func TestGenerateChecks(t *testing.T) {
	stubMath(t)
	ps := programs()
	names := make([]string, 0, len(ps))
	for name := range ps {
		names = append(names, name)
	}
	slices.Sort(names)
	dump := os.Getenv("PTXGEN_DUMP") // a directory to write every module to
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p := ps[name]
			ptx, err := Generate(p, genHeader)
			require.NoError(t, err, "%s", p)
			assert.True(t, strings.HasPrefix(ptx, genHeader))
			assert.Contains(t, ptx, ".visible .entry "+p.EntryName()+"(")
			for _, prm := range p.Params() {
				assert.Regexp(t, `\.param \.\w+ `+prm.Name+`[,\n]`, ptx)
			}
			checkRegistersUsed(t, ptx)
			if dump != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dump, name+".ptx"), []byte(ptx), 0o644))
			}
			check(t, p, ptx)
		})
	}
}

var reInstrType = regexp.MustCompile(`(?m)^\t(?:@!?%p\d+ )?([a-z]+(?:\.[a-z0-9]+)*) `)

// checkRegistersUsed: every declared register class is used and no
// instruction is emitted with an unfinished type.
func checkRegistersUsed(t *testing.T, ptx string) {
	t.Helper()
	assert.NotContains(t, ptx, "%!", "format error")
	assert.NotContains(t, ptx, "..", "empty type suffix")
	for _, m := range reInstrType.FindAllStringSubmatch(ptx, -1) {
		assert.NotContains(t, m[1], ".u8.", "arithmetic on 8-bit types: %s", m[1])
	}
}

// storagePrograms is the representative set over the storage types:
// bools, the 16-bit floats, the complex types (as package fusion writes
// them: see its legalize.go).
func storagePrograms() map[string]*expr.Program {
	ps := map[string]*expr.Program{}
	f32 := dtype.Float32
	for _, ht := range []dtype.DType{dtype.Float16, dtype.BFloat16} {
		h := ht.String()
		ps["half_add_"+h] = &expr.Program{Inputs: []expr.Input{mem(ht), mem(ht)},
			Code: []expr.Instr{in(ht, 0), in(ht, 1), un(expr.OpCast, f32, 0), un(expr.OpCast, f32, 1), bin(expr.OpAdd, f32, 2, 3),
				un(expr.OpCast, ht, 4), un(expr.OpCast, f32, 5), bin(expr.OpMul, f32, 6, 2), un(expr.OpCast, ht, 7)}}
		ps["half_from_f64_"+h] = &expr.Program{Inputs: []expr.Input{strided(dtype.Float64)}, Rank: 2,
			Code: []expr.Instr{in(dtype.Float64, 0), un(expr.OpCast, ht, 0)}}
		ps["half_copy_"+h] = &expr.Program{Inputs: []expr.Input{strided(ht)}, Rank: 1, Code: []expr.Instr{in(ht, 0)}}
		for _, r := range []expr.ReduceOp{expr.Sum, expr.Max, expr.Mean, expr.ArgMin} {
			for _, st := range []expr.Stage{expr.Final, expr.Partial} {
				q := &expr.Program{Inputs: []expr.Input{mem(ht)}, Reduce: r, Stage: st, ArgIndex: -1,
					Code: []expr.Instr{in(ht, 0), un(expr.OpCast, f32, 0)}}
				if !r.IsArg() {
					q.Result = ht
				}
				ps["half_"+r.String()+itoa(int(st))+"_"+h] = q
			}
		}
	}
	ps["bool_store"] = &expr.Program{Inputs: []expr.Input{mem(f32), mem(f32)},
		Code: []expr.Instr{in(f32, 0), in(f32, 1), bin(expr.OpLt, dtype.Bool, 0, 1)}}
	ps["bool_load_strided"] = &expr.Program{Inputs: []expr.Input{strided(dtype.Bool), mem(dtype.Bool)}, Rank: 2,
		Code: []expr.Instr{in(dtype.Bool, 0), in(dtype.Bool, 1), bin(expr.OpAnd, dtype.Bool, 0, 1), un(expr.OpNot, dtype.Bool, 2)}}
	for _, r := range []expr.ReduceOp{expr.Max, expr.Min, expr.ArgMax} {
		for _, st := range []expr.Stage{expr.Final, expr.Partial} {
			q := &expr.Program{Inputs: []expr.Input{mem(dtype.Bool)}, Reduce: r, Stage: st, ArgIndex: -1,
				Code: []expr.Instr{in(dtype.Bool, 0), un(expr.OpCast, dtype.Uint8, 0)}}
			if !r.IsArg() {
				q.Result = dtype.Bool
			}
			ps["bool_"+r.String()+itoa(int(st))] = q
		}
	}
	for _, ct := range []dtype.DType{dtype.Complex64, dtype.Complex128} {
		c, pt := ct.String(), expr.PartType(ct)
		mul := []expr.Instr{in(ct, 0), in(ct, 1), un(expr.OpReal, pt, 0), un(expr.OpImag, pt, 0), un(expr.OpReal, pt, 1),
			un(expr.OpImag, pt, 1), bin(expr.OpMul, pt, 2, 4), bin(expr.OpMul, pt, 3, 5), bin(expr.OpSub, pt, 6, 7),
			bin(expr.OpMul, pt, 2, 5), bin(expr.OpMul, pt, 3, 4), bin(expr.OpAdd, pt, 9, 10), bin(expr.OpComplex, ct, 8, 11)}
		ps["complex_mul_"+c] = &expr.Program{Inputs: []expr.Input{mem(ct), strided(ct)}, Rank: 1, Code: mul}
		ps["complex_copy_"+c] = &expr.Program{Inputs: []expr.Input{strided(ct)}, Rank: 2, Code: []expr.Instr{in(ct, 0)}}
		for _, r := range []expr.ReduceOp{expr.Sum, expr.Prod, expr.Mean} {
			for _, st := range []expr.Stage{expr.Final, expr.Partial} {
				ps["complex_"+r.String()+itoa(int(st))+"_"+c] = &expr.Program{Inputs: []expr.Input{mem(ct), strided(ct)}, Rank: 1,
					Reduce: r, Stage: st, ArgIndex: -1, Code: mul}
			}
		}
		// A complex value of real vector inputs, reduced.
		ps["complex_vec_sum_"+c] = &expr.Program{Inputs: []expr.Input{mem(pt), mem(pt)}, Vector: 16 / pt.Size(), Reduce: expr.Sum,
			ArgIndex: -1, Code: []expr.Instr{in(pt, 0), in(pt, 1), bin(expr.OpComplex, ct, 0, 1)}}
	}
	// 2-byte operands in vectors: 8 halves or int16s in four 32-bit words,
	// 4 beside a float32 output, 4 in a reduction.
	for _, idx64 := range []bool{false, true} {
		sfx := map[bool]string{false: "", true: "_64"}[idx64]
		h := *ps["half_add_float16"]
		h.Vector, h.Index64 = 8, idx64
		ps["vec_half_x8"+sfx] = &h
		i16 := binary(expr.OpAdd, dtype.Int16)
		i16.Vector, i16.Index64 = 8, idx64
		ps["vec_i16x8"+sfx] = i16
		ps["vec_bf16_f32x4"+sfx] = &expr.Program{Vector: 4, Index64: idx64, Inputs: []expr.Input{mem(dtype.BFloat16), mem(f32)},
			Code: []expr.Instr{in(dtype.BFloat16, 0), in(f32, 1), un(expr.OpCast, f32, 0), bin(expr.OpMul, f32, 1, 2)}}
		// 1-byte outputs packed into words: 4 bools of float32s, 2 of
		// float64s, 8 int8s of int16s.
		ps["vec_isnan_f32x4"+sfx] = &expr.Program{Vector: 4, Index64: idx64, Inputs: []expr.Input{mem(f32)},
			Code: []expr.Instr{in(f32, 0), un(expr.OpIsNaN, dtype.Bool, 0)}}
		ps["vec_lt_f64x2"+sfx] = &expr.Program{Vector: 2, Index64: idx64, Inputs: []expr.Input{mem(dtype.Float64), mem(dtype.Float64)},
			Code: []expr.Instr{in(dtype.Float64, 0), in(dtype.Float64, 1), bin(expr.OpLt, dtype.Bool, 0, 1)}}
		ps["vec_i8_of_i16x8"+sfx] = &expr.Program{Vector: 8, Index64: idx64, Inputs: []expr.Input{mem(dtype.Int16)},
			Code: []expr.Instr{in(dtype.Int16, 0), un(expr.OpCast, dtype.Int8, 0)}}
		ps["vec_half_sum"+sfx] = &expr.Program{Vector: 4, Index64: idx64, Reduce: expr.Sum, ArgIndex: -1, Result: dtype.Float16,
			Inputs: []expr.Input{mem(dtype.Float16)}, Code: []expr.Instr{in(dtype.Float16, 0), un(expr.OpCast, f32, 0)}}
	}
	ps["complex128_into_complex64"] = &expr.Program{Inputs: []expr.Input{mem(dtype.Complex128)}, Reduce: expr.Mean, ArgIndex: -1,
		Result: dtype.Complex64, Code: []expr.Instr{in(dtype.Complex128, 0)}}
	return ps
}
