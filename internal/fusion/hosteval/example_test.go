package hosteval_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/fusion/hosteval"
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

// The host device runs a Program's launch in Go: its kernel is bound to the
// PTX entry's name, so the module ptxgen writes loads and launches there
// with the parameters a GPU takes (out, n, the inputs, the scalar).
func Example() {
	dev, err := device.Open("host")
	if err != nil {
		fmt.Println(err)
		return
	}
	p := axpy()
	if _, err := dev.RegisterHostKernel(p.EntryName(), hosteval.Kernel(p)); err != nil {
		fmt.Println(err)
		return
	}
	src, err := ptxgen.Generate(p, dev.PTXHeader())
	if err != nil {
		fmt.Println(err)
		return
	}
	mod, err := dev.LoadPTX(src)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mod.Close()
	k, err := mod.Kernel(p.EntryName())
	if err != nil {
		fmt.Println(err)
		return
	}
	buf, err := dev.Alloc(3 * 4 * 4) // out, x, y: four float32s each
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Free(buf)
	out, x, y := buf, buf+16, buf+32
	s := dev.DefaultStream()
	res := make([]float32, 4)
	err = device.Upload(s, x, []float32{1, 2, 3, 4})
	if err == nil {
		err = device.Upload(s, y, []float32{10, 20, 30, 40})
	}
	if err == nil {
		err = s.Launch(k, device.Linear(4, 128), out, uint64(4), x, y, float32(2))
	}
	if err == nil {
		err = device.Download(s, res, out)
	}
	fmt.Println(res, err)
	// Output: [12 24 36 48] <nil>
}
