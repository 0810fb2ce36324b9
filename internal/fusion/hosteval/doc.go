// Package hosteval runs gpuarr's fused kernels (expr Programs) on the
// host backend: Kernel turns a Program into a kernel written in Go
// (device/hostkernel's Kernel) that package fusion binds to the Program's
// PTX entry name with device.Device.RegisterHostKernel, so the host device
// runs the same launches, with the same parameters, as the CUDA back end
// runs the PTX of package ptxgen. Example launches a Program that way.
//
// Kernel analyses the Program once: it checks every instruction and
// compiles it into a typed column operation over a chunk of elements (see
// frame.go). A launch reads the parameters, views device memory through
// hostkernel.View (so the backend checks bounds, liveness and peer access) and
// evaluates chunks in parallel with Launch.ParallelFor, each goroutine
// with its own scratch columns. Reductions fold each chunk's values into
// per-group (or per-part) accumulators; see reduce.go.
//
// The semantics are the ones package expr's declarations define (Op,
// Castable, InputKind, ReduceOp, Scan), bit for bit where they ask for that: float32 arithmetic in float32, fused FMA,
// wrapping integers, saturating casts and the NaN rules.
//
// This package owns only the evaluator. It does not build Programs
// (package fusion does), generate PTX (package ptxgen) or register
// kernels (the caller does, through package device), and it imports no
// backend: the kernel ABI it writes to is device/hostkernel's.
package hosteval
