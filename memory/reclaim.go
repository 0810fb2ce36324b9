package memory

import (
	"errors"

	"github.com/gpuarr/gpuarr/device"
)

// Reclaimer frees memory on request, before an allocation fails. Package
// gcpressure implements it (collect garbage, wait for cleanups that free
// arrays, synchronize streams); this package only calls it.
//
// Reclaim is asked for need bytes on dev. level counts the calls made for
// one failing allocation, from 0, so an implementation can escalate (for
// example 0: synchronize the stream, 1: run the GC and wait for cleanups,
// 2: synchronize every stream). It reports whether it may have freed
// anything; the allocator retries after each true and stops calling at the
// first false or after ReclaimLevels calls. It runs without any allocator
// lock held and may free blocks of any resource.
type Reclaimer interface {
	Reclaim(dev *device.Device, need uint64, level int) (freed bool)
}

// ReclaimLevels bounds the Reclaim calls for one allocation.
const ReclaimLevels = 4

// ReclaimFunc adapts a function to Reclaimer.
type ReclaimFunc func(dev *device.Device, need uint64, level int) bool

// Reclaim calls f.
func (f ReclaimFunc) Reclaim(dev *device.Device, need uint64, level int) bool {
	return f(dev, need, level)
}

var reclaimerHook hook[Reclaimer]

// SetReclaimer installs the process-wide reclaimer, used by every resource
// whose options name none, and returns the previous one. nil removes it.
func SetReclaimer(r Reclaimer) (previous Reclaimer) { return reclaimerHook.swap(r) }

func globalReclaimer() Reclaimer { return reclaimerHook.load() }

func isOOM(err error) bool { return errors.Is(err, device.ErrOutOfMemory) }

// reclaiming is the Reclaiming adaptor.
type reclaiming struct {
	upstream
	r Reclaimer
	// giveBack returns cached memory before the last retry; nil: the
	// wrapped resource's EmptyCache.
	giveBack func() error
}

// Reclaiming wraps a resource without a cache of its own (Direct,
// DriverPool, under a Limit) with the exhaustion ladder the caching pool
// climbs (exhaustion.go): when an allocation fails for lack of memory it
// calls the reclaimer (r, or the process-wide one when r is nil), retrying
// after each call, then empties the wrapped resource's cache and retries
// once more; only then does it fail, with an *OutOfMemoryError carrying a
// status report. It is RMM's failure-callback adaptor.
func Reclaiming(up Resource, r Reclaimer) Resource {
	return &reclaiming{upstream: upstream{up}, r: r}
}

func (a *reclaiming) Alloc(s *device.Stream, n uint64) (*Block, error) {
	b, err := a.Resource.Alloc(s, n)
	if err == nil || !isOOM(err) {
		return b, err
	}
	retry := func() (*Block, error) { return a.Resource.Alloc(s, n) }
	giveBack := a.giveBack
	if giveBack == nil {
		giveBack = a.Resource.EmptyCache
	}
	l := ladder{dev: a.Device(), need: n, reclaimer: a.r,
		retry: retry, giveBack: giveBack, last: retry}
	b, err, failed := l.climb(err)
	if !failed {
		return b, err
	}
	var oom *OutOfMemoryError
	if errors.As(err, &oom) {
		return nil, err
	}
	return nil, &OutOfMemoryError{Device: a.Device().String(), Requested: n, Stats: a.Stats(), Cause: err, Holders: topHolders(deviceLabel(a.Device()), oomHolders)}
}
