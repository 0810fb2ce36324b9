// Package gcpressure makes Go's garbage collector aware of device memory.
//
// Go's GC sees only the small Go headers of device arrays, never the
// gigabytes behind them. Arrays return their memory through
// runtime.AddCleanup; this package decides when to run a collection so
// that those cleanups happen before the device runs dry, and what to do
// when an allocation is about to fail. Example allocates four times a
// hard limit in arrays it never releases.
//
// # Eager collection
//
// It hooks in at two places: package memory's default resources announce
// each allocation to the hook Install sets (memory.SetPressure; BeforeAlloc
// is the same check), and the arrays' host waits call BeforeBlockingWait
// before the CPU waits for the device. In the manner of CUDA.jl's
// maybe_collect:
//
//   - pressure = live device bytes (the default pool's and the managed
//     memory's) / limit (the hard limit, else the soft limit, else what the
//     device has free plus what the pool holds);
//   - below the threshold nothing happens: 0.75 on allocation, 0.50 before
//     a blocking wait; in background mode 0.90 for both, lowered by the
//     pacer for a program that allocates fast enough to outrun a
//     collection started there (headroom for 1.5 collection times of its
//     allocation rate, never below 0.60);
//   - above, a collection runs unless the recent fraction of time spent in
//     collections exceeds a budget (5 %, doubled when the last collection
//     freed more than a tenth of the limit, before a blocking wait, above
//     0.90 and again above 0.95);
//   - after a collection it waits, bounded, for the cleanups the GC queued
//     (internal/cleanups), then runs the functions registered with
//     AfterCleanups (the array layer frees its queued buffers there).
//
// By default (GPUARR_GC_BACKGROUND=true) the collection runs on a goroutine
// of its own and the caller goes on; the budget is then four times larger.
// An allocation that reaches the limit before a background collection ends
// shares that collection in the reclaim ladder. GPUARR_GC_BACKGROUND=false
// collects in the caller, as CUDA.jl does.
//
// Cost: the check on an allocation reads no statistics below the
// threshold: a per-device gauge adds the bytes announced since its last
// reading, and reads for real only when a collection may be due or after
// 1/64 of the limit has been announced.
//
// # The reclaim ladder
//
// The ladder (a memory.Reclaimer, the process-wide one after Install) runs
// when an allocation is about to fail, retrying after each step:
// synchronize the default stream; collect and wait for the cleanups (up
// to a second); synchronize every stream of the device. Then the allocator
// releases its cached segments, retries once more and only then fails with
// device.ErrOutOfMemory and a status report. Concurrent ladders share
// collections; while a step runs, new allocations on that device wait, so
// the memory it frees goes to the allocation that ran out.
//
// # Host memory
//
// Pinned and managed memory count against the system's memory: their
// allocators call ChargeHost(n) first and ReleaseHost(n) after. The charge
// feeds eager collection with a host pressure (charged over charged plus
// MemAvailable, or a tighter cgroup's headroom), and fails with
// ErrHostMemory, after one collection, when it would leave the system less
// than 1/16 of its memory (at most 4 GiB). HostCharged reports the account.
//
// # Knobs and counters
//
// GPUARR_GC_EARLY=false turns eager collection off (the ladder still
// collects); SetEager switches it at run time. GPUARR_GC_THRESHOLD and
// GPUARR_GC_BLOCKING_THRESHOLD move the thresholds; GPUARR_DEBUG=gc logs
// each collection and ladder step. A malformed value is an error matching
// device.ErrBadConfig that names the variable, from Install and so from
// an array's first allocation. Stats reports collections, skips, bytes
// freed, time and the longest pause; WaitIdle waits for a background
// collection. The counters are in memory.Metrics under gc/, and each
// collection and ladder step is marked in memory traces (memory.TraceMark).
//
// This package owns the collection policy, the ladder and the host-memory
// account. It allocates no memory and does not know arrays.
package gcpressure
