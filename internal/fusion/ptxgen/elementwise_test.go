package ptxgen

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// TestRegisterCap: the entry declares .maxnreg 32 exactly for vector
// kernels over one array of 32-bit types without pow or hypot.
func TestRegisterCap(t *testing.T) {
	f32, f64 := dtype.Float32, dtype.Float64
	unary := func(op expr.Op, ty dtype.DType, vector int) *expr.Program {
		return &expr.Program{Inputs: []expr.Input{{Kind: expr.Memory, T: ty}}, Vector: vector,
			Code: []expr.Instr{{Op: expr.OpInput, T: ty}, {Op: op, T: ty, A: 0}}}
	}
	withScalar := func(op expr.Op) *expr.Program {
		return &expr.Program{Inputs: []expr.Input{{Kind: expr.Memory, T: f32}}, Vector: 4, Scalars: []dtype.DType{f32},
			Code: []expr.Instr{{Op: expr.OpInput, T: f32}, {Op: expr.OpScalar, T: f32}, {Op: op, T: f32, A: 0, B: 1}}}
	}
	twoArrays := &expr.Program{Inputs: []expr.Input{{Kind: expr.Memory, T: f32}, {Kind: expr.Memory, T: f32}}, Vector: 4,
		Code: []expr.Instr{{Op: expr.OpInput, T: f32}, {Op: expr.OpInput, T: f32, Aux: 1}, {Op: expr.OpMul, T: f32, A: 0, B: 1}}}
	for _, c := range []struct {
		name string
		p    *expr.Program
		cap  bool
	}{
		{"erfc float32, vector 4", unary(expr.OpErfc, f32, 4), true},
		{"sin float32, vector 4", unary(expr.OpSin, f32, 4), true},
		{"atan2 with a scalar", withScalar(expr.OpAtan2), true},
		{"erfc float32, scalar elements", unary(expr.OpErfc, f32, 1), false},
		{"erfc float64", unary(expr.OpErfc, f64, 2), false},
		{"pow with a scalar", withScalar(expr.OpPow), false},
		{"hypot with a scalar", withScalar(expr.OpHypot), false},
		{"two arrays", twoArrays, false},
	} {
		src, err := Generate(c.p, ".version 7.8\n.target sm_90\n.address_size 64\n")
		require.NoError(t, err, c.name)
		entry := src[strings.Index(src, ".entry "):]
		assert.Equal(t, c.cap, strings.Contains(entry, ")\n.maxnreg 32\n{"), "%s: .maxnreg 32 after the parameters", c.name)
		assert.Equal(t, c.cap, strings.Contains(src, ".maxnreg"), "%s: any .maxnreg", c.name)
	}
}
