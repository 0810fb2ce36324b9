package testkernels

import "github.com/gpuarr/gpuarr/device"

// PTX returns the test kernels as one PTX module for dev: the device's
// header (dev.PTXHeader) followed by every entry point listed in doc.go.
// On a device that runs kernels written in Go it also binds their Go
// halves, so that the text loads there through any API; Load reports a
// failure to bind them.
func PTX(dev *device.Device) string {
	_ = bindHostKernels(dev)
	return dev.PTXHeader() + ptxBody
}

// The kernels are hand-written PTX. Element loops are grid-stride with
// 64-bit indices (i = ctaid.x*ntid.x + tid.x; i += nctaid.x*ntid.x), so any
// grid covers any n. Pointers arrive as generic addresses and are converted
// to global ones once.
const ptxBody = `
// c[i] = a[i] + b[i]
.visible .entry gpuarr_vadd_f32(
	.param .u64 vadd_a,
	.param .u64 vadd_b,
	.param .u64 vadd_c,
	.param .u64 vadd_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<14>;

	ld.param.u64 %rd1, [vadd_a];
	ld.param.u64 %rd2, [vadd_b];
	ld.param.u64 %rd3, [vadd_c];
	ld.param.u64 %rd4, [vadd_n];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %nctaid.x;
	mul.wide.u32 %rd5, %r1, %r2;
	cvt.u64.u32 %rd6, %r3;
	add.u64 %rd5, %rd5, %rd6;
	mul.wide.u32 %rd7, %r4, %r2;
	setp.ge.u64 %p1, %rd5, %rd4;
	@%p1 bra VADD_DONE;
VADD_LOOP:
	shl.b64 %rd8, %rd5, 2;
	add.u64 %rd9, %rd1, %rd8;
	add.u64 %rd10, %rd2, %rd8;
	add.u64 %rd11, %rd3, %rd8;
	ld.global.f32 %f1, [%rd9];
	ld.global.f32 %f2, [%rd10];
	add.rn.f32 %f3, %f1, %f2;
	st.global.f32 [%rd11], %f3;
	add.u64 %rd5, %rd5, %rd7;
	setp.lt.u64 %p1, %rd5, %rd4;
	@%p1 bra VADD_LOOP;
VADD_DONE:
	ret;
}

// Thread 0 of block 0 spins ns nanoseconds on %globaltimer, then *out = v.
.visible .entry gpuarr_spin_write_u32(
	.param .u64 spin_out,
	.param .u32 spin_v,
	.param .u64 spin_ns
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;

	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	mov.u32 %r3, %tid.z;
	mov.u32 %r4, %ctaid.x;
	mov.u32 %r5, %ctaid.y;
	mov.u32 %r6, %ctaid.z;
	or.b32 %r1, %r1, %r2;
	or.b32 %r1, %r1, %r3;
	or.b32 %r1, %r1, %r4;
	or.b32 %r1, %r1, %r5;
	or.b32 %r1, %r1, %r6;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra SPIN_DONE;
	ld.param.u64 %rd1, [spin_out];
	ld.param.u32 %r7, [spin_v];
	ld.param.u64 %rd2, [spin_ns];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u64 %rd3, %globaltimer;
SPIN_LOOP:
	mov.u64 %rd4, %globaltimer;
	sub.u64 %rd5, %rd4, %rd3;
	setp.lt.u64 %p1, %rd5, %rd2;
	@%p1 bra SPIN_LOOP;
	st.global.u32 [%rd1], %r7;
SPIN_DONE:
	ret;
}

// Thread 0 of block 0: if p[0] == i { p[0] = i+1 } else { p[1] = 1 }.
.visible .entry gpuarr_step_u32(
	.param .u64 step_p,
	.param .u32 step_i
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<2>;

	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	mov.u32 %r3, %tid.z;
	mov.u32 %r4, %ctaid.x;
	mov.u32 %r5, %ctaid.y;
	mov.u32 %r6, %ctaid.z;
	or.b32 %r1, %r1, %r2;
	or.b32 %r1, %r1, %r3;
	or.b32 %r1, %r1, %r4;
	or.b32 %r1, %r1, %r5;
	or.b32 %r1, %r1, %r6;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra STEP_DONE;
	ld.param.u64 %rd1, [step_p];
	ld.param.u32 %r2, [step_i];
	cvta.to.global.u64 %rd1, %rd1;
	ld.global.u32 %r3, [%rd1];
	setp.ne.u32 %p1, %r3, %r2;
	@%p1 bra STEP_BAD;
	add.u32 %r4, %r2, 1;
	st.global.u32 [%rd1], %r4;
	bra.uni STEP_DONE;
STEP_BAD:
	mov.u32 %r5, 1;
	st.global.u32 [%rd1+4], %r5;
STEP_DONE:
	ret;
}

// dst[i] = src[i]
.visible .entry gpuarr_copy_u32(
	.param .u64 copy_dst,
	.param .u64 copy_src,
	.param .u64 copy_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<12>;

	ld.param.u64 %rd1, [copy_dst];
	ld.param.u64 %rd2, [copy_src];
	ld.param.u64 %rd3, [copy_n];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %nctaid.x;
	mul.wide.u32 %rd4, %r1, %r2;
	cvt.u64.u32 %rd5, %r3;
	add.u64 %rd4, %rd4, %rd5;
	mul.wide.u32 %rd6, %r4, %r2;
	setp.ge.u64 %p1, %rd4, %rd3;
	@%p1 bra COPY_DONE;
COPY_LOOP:
	shl.b64 %rd7, %rd4, 2;
	add.u64 %rd8, %rd2, %rd7;
	add.u64 %rd9, %rd1, %rd7;
	ld.global.u32 %r5, [%rd8];
	st.global.u32 [%rd9], %r5;
	add.u64 %rd4, %rd4, %rd6;
	setp.lt.u64 %p1, %rd4, %rd3;
	@%p1 bra COPY_LOOP;
COPY_DONE:
	ret;
}

// dst[i] = v
.visible .entry gpuarr_fill_u32(
	.param .u64 fill_dst,
	.param .u32 fill_v,
	.param .u64 fill_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<10>;

	ld.param.u64 %rd1, [fill_dst];
	ld.param.u32 %r5, [fill_v];
	ld.param.u64 %rd2, [fill_n];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %nctaid.x;
	mul.wide.u32 %rd3, %r1, %r2;
	cvt.u64.u32 %rd4, %r3;
	add.u64 %rd3, %rd3, %rd4;
	mul.wide.u32 %rd5, %r4, %r2;
	setp.ge.u64 %p1, %rd3, %rd2;
	@%p1 bra FILL_DONE;
FILL_LOOP:
	shl.b64 %rd6, %rd3, 2;
	add.u64 %rd7, %rd1, %rd6;
	st.global.u32 [%rd7], %r5;
	add.u64 %rd3, %rd3, %rd5;
	setp.lt.u64 %p1, %rd3, %rd2;
	@%p1 bra FILL_LOOP;
FILL_DONE:
	ret;
}

// Does nothing: launch overhead.
.visible .entry gpuarr_empty()
{
	ret;
}
`
