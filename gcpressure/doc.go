// Package gcpressure makes Go's garbage collector aware of device memory.
//
// Go's GC sees only the small Go headers of device arrays, never the
// gigabytes behind them, so forgotten arrays would pile up until the device
// runs dry. Arrays return their memory through runtime.AddCleanup; this
// package decides when to run runtime.GC() so that those cleanups happen in
// time, and what to do when an allocation is about to fail.
//
// # Eager collection
//
// It hooks in at two places. Package memory's default resources announce
// each allocation to the hook Install sets (memory.SetPressure; BeforeAlloc
// is the same check), and the arrays' host waits call BeforeBlockingWait(dev)
// before the CPU waits for the device (one function in internal/tracking).
// In the manner of CUDA.jl's maybe_collect:
//
//   - pressure = live device bytes / limit (the hard limit, else the soft
//     limit, else the driver's free memory plus what the pool holds; see
//     eager.go); live bytes are the default pool's and the managed
//     memory's (memory.DefaultManaged: package unified's arrays), which
//     the ladder also counts;
//   - below 0.75 (0.50 before a blocking wait) nothing happens; in
//     background mode (below) the threshold is 0.90 in both places, or
//     lower when the program allocates fast enough to outrun a collection
//     started there (the pacer: headroom for 1.5 collection times of
//     allocation, never below 0.60);
//   - above, a collection runs unless the recent fraction of time spent in
//     collections exceeds a budget: 5 %, doubled when the last collection
//     freed more than 10 % of the limit, doubled before a blocking wait,
//     doubled above 0.90 and again above 0.95 pressure. The collection time
//     is smoothed (exponential moving average);
//   - after a collection it waits, bounded, until the cleanups the GC queued
//     (runtime.AddCleanup callbacks that return device buffers) have run,
//     by comparing /gc/cleanups/queued and /gc/cleanups/executed in
//     runtime/metrics (package internal/cleanups), then runs the functions
//     registered with AfterCleanups (the array layer's cleanups only queue
//     their buffers; its drain frees them in one batch).
//
// By default (GPUARR_GC_BACKGROUND=true) the collection runs on a goroutine
// of its own and the caller goes on; the budget is then four times larger,
// as it bounds the GC's share of the CPU rather than stalls. Each
// collection slows the program for about a millisecond wherever it runs
// (the runtime stops the world, scans the caller's stack, sweeps), so
// background mode does not collect early before a blocking wait, which a
// background collection would not overlap anyway. An
// allocation that reaches the limit before a background collection ends
// shares that collection in the reclaim ladder rather than starting a
// second one. GPUARR_GC_BACKGROUND=false collects in the caller, as
// CUDA.jl does.
//
// The check on each allocation must cost nanoseconds, so it does not read
// the allocator's statistics every time: a per-device gauge adds the bytes
// announced since its last reading to that reading (an upper bound of the
// live bytes), trusts it below the threshold, asks the collector's budget
// without any reading above it, and reads for real only when a collection
// may be due or after 1/64 of the limit has been announced.
//
// # The reclaim ladder
//
// The ladder (ladder.go) implements memory.Reclaimer. When an allocation
// is about to fail, the allocator calls it level by level, retrying after
// each step: synchronize the default stream; collect and wait for cleanups
// (up to a second; an allocation that outran a background collection waits
// for it and retries on what it freed, if that covers the request);
// synchronize every stream of the device (and collect, if the previous step
// only shared an earlier collection); then it reports that it has nothing
// left, and the allocator releases its cached segments, retries once more
// and only then fails with device.ErrOutOfMemory and a status report.
// Concurrent ladders share collections, and while a step runs, new
// allocations on that device wait in the allocation hook so that the
// memory it frees goes to the allocation that ran out. Install (or the
// first BeforeAlloc) makes the ladder the process-wide reclaimer
// (memory.SetReclaimer), which pools that name no reclaimer of their own
// use, and eager collection the allocation hook (memory.SetPressure).
//
// # Host memory
//
// Pinned host and managed (unified) memory count against the system's
// memory, which Go's GC does not see either. Their allocators call
// ChargeHost(n) before allocating and ReleaseHost(n) when the memory is
// freed (or the allocation failed). The charge feeds eager collection with
// a host pressure of charged / (charged + available), where available is
// /proc/meminfo's MemAvailable or a tighter memory cgroup's headroom
// (sysmem.go), and is refused with ErrHostMemory, after one collection,
// when it would leave the system less than 1/16 of its memory (at most
// 4 GiB). HostCharged reports the account.
//
// # Knobs and counters
//
// GPUARR_GC_EARLY=false turns eager collection off (the ladder still
// collects before reporting out-of-memory) and SetEager switches it at run
// time (Eager reports it); GPUARR_GC_THRESHOLD and
// GPUARR_GC_BLOCKING_THRESHOLD move the thresholds; GPUARR_DEBUG=gc logs
// each collection and ladder step with the bytes freed and the time taken;
// a malformed value is an error matching device.ErrBadConfig that names
// the variable, from Install and so from every array allocation (policy.go). Stats reports
// collections, skipped collections, bytes freed, time and the longest
// pause, for eager collection and for the ladder by level; WaitIdle waits
// for a background collection to end so that Stats includes it. The
// counters are also in memory.Metrics under gc/ (metrics.go), and each
// eager collection and ladder step is marked in the memory traces alive
// (memory.TraceMark), for the timeline page.
//
// # Where things are
//
// policy.go: the thresholds and budget, from the environment;
// collector.go: whether and when to collect, and sharing collections;
// pacer.go: the background threshold from the allocation rate;
// gauge.go: the per-allocation estimate of a memory's pressure; eager.go:
// the array layer's hooks and the device readings; ladder.go and gate.go:
// the reclaim ladder and the gate that holds allocations back while it
// runs; hostmem.go and sysmem.go: the host-memory account and the
// system's figures; counters.go and install.go: the counters, the
// process's state and Install, Stats, SetEager.
//
// This package owns the collection policy, the ladder, the host-memory
// account and their counters. It does not allocate memory and does not
// know arrays: it reads the memory package's statistics and the system's
// memory figures, and is called through package memory's hooks and by the
// arrays' host waits.
package gcpressure
