//go:build cgo && gpuarrbench

package cuda

/*
#include "shim.h"

gp_ret gp_bench_alloc_managed(gp_h ctx, size_t n, long long reps);
gp_ret gp_bench_migrate(gp_h ctx, CUdeviceptr p, size_t n, int from_type, int from_id, int to_type, int to_id, gp_h s);
*/
import "C"

import "github.com/gpuarr/gpuarr/device/driver"

// Managed-memory benchmark probes (managedbench.c), only in builds with
// -tags gpuarrbench.

var _ driver.ManagedProbe = (*device)(nil)

// BenchAllocManagedC allocates n bytes of managed memory and frees them,
// reps times in a C loop, and returns the nanoseconds the loop took.
func (d *device) BenchAllocManagedC(n uint64, reps int) (int64, error) {
	const call = "cuMemAllocManaged"
	if err := d.check(call); err != nil {
		return 0, err
	}
	if err := load(); err != nil {
		return 0, err
	}
	r := C.gp_bench_alloc_managed(d.ctx, C.size_t(n), C.longlong(reps))
	if r.rc != 0 {
		return 0, d.fail(int64(r.rc), "%d bytes of managed memory in a C loop", n)
	}
	return int64(r.v), nil
}

// BenchMigrateC prefetches n bytes of managed memory at p to from on s and
// waits (untimed), then times one prefetch to to and the stream
// synchronization that waits for it, in C.
func (d *device) BenchMigrateC(p driver.Ptr, n uint64, from, to driver.Location, s driver.Stream) (int64, error) {
	const call = "cuMemPrefetchAsync_v2"
	if err := d.check(call); err != nil {
		return 0, err
	}
	cs, ok := s.(*stream)
	if !ok || cs.dev != d {
		return 0, driver.Errorf(call, driver.InvalidValue, "stream of another device or backend")
	}
	ft, fid := location(from)
	tt, tid := location(to)
	r := C.gp_bench_migrate(d.ctx, C.CUdeviceptr(p), C.size_t(n), ft, fid, tt, tid, cs.h)
	if r.rc != 0 {
		return 0, d.fail(int64(r.rc), "%d bytes at %v from %+v to %+v", n, p, from, to)
	}
	return int64(r.v), nil
}
