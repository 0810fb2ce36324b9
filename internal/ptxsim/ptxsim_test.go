package ptxsim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const header = ".version 7.8\n.target sm_90\n.address_size 64\n"

// A grid-stride vector add over u32 (x[i] + y[i] → z[i]).
const vaddPTX = header + `
.visible .entry vadd(
	.param .u64 x,
	.param .u64 y,
	.param .u64 z,
	.param .u32 n
)
{
	.reg .pred %p<3>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<10>;
	ld.param.u64 %rd1, [x];
	ld.param.u64 %rd2, [y];
	ld.param.u64 %rd3, [z];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mad.lo.u32 %r5, %r3, %r4, %r2;
	mov.u32 %r6, %nctaid.x;
	mul.lo.u32 %r6, %r6, %r4;
$L_loop:
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra $L_done;
	mul.wide.u32 %rd4, %r5, 4;
	add.s64 %rd5, %rd1, %rd4;
	add.s64 %rd6, %rd2, %rd4;
	add.s64 %rd7, %rd3, %rd4;
	ld.global.u32 %r7, [%rd5];
	ld.global.u32 %r8, [%rd6];
	add.s32 %r9, %r7, %r8;
	st.global.u32 [%rd7], %r9;
	add.s32 %r5, %r5, %r6;
	bra $L_loop;
$L_done:
	ret;
}
`

func TestVectorAdd(t *testing.T) {
	m, err := Parse(vaddPTX)
	require.NoError(t, err)
	var a Arena
	const n = 1000
	xs, ys := make([]uint32, n), make([]uint32, n)
	for i := range xs {
		xs[i], ys[i] = uint32(i), uint32(3*i+1)
	}
	x, y, z := a.Alloc(4*n), a.Alloc(4*n), a.Alloc(4*n)
	Put(&a, x, xs)
	Put(&a, y, ys)
	for _, seed := range []uint64{0, 1, 2} {
		err = m.Run("vadd", Launch{Grid: Dim3{X: 3}, Block: Dim3{X: 64}, Params: []uint64{x, y, z, n}, Mem: &a, Seed: seed})
		require.NoError(t, err)
		got := Get[uint32](&a, z, n)
		for i := range got {
			require.Equal(t, uint32(4*i+1), got[i], "element %d", i)
		}
	}
}

func TestOutOfBoundsIsAFault(t *testing.T) {
	m, err := Parse(vaddPTX)
	require.NoError(t, err)
	var a Arena
	x, y, z := a.Alloc(40), a.Alloc(40), a.Alloc(40)
	err = m.Run("vadd", Launch{Grid: Dim3{X: 1}, Block: Dim3{X: 32}, Params: []uint64{x, y, z, 11}, Mem: &a})
	require.ErrorIs(t, err, ErrFault)
	assert.Contains(t, err.Error(), "outside every allocation")
}

// A block sum: shfl.sync.down within warps, one shared slot per warp,
// bar.sync, then warp 0; the block total is added to out with atom.
const blockSumPTX = header + `
.shared .align 4 .b8 slots[128];
.visible .entry bsum(
	.param .u64 in,
	.param .u64 out
)
{
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.u32 %r4, %r2, %r3, %r1;
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.u32 %r5, [%rd4];
	shfl.sync.down.b32 %r6, %r5, 16, 31, -1;
	add.s32 %r5, %r5, %r6;
	shfl.sync.down.b32 %r6, %r5, 8, 31, -1;
	add.s32 %r5, %r5, %r6;
	shfl.sync.down.b32 %r6, %r5, 4, 31, -1;
	add.s32 %r5, %r5, %r6;
	shfl.sync.down.b32 %r6, %r5, 2, 31, -1;
	add.s32 %r5, %r5, %r6;
	shfl.sync.down.b32 %r6, %r5, 1, 31, -1;
	add.s32 %r5, %r5, %r6;
	and.b32 %r7, %r1, 31;
	shr.u32 %r8, %r1, 5;
	setp.eq.u32 %p1, %r7, 0;
	mov.u32 %r9, slots;
	shl.b32 %r10, %r8, 2;
	add.s32 %r11, %r9, %r10;
	@%p1 st.shared.u32 [%r11], %r5;
	bar.sync 0;
	setp.ne.u32 %p2, %r8, 0;
	@%p2 bra $L_end;
	shr.u32 %r12, %r3, 5;
	setp.lt.u32 %p3, %r7, %r12;
	mov.u32 %r13, 0;
	shl.b32 %r14, %r7, 2;
	add.s32 %r15, %r9, %r14;
	@%p3 ld.shared.u32 %r13, [%r15];
	redux.sync.add.u32 %r16, %r13, -1;
	@%p1 red.global.add.u32 [%rd2], %r16;
$L_end:
	ret;
}
`

func TestBlockSumWithCollectives(t *testing.T) {
	m, err := Parse(blockSumPTX)
	require.NoError(t, err)
	var a Arena
	const blocks, threads = 5, 256
	vals := make([]uint32, blocks*threads)
	var want uint32
	for i := range vals {
		vals[i] = uint32(i*i%97 + 1)
		want += vals[i]
	}
	in, out := a.Alloc(4*len(vals)), a.Alloc(4)
	Put(&a, in, vals)
	for _, seed := range []uint64{0, 7, 8} {
		Put(&a, out, []uint32{0})
		require.NoError(t, m.Run("bsum", Launch{Grid: Dim3{X: blocks}, Block: Dim3{X: threads}, Params: []uint64{in, out}, Mem: &a, Seed: seed, Resident: 2}))
		assert.Equal(t, want, Get[uint32](&a, out, 1)[0])
	}
}

// match.any groups lanes by value; vote.ballot and popc count them.
const matchPTX = header + `
.visible .entry peers(
	.param .u64 in,
	.param .u64 out
)
{
	.reg .pred %p<3>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.u32 %r2, [%rd4];
	match.any.sync.b32 %r3, %r2, -1;
	mov.u32 %r4, %lanemask_lt;
	and.b32 %r5, %r3, %r4;
	popc.b32 %r6, %r5;
	setp.eq.u32 %p1, %r2, 3;
	vote.sync.ballot.b32 %r7, %p1, -1;
	popc.b32 %r8, %r7;
	shl.b32 %r9, %r8, 16;
	or.b32 %r10, %r6, %r9;
	add.s64 %rd5, %rd2, %rd3;
	st.global.u32 [%rd5], %r10;
	ret;
}
`

func TestMatchAndVote(t *testing.T) {
	m, err := Parse(matchPTX)
	require.NoError(t, err)
	var a Arena
	vals := make([]uint32, 32)
	for i := range vals {
		vals[i] = uint32(i % 5)
	}
	in, out := a.Alloc(128), a.Alloc(128)
	Put(&a, in, vals)
	require.NoError(t, m.Run("peers", Launch{Block: Dim3{X: 32}, Params: []uint64{in, out}, Mem: &a, Seed: 3}))
	got := Get[uint32](&a, out, 32)
	threes := 0
	for _, v := range vals {
		if v == 3 {
			threes++
		}
	}
	for i, g := range got {
		assert.Equal(t, uint32(i/5), g&0xFFFF, "rank of lane %d among its peers", i)
		assert.Equal(t, uint32(threes), g>>16)
	}
}

// A .func called with .param passing, as ptxgen's math library does.
const callPTX = header + `
.func (.param .b32 r) twice(.param .b32 a)
{
	.reg .b32 %x, %y;
	ld.param.b32 %x, [a];
	add.s32 %y, %x, %x;
	st.param.b32 [r], %y;
	ret;
}
.visible .entry k(
	.param .u64 out
)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	{
	.param .b32 ca;
	.param .b32 cr;
	st.param.b32 [ca], %r1;
	call.uni (cr), twice, (ca);
	ld.param.b32 %r2, [cr];
	}
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}
`

func TestCall(t *testing.T) {
	m, err := Parse(callPTX)
	require.NoError(t, err)
	var a Arena
	out := a.Alloc(4 * 8)
	require.NoError(t, m.Run("k", Launch{Block: Dim3{X: 8}, Params: []uint64{out}, Mem: &a}))
	assert.Equal(t, []uint32{0, 2, 4, 6, 8, 10, 12, 14}, Get[uint32](&a, out, 8))
}

// A block whose thread 0 waits for block 1's flag deadlocks when only one
// block is resident; with both resident it finishes.
const waitPTX = header + `
.visible .entry wait(
	.param .u64 flag
)
{
	.reg .pred %p<3>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [flag];
	mov.u32 %r1, %ctaid.x;
	setp.eq.u32 %p1, %r1, 1;
	@%p1 bra $L_set;
$L_spin:
	ld.volatile.global.u32 %r2, [%rd1];
	setp.eq.u32 %p2, %r2, 0;
	@%p2 bra $L_spin;
	ret;
$L_set:
	st.volatile.global.u32 [%rd1], 1;
	ret;
}
`

func TestResidencyBoundsProgress(t *testing.T) {
	m, err := Parse(waitPTX)
	require.NoError(t, err)
	var a Arena
	flag := a.Alloc(4)
	require.NoError(t, m.Run("wait", Launch{Grid: Dim3{X: 2}, Block: Dim3{X: 1}, Params: []uint64{flag}, Mem: &a}))
	Put(&a, flag, []uint32{0})
	err = m.Run("wait", Launch{Grid: Dim3{X: 2}, Block: Dim3{X: 1}, Params: []uint64{flag}, Mem: &a, Resident: 1, MaxSteps: 100000})
	require.ErrorIs(t, err, ErrFault)
}

func TestUnknownInstructionIsRefused(t *testing.T) {
	_, err := Parse(header + `
.visible .entry k()
{
	.reg .b32 %r<3>;
	frobnicate.b32 %r1, %r2;
	ret;
}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "frobnicate")
}
