package gcpressure

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/internal/units"
)

// ErrHostMemory is the error ChargeHost's refusals wrap: the system (or the
// process's memory cgroup) has too little memory available for the
// allocation.
var ErrHostMemory = errors.New("not enough system memory")

// hostReserveMax bounds the memory a charge must leave available to the
// rest of the system (see ChargeHost).
const hostReserveMax = 4 << 30

// ChargeHost accounts n bytes of host memory that the runtime is about to
// allocate outside the Go heap and outside a device's pool: pinned
// (page-locked) host buffers and managed (unified) memory. Go's GC sees only
// the small headers of such arrays, so forgotten ones would pile up until
// the system swaps or the OOM killer strikes; the account makes them
// visible to eager collection, as BeforeAlloc does for device memory.
//
// The allocator calls ChargeHost(n) before allocating, and ReleaseHost(n)
// when the memory is freed (by Release, by a cleanup) or when the
// allocation failed after the charge. ChargeHost:
//
//   - collects garbage when the host's pressure (charged bytes / (charged
//     bytes + the system's available memory)) and the time budget call for
//     it, as BeforeAlloc does for a device, sharing the process's collector
//     and budget;
//   - refuses, with an error wrapping ErrHostMemory that names the bytes
//     asked for and available, when the allocation would leave the system
//     less than 1/16 of its memory (at most 4 GiB) available; before
//     refusing it runs one collection, so that unreachable pinned and
//     managed arrays give their memory back, and checks again;
//   - otherwise adds n to the account and returns nil.
//
// Available memory is /proc/meminfo's MemAvailable, or the memory cgroup's
// headroom when that is tighter (a container). Where neither can be read
// nothing is refused. The check reads those files only after a share of
// the memory has been charged, or when the estimate comes near the limit,
// so a charge costs a few atomic operations; charges made at the same
// moment may together pass a check that each alone passes.
func ChargeHost(n uint64) error { return process().host.charge(n) }

// ReleaseHost removes n bytes from the account that ChargeHost added to.
// Releasing more than is charged is a bug in the caller and panics.
func ReleaseHost(n uint64) { process().host.release(n) }

// HostCharged is the number of bytes charged with ChargeHost and not yet
// released.
func HostCharged() uint64 { return process().host.used.Load() }

// hostAccount is the host-memory account behind ChargeHost: the bytes
// charged and a gauge of their pressure against the system's memory.
type hostAccount struct {
	c       *collector
	sys     func() (systemMemory, error)
	used    atomic.Uint64
	reserve atomic.Uint64 // from the last reading: what a charge must leave available
	g       *gauge
}

func newHostAccount(c *collector, sys func() (systemMemory, error)) *hostAccount {
	h := &hostAccount{c: c, sys: sys}
	h.g = newGauge(h.measure)
	return h
}

// hostReserve is what a charge must leave available of a system of total
// bytes.
func hostReserve(total uint64) uint64 { return min(total/16, hostReserveMax) }

// measure reads the pressure now: live is the charged bytes, the limit
// those plus the system's available memory (what we hold, and what we
// could still get). Without a readable system it has no limit.
func (h *hostAccount) measure() reading {
	used := h.used.Load()
	sm, err := h.sys()
	if err != nil {
		return reading{Live: used}
	}
	h.reserve.Store(hostReserve(sm.Total))
	return reading{Live: used, Limit: used + sm.Available}
}

// beforeAlloc announces n bytes about to be allocated and collects when
// the pressure and the time budget call for it; it reports whether a
// collection ran.
func (h *hostAccount) beforeAlloc(n uint64) bool { return h.g.check(h.c, n, false) }

func (h *hostAccount) charge(n uint64) error {
	h.beforeAlloc(n)
	if !h.fits(n) {
		h.c.collect(h.measure, h.c.cfg.ReclaimWaitMax)
		if !h.fits(n) {
			return h.refusal(n)
		}
	}
	h.used.Add(n)
	return nil
}

// fits reports whether n more bytes leave the reserve available. The
// limit (charged plus available bytes) comes from the gauge's last reading
// while that is fresh, else from a new one; the charged bytes are always
// today's, since each charge is soon an allocation that lowers the
// system's available memory by as much.
func (h *hostAccount) fits(n uint64) bool {
	if est, ok := h.g.estimate(); ok && est.Limit > 0 && roomFor(est.Limit, h.used.Load(), n, h.reserve.Load()) {
		return true
	}
	r := h.g.measure()
	return r.Limit == 0 || roomFor(r.Limit, h.used.Load(), n, h.reserve.Load())
}

// roomFor reports whether a limit has room for n bytes beyond used and
// reserve.
func roomFor(limit, used, n, reserve uint64) bool {
	if used > limit {
		return false
	}
	free := limit - used
	return free >= reserve && free-reserve >= n
}

func (h *hostAccount) refusal(n uint64) error {
	sm, err := h.sys()
	if err != nil {
		return fmt.Errorf("gcpressure: %s of pinned or managed memory refused: %w", units.FormatBytes(n), ErrHostMemory)
	}
	return fmt.Errorf("gcpressure: %s of pinned or managed memory refused: %w: %s, of which %s stays free for the system; %s charged already",
		units.FormatBytes(n), ErrHostMemory, sm, units.FormatBytes(hostReserve(sm.Total)), units.FormatBytes(h.used.Load()))
}

func (h *hostAccount) release(n uint64) {
	for {
		used := h.used.Load()
		if n > used {
			panic(fmt.Sprintf("gcpressure: ReleaseHost(%d) with only %d bytes charged", n, used))
		}
		if h.used.CompareAndSwap(used, used-n) {
			return
		}
	}
}
