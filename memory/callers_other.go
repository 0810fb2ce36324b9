//go:build !amd64

package memory

import "runtime"

// captureStack interns the calling goroutine's stack from captureStack's
// caller, skip frames above it left out (frames of functions that are not
// inlined): a runtime.Callers and a hash lookup, and for a new stack the
// record (callers_amd64.go walks frame pointers instead on amd64).
//
//go:noinline
func captureStack(skip int) *stackRec {
	var pcs [maxStackDepth]uintptr
	n, h := callers(skip+2, pcs[:])
	if r := stacks.find(h, pcs[:n]); r != nil {
		return r
	}
	return stacks.insert(h, pcs[:n], pcs[:n])
}

// callers is runtime.Callers(skip, pcs), and hashPCs of its stack.
//
//go:noinline
func callers(skip int, pcs []uintptr) (n int, hash uint64) {
	n = runtime.Callers(skip+1, pcs)
	return n, hashPCs(pcs[:n])
}
