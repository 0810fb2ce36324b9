package memory

import (
	"runtime"
	"unsafe"
)

// getfp returns its caller's frame pointer (callers_amd64.s).
func getfp() unsafe.Pointer

// maxFrameGap bounds the distance between two successive frame pointers
// that callers accepts: more than any Go frame has in practice (the
// compiler moves variables of over 128 KiB to the heap), while a frame
// pointer that leaves the goroutine's stack (a C frame's register under a
// cgo callback, which points into another thread's stack) lands farther
// away. A larger step, or one that does not increase, means the chain is
// not one to trust, and runtime.Callers answers.
const maxFrameGap = 1 << 20

// callers is runtime.Callers(skip, pcs) for skip ≥ 1, by walking the
// chain of frame pointers (walkFrames) instead of runtime.Callers' table
// lookups. The program counters are the return addresses of the physical
// frames: a frame whose calls were inlined contributes one, where
// runtime.Callers writes one per logical frame, and wrapper frames that
// runtime.Callers leaves out are kept; skip counts physical frames, so
// the skipped functions must not be inlined. When the chain fails
// walkFrames' checks it returns runtime.Callers' answer instead. It also
// returns hashPCs(pcs[:n]), computed during the walk.
//
//go:noinline
func callers(skip int, pcs []uintptr) (n int, hash uint64) {
	// callers' own frame: the word above it returns into frame 1.
	if n, h, ok := walkFrames(getfp(), skip, pcs); ok {
		return n, h
	}
	n = runtime.Callers(skip+1, pcs)
	return n, hashPCs(pcs[:n])
}

// walkFrames writes the return addresses of the frames from fp outwards
// to pcs, the first skip−1 left out, and returns how many it wrote and
// their hashPCs; on amd64 each frame's frame pointer holds its caller's
// frame pointer, and the word above it the return address into the
// caller. It stops at a
// zero frame pointer or return address or when pcs is full; it reports
// false when the chain is not one to trust (frame pointers must strictly
// increase, at most maxFrameGap apart).
//
// It reads the goroutine's own stack, which cannot move while it runs: it
// calls nothing and cannot grow the stack (nosplit).
//
//go:nosplit
//go:norace
//go:nocheckptr
func walkFrames(fp unsafe.Pointer, skip int, pcs []uintptr) (n int, hash uint64, ok bool) {
	h := uint64(hashStart)
	for i := 1; n < len(pcs) && fp != nil; i++ {
		pc := *(*uintptr)(unsafe.Add(fp, unsafe.Sizeof(uintptr(0))))
		if pc == 0 {
			break
		}
		if i >= skip {
			pcs[n] = pc
			n++
			h = (h ^ uint64(pc)) * hashPrime
		}
		next := *(*unsafe.Pointer)(fp)
		if next != nil && (uintptr(next) <= uintptr(fp) || uintptr(next)-uintptr(fp) > maxFrameGap) {
			return n, h, false
		}
		fp = next
	}
	return n, h, true
}
