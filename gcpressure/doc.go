// Package gcpressure makes Go's garbage collector aware of device memory.
//
// Go's GC sees only the small Go headers of device arrays, never the
// gigabytes behind them, so forgotten arrays would pile up until the device
// runs dry. This package decides when to run runtime.GC() early, in the
// manner of CUDA.jl's maybe_collect:
//
//   - pressure = live device bytes / limit (the hard limit, else the soft
//     limit, else free + live);
//   - below 0.75 (0.50 before a blocking wait) nothing happens;
//   - above, a collection runs unless the recent fraction of time spent in
//     these collections exceeds a budget: 5 %, doubled when the last
//     collection freed more than 10 % of the limit, doubled before a
//     blocking wait, doubled above 0.90 and again above 0.95 pressure. The
//     collection time is smoothed (exponential moving average).
//   - after a collection it waits, bounded, until the cleanups the GC queued
//     (runtime.AddCleanup callbacks that return device buffers) have run,
//     by comparing /gc/cleanups/queued and /gc/cleanups/executed in
//     runtime/metrics.
//
// GPUARR_GC_EARLY=false turns eager collection off (the allocator's reclaim
// ladder still collects before reporting out-of-memory); GPUARR_DEBUG=gc
// logs each collection with the bytes freed and the time taken.
//
// This package owns the collection policy and its counters. It does not
// allocate device memory, does not know arrays, and is driven by the memory
// package through its live-byte figures.
package gcpressure
