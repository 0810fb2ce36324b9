package memory

import "sync"

// Peak tracking without shared writes on the hot path.
//
// Each stream's front cache counts the memory allocated on it (a shard).
// The device-wide figure is the sum of the shards, so its peak would need
// a global view at every allocation. Instead each shard holds a bound: the
// global code hands out headroom so that the sum of all bounds never exceeds
// the recorded peak. An allocation that stays within its shard's bound
// cannot have made a new peak and touches nothing shared; one that passes
// it recomputes the sum under a lock, raises the peak if needed and
// redistributes the headroom, giving each shard up to its own past maximum
// (its likely demand). With one goroutine this is exact; under concurrency
// the sums read while others allocate may lag.
//
// Active memory is allocated memory plus the pool's pending blocks (the
// global part, changed under the pool lock), so one bound serves both.
//
// Under concurrency the sum of the shards' maxima exceeds the peak (they
// are rarely all at their maximum at once), so a shard caught below its
// maximum by another's recompute could lose its headroom and recompute on
// its next allocation, and so on, locking every stream each time. Once the
// tracker sees contention (a lock it has to wait for: more than one
// goroutine is at work), it stops lowering a shard's bound below the
// shard's own maximum: recomputes then happen only at new per-stream maxima,
// and the peak may miss a moment when every stream is at or below its own
// maximum but their sum is higher than any sum seen.

// shard is one stream's share of the allocated memory. Its fields are
// guarded by the stream cache's lock: the hot path updates them with plain
// writes, and recompute and read take each stream's lock in turn (never
// while holding another stream's lock, so the order is pool, peaks, stream).
type shard struct {
	bytes, count     uint64 // current
	hiBytes, hiCount uint64 // no recompute below these
	pkBytes, pkCount uint64 // the shard's own maximum
}

// over reports whether the current values passed the shard's bounds.
func (s *shard) over() bool { return s.bytes > s.hiBytes || s.count > s.hiCount }

func (s *shard) add(n uint64) { s.bytes += n; s.count++ }
func (s *shard) sub(n uint64) { s.bytes -= n; s.count-- }

// peaks holds the device-wide peaks of allocated and active memory.
type peaks struct {
	mu      sync.Mutex
	alloc   [2]uint64 // peak allocated bytes, blocks
	active  [2]uint64 // peak active bytes, blocks
	pending [2]uint64 // the global part of active memory: bytes, blocks
	relaxed bool      // contention seen: bounds no longer drop below a shard's maximum
}

// lock takes mu, noting contention.
func (t *peaks) lock() {
	if !t.mu.TryLock() {
		t.mu.Lock()
		t.relaxed = true
	}
}

func sat(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return 0
}

// sum reads the current totals of the streams' shards; it reports whether
// it had to wait for a stream's lock.
func sum(all []*streamCache) (bytes, count uint64, contended bool) {
	for _, sc := range all {
		if !sc.mu.TryLock() {
			sc.mu.Lock()
			contended = true
		}
		bytes += sc.sh.bytes
		count += sc.sh.count
		sc.mu.Unlock()
	}
	return
}

// recompute sums the shards, raises the peaks and hands out headroom,
// self (if any) first. The caller holds no stream lock.
func (t *peaks) recompute(all []*streamCache, self *streamCache) {
	t.lock()
	defer t.mu.Unlock()
	t.recomputeLocked(all, self)
}

func (t *peaks) recomputeLocked(all []*streamCache, self *streamCache) {
	sb, sc, contended := sum(all)
	t.relaxed = t.relaxed || contended
	t.alloc[0], t.alloc[1] = max(t.alloc[0], sb), max(t.alloc[1], sc)
	ab, ac := sb+t.pending[0], sc+t.pending[1]
	t.active[0], t.active[1] = max(t.active[0], ab), max(t.active[1], ac)
	hb := min(sat(t.alloc[0], sb), sat(t.active[0], ab))
	hc := min(sat(t.alloc[1], sc), sat(t.active[1], ac))
	grant := func(c *streamCache) {
		c.mu.Lock()
		s := &c.sh
		s.pkBytes, s.pkCount = max(s.pkBytes, s.bytes), max(s.pkCount, s.count)
		gb := min(sat(s.pkBytes, s.bytes), hb)
		gc := min(sat(s.pkCount, s.count), hc)
		hb, hc = hb-gb, hc-gc
		s.hiBytes, s.hiCount = s.bytes+gb, s.count+gc
		if t.relaxed {
			s.hiBytes, s.hiCount = max(s.hiBytes, s.pkBytes), max(s.hiCount, s.pkCount)
		}
		c.mu.Unlock()
	}
	if self != nil {
		grant(self)
	}
	for _, c := range all {
		if c != self {
			grant(c)
		}
	}
}

// addPending adds to the global part of active memory and recomputes.
func (t *peaks) addPending(all []*streamCache, bytes uint64) {
	t.lock()
	defer t.mu.Unlock()
	t.pending[0] += bytes
	t.pending[1]++
	t.recomputeLocked(all, nil)
}

// subPending takes from the global part (no new peak can follow).
func (t *peaks) subPending(bytes uint64) {
	t.mu.Lock()
	t.pending[0] -= bytes
	t.pending[1]--
	t.mu.Unlock()
}

// read returns the allocated and active stats, current and peak.
func (t *peaks) read(all []*streamCache) (allocB, allocC, actB, actC Stat) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sb, sc, _ := sum(all)
	allocB = Stat{Current: sb, Peak: max(t.alloc[0], sb)}
	allocC = Stat{Current: sc, Peak: max(t.alloc[1], sc)}
	actB = Stat{Current: sb + t.pending[0], Peak: max(t.active[0], sb+t.pending[0])}
	actC = Stat{Current: sc + t.pending[1], Peak: max(t.active[1], sc+t.pending[1])}
	return
}
