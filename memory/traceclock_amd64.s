#include "textflag.h"

// func readTSC() uint64
//
// readTSC reads the time-stamp counter. RDTSC is not ordered with the
// instructions around it; the ring orders the times it records
// (traceRing.read).
TEXT ·readTSC(SB), NOSPLIT|NOFRAME, $0-8
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET

// func invariantTSC() bool
//
// invariantTSC reports CPUID.80000007H:EDX[8], the invariant TSC: the
// counter runs at a constant rate in every power state.
TEXT ·invariantTSC(SB), NOSPLIT, $0-1
	MOVL $0x80000000, AX
	CPUID
	CMPL AX, $0x80000007
	JB   none
	MOVL $0x80000007, AX
	CPUID
	SHRL $8, DX
	ANDL $1, DX
	MOVB DX, ret+0(FP)
	RET
none:
	MOVB $0, ret+0(FP)
	RET
