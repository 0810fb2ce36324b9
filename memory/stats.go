package memory

import (
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
)

// Stat is a quantity's current value and its peak since the resource was made.
type Stat struct {
	Current uint64 `json:"current"`
	Peak    uint64 `json:"peak"`
}

// Stats are a resource's statistics, in the spirit of PyTorch's
// memory_stats. Bytes and block counts have a current value and a peak.
//
//   - Allocated: blocks held by users (Capacity, i.e. rounded sizes).
//   - Active: allocated blocks plus freed blocks whose reuse still waits for
//     other streams that used them (RecordUse).
//   - Reserved: memory obtained upstream (segments, for the caching pool).
//   - InactiveSplit: free blocks that are pieces of a split segment — the
//     fragmentation that EmptyCache cannot give back.
//
// Reserved = Active + Cached. Peaks of allocated and active memory are exact
// when one goroutine allocates; under concurrency they may miss a moment
// when every stream is at or below its own maximum (per-stream counters
// keep the hot path free of shared writes; see peak.go).
type Stats struct {
	Kind   string `json:"kind"` // KindCaching, KindDriverPool or KindDirect
	Device string `json:"device"`

	AllocatedBytes      Stat `json:"allocated_bytes"`
	Allocations         Stat `json:"allocations"`
	ActiveBytes         Stat `json:"active_bytes"`
	ActiveBlocks        Stat `json:"active_blocks"`
	ReservedBytes       Stat `json:"reserved_bytes"`
	Segments            Stat `json:"segments"`
	InactiveSplitBytes  Stat `json:"inactive_split_bytes"`
	InactiveSplitBlocks Stat `json:"inactive_split_blocks"`

	CachedBytes      uint64 `json:"cached_bytes"`       // reserved and reusable: front caches and the index
	FrontCachedBytes uint64 `json:"front_cached_bytes"` // of CachedBytes, in per-stream front caches
	FreeBlocks       uint64 `json:"free_blocks"`        // blocks in the best-fit index
	LargestFreeBlock uint64 `json:"largest_free_block"`

	AllocRetries     uint64 `json:"alloc_retries"` // allocations that had to reclaim memory and retry
	OOMs             uint64 `json:"ooms"`
	SegmentsObtained uint64 `json:"segments_obtained"`
	SegmentsReleased uint64 `json:"segments_released"`
	CrossStreamWaits uint64 `json:"cross_stream_waits"` // device-side waits so a stream could reuse another's memory
	EventQueries     uint64 `json:"event_queries"`
	Synchronizations uint64 `json:"synchronizations"` // CPU waits (releasing memory still in use)

	HardLimit uint64 `json:"hard_limit,omitempty"` // 0: none
	SoftLimit uint64 `json:"soft_limit,omitempty"` // 0: none
}

// Fragmentation is the share of cached bytes outside the largest free
// block: 0 when the cache is one block (or empty), near 1 when it is
// crumbs.
func (s Stats) Fragmentation() float64 {
	free := s.CachedBytes - s.FrontCachedBytes
	if free == 0 || s.LargestFreeBlock >= free {
		return 0
	}
	return 1 - float64(s.LargestFreeBlock)/float64(free)
}

// counter is a Stat kept with atomics, for the resources whose every call
// reaches the driver anyway (Direct, DriverPool, Statistics).
type counter struct{ cur, peak atomic.Uint64 }

func (c *counter) add(n uint64) {
	v := c.cur.Add(n)
	for p := c.peak.Load(); v > p && !c.peak.CompareAndSwap(p, v); p = c.peak.Load() {
	}
}

func (c *counter) sub(n uint64) { c.cur.Add(-n) }

func (c *counter) stat() Stat { return Stat{Current: c.cur.Load(), Peak: c.peak.Load()} }

// usage counts the blocks a simple resource has handed out.
type usage struct {
	bytes, blocks counter
	ooms          atomic.Uint64
	allocs, frees atomic.Uint64
}

func (u *usage) alloc(n uint64) { u.bytes.add(n); u.blocks.add(1); u.allocs.Add(1) }
func (u *usage) free(n uint64)  { u.bytes.sub(n); u.blocks.sub(1); u.frees.Add(1) }

func (u *usage) fill(s *Stats) {
	s.AllocatedBytes, s.Allocations = u.bytes.stat(), u.blocks.stat()
	s.ActiveBytes, s.ActiveBlocks = s.AllocatedBytes, s.Allocations
	s.OOMs = u.ooms.Load()
}

// statistics is the Statistics adaptor.
type statistics struct {
	upstream
	u usage
}

// Statistics wraps r and counts the blocks that pass through it (allocated
// bytes and blocks, current and peak, and OOMs), as RMM's statistics
// adaptor does; the rest of Stats comes from r. It is useful around a
// resource that does not count, or to see what a caching pool asks of its
// upstream: Caching(Statistics(Direct(dev)), opts).
func Statistics(r Resource) Resource { return &statistics{upstream: upstream{r}} }

func (a *statistics) Alloc(s *device.Stream, n uint64) (*Block, error) {
	b, err := a.Resource.Alloc(s, n)
	if err != nil {
		if isOOM(err) {
			a.u.ooms.Add(1)
		}
		return nil, err
	}
	a.u.alloc(b.size)
	return b, nil
}

func (a *statistics) Free(b *Block) error {
	size := b.size
	if err := a.Resource.Free(b); err != nil {
		return err
	}
	a.u.free(size)
	return nil
}

func (a *statistics) Stats() Stats {
	s := a.Resource.Stats()
	a.u.fill(&s)
	return s
}
