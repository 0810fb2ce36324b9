package memory

// The caching pool's statistics: counters kept under the pool's lock, plus
// the per-stream shards of allocated memory (peak.go).

// arenaStats are the counters kept under the pool's lock.
type arenaStats struct {
	reserved, segments  Stat
	smallReserved       uint64 // of reserved, in small segments
	splitBytes, splitN  Stat
	retries, ooms       uint64
	obtained, released  uint64
	crossWaits, queries uint64
	syncs, collects     uint64
	eventRecords        uint64
	spills, pendingFree uint64
}

func (s *Stat) add(n uint64) {
	s.Current += n
	s.Peak = max(s.Peak, s.Current)
}

func (s *Stat) sub(n uint64) { s.Current -= n }

// Stats reports the pool's statistics.
func (p *CachingPool) Stats() Stats {
	st := Stats{Kind: KindCaching, Device: p.dev.String(), SoftLimit: p.opts.SoftLimit}
	p.mu.Lock()
	r := p.reg.Load()
	for _, sc := range r.all {
		sc.mu.Lock()
		st.FrontCachedBytes += sc.bytes
		sc.mu.Unlock()
	}
	st.CachedBytes = st.FrontCachedBytes + p.small.bytes + p.large.bytes
	st.FreeBlocks = uint64(p.small.n + p.large.n)
	for _, x := range []*index{&p.small, &p.large} {
		if b := x.largest(); b != nil {
			st.LargestFreeBlock = max(st.LargestFreeBlock, b.size)
		}
	}
	st.AllocatedBytes, st.Allocations, st.ActiveBytes, st.ActiveBlocks = p.peaks.read(r.all)
	a := &p.a
	st.ReservedBytes, st.Segments = a.reserved, a.segments
	st.InactiveSplitBytes, st.InactiveSplitBlocks = a.splitBytes, a.splitN
	st.AllocRetries, st.OOMs = a.retries, a.ooms
	st.SegmentsObtained, st.SegmentsReleased = a.obtained, a.released
	st.CrossStreamWaits, st.EventQueries, st.Synchronizations = a.crossWaits, a.queries, a.syncs
	p.mu.Unlock()
	st.HardLimit = p.up.Stats().HardLimit
	return st
}
