//go:build !amd64

package memory

import "runtime"

// callers is runtime.Callers(skip, pcs), and hashPCs of its stack
// (callers_amd64.go walks frame pointers instead on amd64).
//
//go:noinline
func callers(skip int, pcs []uintptr) (n int, hash uint64) {
	n = runtime.Callers(skip+1, pcs)
	return n, hashPCs(pcs[:n])
}
