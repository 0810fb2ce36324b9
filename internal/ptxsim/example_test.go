package ptxsim_test

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/internal/ptxsim"
)

// A kernel that doubles n u32 values in place, one thread an element.
const doublePTX = `.version 7.8
.target sm_90
.address_size 64
.visible .entry double(.param .u64 x, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [x];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.u32 %r5, %r3, %r4, %r2;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra $L_done;
	mul.wide.u32 %rd2, %r5, 4;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.u32 %r6, [%rd3];
	shl.b32 %r7, %r6, 1;
	st.global.u32 [%rd3], %r7;
$L_done:
	ret;
}
`

// Parse a module, run one launch over an Arena, and read the result back.
// A launch that reaches past its allocation fails with ErrFault, as the
// kernel would fault on a GPU.
func Example() {
	m, err := ptxsim.Parse(doublePTX)
	if err != nil {
		fmt.Println(err)
		return
	}
	var mem ptxsim.Arena
	x := mem.Alloc(4 * 5)
	ptxsim.Put(&mem, x, []uint32{1, 2, 3, 4, 5})
	err = m.Run("double", ptxsim.Launch{Grid: ptxsim.Dim3{X: 2}, Block: ptxsim.Dim3{X: 4}, Params: []uint64{x, 5}, Mem: &mem, Seed: 7})
	fmt.Println(ptxsim.Get[uint32](&mem, x, 5), err)

	// n = 8 over 5 elements: threads 5..7 read outside the allocation.
	err = m.Run("double", ptxsim.Launch{Block: ptxsim.Dim3{X: 8}, Params: []uint64{x, 8}, Mem: &mem})
	fmt.Println(errors.Is(err, ptxsim.ErrFault))
	// Output:
	// [2 4 6 8 10] <nil>
	// true
}
