package gpuarr

import (
	"time"

	"github.com/gpuarr/gpuarr/internal/fusion"
)

// KernelStats counts the fused kernels compiled (each expression shape
// once per device), the materializations that found theirs in the cache,
// and the total time spent generating and JIT-compiling.
type KernelStats struct {
	Compiles    uint64
	Hits        uint64
	CompileTime time.Duration
}

// ReadKernelStats returns the process-wide kernel cache counters.
func ReadKernelStats() KernelStats {
	var st KernelStats
	st.Compiles, st.Hits, st.CompileTime = fusion.Stats()
	return st
}
