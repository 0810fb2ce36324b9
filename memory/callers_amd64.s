#include "textflag.h"

// func getfp() unsafe.Pointer
//
// getfp returns its caller's frame pointer: a function without a frame
// of its own leaves BP as its caller set it.
TEXT ·getfp(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ BP, ret+0(FP)
	RET
