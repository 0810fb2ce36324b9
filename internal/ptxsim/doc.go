// Package ptxsim interprets PTX on the CPU, one launch at a time, so that
// tests check generated kernels without a GPU: every thread of every block
// runs with its own registers and program counter (Volta's independent
// thread scheduling), warp collectives (shfl.sync, vote.sync, match.sync,
// redux.sync, bar.warp.sync) meet the lanes their mask names, bar.sync
// meets the block's threads, and atomics on global and shared memory are
// atomic. Blocks run interleaved by a scheduler that can shuffle the order
// of threads (Launch.Seed) and bound how many blocks are resident at once
// (Launch.Resident), so a kernel that waits on a block that cannot run, or
// races between threads, shows it.
//
// It knows the subset of PTX that gpuarr's generators emit (integer,
// float, logic, conversion, memory, atomic, warp-collective and control
// instructions, .func calls with .param passing, module-scope .const tables
// read with ld.const) and fails the run naming any other instruction. Memory is sequentially consistent and float
// arithmetic is IEEE round-to-nearest, as the .rn forms promise; the
// .approx forms use Go's math functions. It is slow (tens of nanoseconds
// per instruction per thread): tests run small launches.
//
// Module.Run runs one launch over a Memory (Example); HostKernel adapts
// an entry to device/hostkernel, so a host device can run the PTX itself
// in place of a Go kernel.
//
// This package is for tests: nothing in the runtime imports it.
package ptxsim
