package ptxgen_test

import (
	"fmt"
	"strings"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/fusion/ptxgen"
)

// axpy is out[i] = x[i]·a + y[i] over float32s.
func axpy() *expr.Program {
	return &expr.Program{
		Inputs:  []expr.Input{{Kind: expr.Memory, T: dtype.Float32}, {Kind: expr.Memory, T: dtype.Float32}},
		Scalars: []dtype.DType{dtype.Float32},
		Code: []expr.Instr{
			{Op: expr.OpInput, T: dtype.Float32, Aux: 0},
			{Op: expr.OpScalar, T: dtype.Float32, Aux: 0},
			{Op: expr.OpMul, T: dtype.Float32, A: 0, B: 1},
			{Op: expr.OpInput, T: dtype.Float32, Aux: 1},
			{Op: expr.OpAdd, T: dtype.Float32, A: 2, B: 3},
		},
	}
}

// A Program as PTX: one entry named after the program's key, taking its
// parameters, with float arithmetic rounded to nearest and never
// contracted into an FMA.
func Example() {
	p := axpy()
	src, err := ptxgen.Generate(p, ".version 7.8\n.target sm_90\n.address_size 64\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(src, ".visible .entry "+p.EntryName()+"("))
	fmt.Println(strings.Contains(src, "mul.rn.f32"), strings.Contains(src, "add.rn.f32"), strings.Contains(src, "fma"))
	// Output:
	// true
	// true true false
}
