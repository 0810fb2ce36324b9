package memory

import (
	"maps"
	"sync"
)

// Metrics returns a snapshot of gpuarr's memory gauges and counters by
// name, the names package memory/memhttp publishes through expvar under
// "gpuarr". <dev> is a device as "cuda:0" or "host:1"; a device appears
// once its default resource (or its managed resource) exists, and Metrics
// never creates one.
//
//	memory/<dev>/allocated_bytes       bytes in blocks handed out by the default resource
//	memory/<dev>/allocated_peak_bytes  their peak
//	memory/<dev>/reserved_bytes        bytes obtained from the driver (segments)
//	memory/<dev>/reserved_peak_bytes   their peak
//	memory/<dev>/cached_bytes          reserved bytes that no block holds and are reusable
//	memory/<dev>/fragmentation         share of the cache outside its largest free block (0–1)
//	memory/<dev>/segments              segments held
//	memory/<dev>/alloc_retries         allocations that had to reclaim memory and retry
//	memory/<dev>/ooms                  allocations that failed for lack of memory
//	memory/<dev>/hard_limit_bytes      GPUARR_HARD_MEMORY_LIMIT (0: none)
//	memory/<dev>/managed_bytes         managed memory in arrays (DefaultManaged and DefaultManagedOversubscribing)
//	memory/<dev>/managed_reserved_bytes  managed memory obtained from the driver: managed_bytes and the managed pool's cache
//	memory/pinned_bytes                page-locked host memory noted with NotePinned
//	memory/profile_rate_bytes          the profile's sampling rate (0: off)
//
// Package gcpressure adds its own (see its Metrics documentation):
// gc/eager_collections, gc/eager_skipped, gc/eager_bytes_freed,
// gc/eager_seconds, gc/ladder_runs, gc/ladder_steps,
// gc/ladder_collections, gc/ladder_bytes_freed, gc/host_charged_bytes
// and gc/eager_enabled.
//
// A snapshot reads each resource's statistics (taking the pools' locks
// briefly); it is meant for a dashboard's polling, not for a hot loop.
func Metrics() map[string]float64 {
	m := map[string]float64{}
	set := func(name string, v float64) { m[name] = v }
	for _, e := range builtDefaults() {
		dev := "memory/" + deviceLabel(e.dev) + "/"
		st := e.r.Stats()
		set(dev+"allocated_bytes", float64(st.AllocatedBytes.Current))
		set(dev+"allocated_peak_bytes", float64(st.AllocatedBytes.Peak))
		set(dev+"reserved_bytes", float64(st.ReservedBytes.Current))
		set(dev+"reserved_peak_bytes", float64(st.ReservedBytes.Peak))
		set(dev+"cached_bytes", float64(st.CachedBytes))
		set(dev+"fragmentation", st.Fragmentation())
		set(dev+"segments", float64(st.Segments.Current))
		set(dev+"alloc_retries", float64(st.AllocRetries))
		set(dev+"ooms", float64(st.OOMs))
		set(dev+"hard_limit_bytes", float64(st.HardLimit))
	}
	managedDefaults.mu.Lock()
	managed := maps.Clone(managedDefaults.m)
	managedDefaults.mu.Unlock()
	for dev := range managed {
		u := ManagedUsage(dev, 0, 0)
		set("memory/"+deviceLabel(dev)+"/managed_bytes", float64(u.Allocated))
		set("memory/"+deviceLabel(dev)+"/managed_reserved_bytes", float64(u.Reserved))
	}
	set("memory/pinned_bytes", float64(pinnedBytes.Load()))
	set("memory/profile_rate_bytes", float64(loadProfileRate()))
	metricSources.mu.Lock()
	srcs := append([]func(func(string, float64)){}, metricSources.fs...)
	metricSources.mu.Unlock()
	for _, f := range srcs {
		f(set)
	}
	return m
}

var metricSources struct {
	mu sync.Mutex
	fs []func(set func(name string, value float64))
}

// RegisterMetrics adds a source of metrics to Metrics: f is called by
// each snapshot with a function that sets a metric by name. Package
// gcpressure registers its counters this way (it imports this package, not
// the other way round).
func RegisterMetrics(f func(set func(name string, value float64))) {
	metricSources.mu.Lock()
	defer metricSources.mu.Unlock()
	metricSources.fs = append(metricSources.fs, f)
}
