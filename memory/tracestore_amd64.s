//go:build amd64 && !race

#include "textflag.h"

// func commitSlot(seq *uint64, v uint64)
//
// A plain store: amd64 makes stores visible in program order, so the
// record's words written before it are visible first; the call, which the
// compiler cannot see into, keeps them before it.
TEXT ·commitSlot(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ seq+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ BX, 0(AX)
	RET
