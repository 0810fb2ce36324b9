package memory

import (
	"errors"

	"github.com/gpuarr/gpuarr/device"
)

// The exhaustion ladder: what an allocation does when upstream refuses it
// for lack of memory, before it fails. The caching pool and the Reclaiming
// adaptor climb the same ladder; they differ only in how they retry and in
// what they give back at the end.

// ladder is one climb of the exhaustion ladder, for need bytes on dev.
type ladder struct {
	dev       *device.Device
	need      uint64
	reclaimer Reclaimer // nil: the process-wide one (SetReclaimer), if any

	// retry tries the allocation again after a step that may have freed
	// memory.
	retry func() (*Block, error)
	// giveBack returns every cached, unused byte upstream; its error comes
	// with the final failure.
	giveBack func() error
	// last is the final attempt, after giveBack.
	last func() (*Block, error)
}

// settled reports whether an attempt ends the ladder: it got a block, or
// it failed for a reason other than running out of memory.
func settled(b *Block, err error) bool { return b != nil || err != nil && !isOOM(err) }

// climb runs the ladder's steps after a first failure (cause), each once
// with an attempt after it: the reclaimer's levels, while it reports it
// may have freed something; then giveBack and the last attempt. failed
// reports that every attempt ran out of memory; err is then the last
// attempt's error (cause when it had none) joined with giveBack's.
func (l *ladder) climb(cause error) (b *Block, err error, failed bool) {
	if r := reclaimerOr(l.reclaimer); r != nil {
		for level := range ReclaimLevels {
			if !r.Reclaim(l.dev, l.need, level) {
				break
			}
			if b, err = l.retry(); settled(b, err) {
				return b, err, false
			}
		}
	}
	giveErr := l.giveBack()
	if b, err = l.last(); settled(b, err) {
		return b, err, false
	}
	if err == nil {
		err = cause
	}
	if giveErr != nil {
		err = errors.Join(err, giveErr)
	}
	return nil, err, true
}

// ReclaimUntil climbs the exhaustion ladder for need bytes on dev for
// memory that no resource hands out (page-locked host memory). It runs
// the process-wide reclaimer's levels (SetReclaimer) and asks try after
// each, stopping at the first true; if none was, dev's default resource
// and its managed pool (DefaultManaged) give their cached segments back
// and try is asked a last time. It reports
// try's last answer. try may allocate: it is the retry.
func ReclaimUntil(dev *device.Device, need uint64, try func() bool) bool {
	if r := globalReclaimer(); r != nil {
		for level := range ReclaimLevels {
			if !r.Reclaim(dev, need, level) {
				break
			}
			if try() {
				return true
			}
		}
	}
	if def, err := Default(dev); err == nil {
		_ = def.EmptyCache() // a failure leaves the memory where it was; try says what came of it
	}
	emptyManagedCache(dev)
	return try()
}

// reclaimerOr is r, or the process-wide reclaimer when r is nil.
func reclaimerOr(r Reclaimer) Reclaimer {
	if r != nil {
		return r
	}
	return globalReclaimer()
}

func (p *CachingPool) oomError(size uint64, cause error) error {
	return &OutOfMemoryError{Device: p.dev.String(), Requested: size, Stats: p.Stats(), Cause: cause, Holders: topHolders(deviceLabel(p.dev), oomHolders)}
}

// exhausted is the pool's climb of the ladder when upstream refuses a
// segment. Before the shared steps it waits for the streams of blocks
// freed after RecordUse and takes those blocks; each retry moves the front
// caches into the index and checks stream progress before best fit and
// growth; the last step gives every idle segment back upstream.
func (p *CachingPool) exhausted(sc *streamCache, size uint64, cause error) (*Block, error) {
	l := ladder{
		dev:       p.dev,
		need:      size,
		reclaimer: p.opts.Reclaimer,
		retry: func() (*Block, error) {
			p.mu.Lock()
			p.flushFrontsLocked()
			p.collectLocked()
			b, err := p.bestFitLocked(sc, size)
			p.unlock()
			if b != nil || err != nil {
				return b, err
			}
			return p.grow(sc, size)
		},
		giveBack: func() error {
			p.mu.Lock()
			p.flushFrontsLocked()
			p.collectLocked()
			err := p.releaseLocked(0, true)
			if e := p.unlock(); err == nil {
				err = e
			}
			return err
		},
		last: func() (*Block, error) { return p.grow(sc, size) },
	}

	p.mu.Lock()
	p.a.retries++
	p.flushFrontsLocked()
	if err := p.processPendingLocked(true); err != nil {
		p.unlock()
		return nil, err
	}
	p.unlock()
	if b, err := l.retry(); settled(b, err) {
		return b, err
	}
	b, err, failed := l.climb(cause)
	if !failed {
		return b, err
	}
	p.mu.Lock()
	p.a.ooms++
	p.mu.Unlock()
	return nil, p.oomError(size, err)
}
