package hosteval

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

func TestBadPrograms(t *testing.T) {
	f32, i32 := dtype.Float32, dtype.Int32
	tests := []struct {
		name string
		p    *expr.Program
		want string
	}{
		{"empty", elementwise(nil, nil), "empty program"},
		{"forward operand", elementwise([]expr.Instr{input(0, f32), bin(expr.OpAdd, f32, 0, 2)}, contiguous(f32, 1)), "operand 1 is %2"},
		{"negative operand", elementwise([]expr.Instr{input(0, f32), un(expr.OpNeg, f32, -1)}, contiguous(f32, 1)), "operand 0 is %-1"},
		{"exp of int", elementwise([]expr.Instr{input(0, i32), un(expr.OpExp, i32, 0)}, contiguous(i32, 1)), "exp does not apply to int32"},
		{"pow of int", elementwise([]expr.Instr{input(0, i32), bin(expr.OpPow, i32, 0, 0)}, contiguous(i32, 1)), "pow does not apply to int32"},
		{"not of float", elementwise([]expr.Instr{input(0, f32), un(expr.OpNot, f32, 0)}, contiguous(f32, 1)), "not does not apply to float32"},
		{"and of ints", elementwise([]expr.Instr{input(0, i32), bin(expr.OpAnd, i32, 0, 0)}, contiguous(i32, 1)), "and does not apply to int32"},
		{"mixed operands", elementwise([]expr.Instr{input(0, f32), input(1, i32), bin(expr.OpAdd, f32, 0, 1)},
			[]expr.Input{{T: f32}, {T: i32}}), "operand %1 has type int32, want float32"},
		{"compare into float", elementwise([]expr.Instr{input(0, f32), bin(expr.OpLt, f32, 0, 0)}, contiguous(f32, 1)), "want equal operand types, bool result"},
		{"where without bool", elementwise([]expr.Instr{input(0, f32), tern(expr.OpWhere, f32, 0, 0, 0)}, contiguous(f32, 1)), "want a bool condition"},
		{"input out of range", elementwise([]expr.Instr{input(3, f32)}, contiguous(f32, 1)), "input 3 of 1"},
		{"input type", elementwise([]expr.Instr{input(0, i32)}, contiguous(f32, 1)), "input 0 is a float32 array"},
		{"scalar type", elementwise([]expr.Instr{leaf(expr.OpScalar, f32, 0)}, nil), "scalar 0 is not a float32 scalar"},
		{"unknown op", elementwise([]expr.Instr{input(0, f32), {Op: 99, T: f32}}, contiguous(f32, 1)), "unknown op 99"},
		{"bad type", elementwise([]expr.Instr{input(0, f32), un(expr.OpCast, 42, 0)}, contiguous(f32, 1)), "type 42"},
		{"add of halves", elementwise([]expr.Instr{input(0, dtype.Float16), bin(expr.OpAdd, dtype.Float16, 0, 0)}, contiguous(dtype.Float16, 1)),
			"add does not apply to float16 (a storage type"},
		{"mul of complex", elementwise([]expr.Instr{input(0, dtype.Complex64), bin(expr.OpMul, dtype.Complex64, 0, 0)}, contiguous(dtype.Complex64, 1)),
			"mul does not apply to complex64 (a storage type"},
		{"int to half", elementwise([]expr.Instr{input(0, i32), un(expr.OpCast, dtype.BFloat16, 0)}, contiguous(i32, 1)), "no cast from int32 to bfloat16"},
		{"real of a float", elementwise([]expr.Instr{input(0, f32), un(expr.OpReal, f32, 0)}, contiguous(f32, 1)), "real of float32 into float32"},
		{"complex of mixed parts", elementwise([]expr.Instr{input(0, f32), input(1, dtype.Float64), bin(expr.OpComplex, dtype.Complex64, 0, 1)},
			[]expr.Input{{T: f32}, {T: dtype.Float64}}), "complex of float32 and float64 into complex64"},
		{"random not strided", &expr.Program{Code: []expr.Instr{leaf(expr.OpRandom, f32, 0)}, Rank: 1,
			Inputs: []expr.Input{{Kind: expr.Random, T: f32}}}, "must be strided"},
		{"random int", &expr.Program{Code: []expr.Instr{leaf(expr.OpRandom, i32, 0)}, Rank: 1,
			Inputs: []expr.Input{{Kind: expr.Random, T: i32, Strided: true}}}, "random values of type int32"},
		{"strided at rank 0", elementwise([]expr.Instr{input(0, f32)}, []expr.Input{{T: f32, Strided: true}}), "strided but the program has rank 0"},
		{"sum of bools", &expr.Program{Code: []expr.Instr{input(0, f32), bin(expr.OpLt, dtype.Bool, 0, 0)}, Inputs: contiguous(f32, 1),
			Reduce: expr.Sum}, "sum of bool values"},
		{"bad ArgIndex", &expr.Program{Code: []expr.Instr{input(0, f32)}, Inputs: contiguous(f32, 1), Reduce: expr.ArgMax, ArgIndex: 1}, "ArgIndex 1"},
		{"ArgIndex not int64", &expr.Program{Code: []expr.Instr{input(0, f32)}, Inputs: contiguous(f32, 2), Reduce: expr.ArgMax, ArgIndex: 1}, "positions must be an int64"},
		{"ArgIndex read by code", &expr.Program{Code: []expr.Instr{input(0, dtype.Int64)}, Inputs: contiguous(dtype.Int64, 1), Reduce: expr.ArgMax}, "reads the positions input"},
		{"unknown reduction", &expr.Program{Code: []expr.Instr{input(0, f32)}, Inputs: contiguous(f32, 1), Reduce: 50}, "unknown reduction"},
		{"min into complex", &expr.Program{Code: []expr.Instr{input(0, f32)}, Inputs: contiguous(f32, 1), Reduce: expr.Min, ArgIndex: -1,
			Result: dtype.Complex64}, "min of float32 values writes complex64, which is no conversion of float32"},
		{"max of complex", &expr.Program{Code: []expr.Instr{input(0, dtype.Complex64)}, Inputs: contiguous(dtype.Complex64, 1), Reduce: expr.Max, ArgIndex: -1},
			"complex numbers are not ordered"},
		{"sum of halves", &expr.Program{Code: []expr.Instr{input(0, dtype.Float16)}, Inputs: contiguous(dtype.Float16, 1), Reduce: expr.Sum, ArgIndex: -1},
			"sum of float16 values (reduce them converted"},
		{"argmax into int32", &expr.Program{Code: []expr.Instr{input(0, f32)}, Inputs: contiguous(f32, 1), Reduce: expr.ArgMax, ArgIndex: -1,
			Result: i32}, "writes int64 positions, not int32"},
		{"bad result type", &expr.Program{Code: []expr.Instr{input(0, f32)}, Inputs: contiguous(f32, 1), Reduce: expr.Sum, ArgIndex: -1,
			Result: 42}, "result type"},
		{"wide high words not int64", &expr.Program{Code: []expr.Instr{input(0, dtype.Uint64)}, Inputs: contiguous(dtype.Uint64, 2), Reduce: expr.Mean,
			ArgIndex: 1}, "positions must be an int64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			// The kernel Kernel returns fails every launch with that error.
			assert.ErrorContains(t, Kernel(tc.p)(nil), tc.want)
		})
	}
	assert.ErrorContains(t, Check(nil), "nil program")
}

func TestBadProgramLaunchFails(t *testing.T) {
	dev := hostDevice(t)
	p := elementwise([]expr.Instr{input(0, dtype.Int32), un(expr.OpSqrt, dtype.Int32, 0)}, contiguous(dtype.Int32, 1))
	err := run(t, dev, p, call{n: 4, out: alloc[int32](t, dev, 4), ins: []inArg{{ptr: alloc[int32](t, dev, 4)}}})
	assert.ErrorContains(t, err, "sqrt does not apply to int32")
	var de *device.Error
	require.True(t, errors.As(err, &de), "%T", err)
	assert.Equal(t, "CUDA_ERROR_LAUNCH_FAILED", de.Code.Name(), "a failed launch, as the driver reports one")
}

func TestBadLaunches(t *testing.T) {
	dev := hostDevice(t)
	f32 := dtype.Float32
	add := elementwise([]expr.Instr{input(0, f32), input(1, f32), bin(expr.OpAdd, f32, 0, 1)}, contiguous(f32, 2))
	a := upload(t, dev, []float32{1, 2, 3, 4})
	out := alloc[float32](t, dev, 4)
	big := alloc[float32](t, dev, 8)
	strided := &expr.Program{Code: []expr.Instr{input(0, f32)}, Inputs: []expr.Input{{T: f32, Strided: true}}, Rank: 2, ArgIndex: -1}
	partial := &expr.Program{Code: []expr.Instr{input(0, f32)}, Inputs: contiguous(f32, 1), Reduce: expr.Sum, Stage: expr.Partial, ArgIndex: -1}
	tests := []struct {
		name string
		p    *expr.Program
		c    call
		want string
	}{
		{"out past its allocation", add, call{n: 5, out: out, ins: []inArg{{ptr: a}, {ptr: a}}}, "out: "},
		{"input past its allocation", add, call{n: 5, out: big, ins: []inArg{{ptr: big}, {ptr: a}}}, "input 1: "},
		{"dims disagree with n", strided, call{n: 4, out: out, dims: []uint64{2, 3}, ins: []inArg{{ptr: a, strides: []int64{2, 1}}}}, "hold 6 elements"},
		{"strides reach outside", strided, call{n: 4, out: out, dims: []uint64{2, 2}, ins: []inArg{{ptr: a, strides: []int64{-2, 1}}}}, "input 0 (strides [-2 1]"},
		{"stride overflow", strided, call{n: 4, out: out, dims: []uint64{2, 2}, ins: []inArg{{ptr: a, strides: []int64{1 << 62, 1 << 62}}}}, "overflow"},
		{"bpg 0", partial, call{out: out, groups: 1, glen: 4, ins: []inArg{{ptr: a}}}, "bpg is 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorContains(t, run(t, dev, tc.p, tc.c), tc.want)
		})
	}
	t.Run("wrong argument list", func(t *testing.T) {
		run(t, dev, add, call{n: 1, out: out, ins: []inArg{{ptr: a}, {ptr: a}}}) // registers and loads
		k, _ := modules.Load(add.EntryName())
		s := dev.DefaultStream()
		require.NoError(t, s.Launch(k.(*device.Kernel), device.Linear(4, 256), out, uint64(4), a))
		assert.ErrorContains(t, s.Synchronize(), "3 arguments, want 4")
		require.NoError(t, s.Launch(k.(*device.Kernel), device.Linear(4, 256), out, float32(4), a, a))
		assert.ErrorContains(t, s.Synchronize(), "argument 1 (n) is a float32, want uint64")
	})
	t.Run("memory errors keep their code", func(t *testing.T) {
		err := run(t, dev, add, call{n: 5, out: out, ins: []inArg{{ptr: a}, {ptr: a}}})
		assert.ErrorIs(t, err, device.ErrIllegalAddress)
	})
}
