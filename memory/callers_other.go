//go:build !amd64

package memory

import "runtime"

// callers is runtime.Callers(skip, pcs) (callers_amd64.go walks frame
// pointers instead on amd64).
//
//go:noinline
func callers(skip int, pcs []uintptr) int { return runtime.Callers(skip+1, pcs) }
