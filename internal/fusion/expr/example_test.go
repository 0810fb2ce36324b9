package expr_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// out[i] = x[i]·a + y[i] as a Program: two contiguous inputs, one scalar,
// and the kernel parameters both back ends take, in order.
func Example() {
	p := &expr.Program{
		Inputs:  []expr.Input{{Kind: expr.Memory, T: dtype.Float32}, {Kind: expr.Memory, T: dtype.Float32}},
		Scalars: []dtype.DType{dtype.Float32},
		Code: []expr.Instr{
			{Op: expr.OpInput, T: dtype.Float32, Aux: 0},   // 0: x[i]
			{Op: expr.OpScalar, T: dtype.Float32, Aux: 0},  // 1: a
			{Op: expr.OpMul, T: dtype.Float32, A: 0, B: 1}, // 2: x[i]·a
			{Op: expr.OpInput, T: dtype.Float32, Aux: 1},   // 3: y[i]
			{Op: expr.OpAdd, T: dtype.Float32, A: 2, B: 3}, // 4: the value
		},
	}
	fmt.Println(p.Validate())
	for _, prm := range p.Params() {
		fmt.Print(prm.T, " ")
	}
	fmt.Println()
	// Output:
	// <nil>
	// uint64 uint64 uint64 uint64 float32
}
