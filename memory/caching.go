package memory

import (
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
)

// The caching pool is spread over files by concept; where a decision lives:
//
//	caching.go      the pool's type, options and constructor
//	sizes.go        size classes: rounding, small or large, segment sizes
//	alloc.go        Alloc: front cache, best fit and splitting, growth
//	streamcache.go  the per-stream front caches, spilling to the index
//	registry.go     finding a stream's cache; forgetting closed streams
//	index.go        the best-fit index of free blocks; merging neighbours
//	free.go         Free and RecordUse: stream-ordered frees, pending blocks
//	events.go       cross-stream waits and the batched progress check
//	exhaustion.go   the ladder run when upstream refuses memory
//	trim.go         giving segments back: soft limit, EmptyCache, Trim
//	cachingstats.go Stats; peak.go the per-stream peak accounting

// Front cache bounds per stream, unless CachingOptions say otherwise.
const (
	defaultFrontBlocks = 64
	defaultFrontBytes  = 1 << 30
	// Every so many spills or pending frees the pool checks stream progress.
	collectEvery = 32
)

// CachingOptions tune a caching pool. The zero value is PyTorch's behaviour:
// keep everything cached, split any block.
type CachingOptions struct {
	// SoftLimit is the number of cached (reserved but unused) bytes the pool
	// keeps when it checks stream progress; beyond it, idle segments go back
	// upstream. 0 keeps everything.
	SoftLimit uint64
	// MaxSplitSize: blocks this large or larger are never split, and
	// requests below it never take them (PyTorch's max_split_size_mb,
	// against fragmentation by big blocks). 0 means no limit.
	MaxSplitSize uint64
	// Reclaimer is called when memory runs out; nil uses the process-wide
	// one (SetReclaimer).
	Reclaimer Reclaimer
	// FrontBlocks and FrontBytes bound each stream's front cache (0: 64
	// blocks, 1 GiB). A negative FrontBlocks turns the front caches off:
	// every allocation then goes through the best-fit index.
	FrontBlocks int
	FrontBytes  uint64
	// Poison fills freed blocks with the device's poison byte (a memset in
	// the freeing stream's order) before reuse. It is on whatever this says
	// when the device runs in checking mode (Device.Checking: the host
	// backend's GPUARR_HOST_CHECK).
	Poison bool
	// Pressure announces each allocation to the process-wide Pressure
	// (SetPressure) before making it, as the default resources do.
	Pressure bool
}

// CachingPool is the stream-ordered caching allocator: segments obtained
// from an upstream resource are carved into blocks by best fit, with
// splitting and coalescing, and freed blocks are cached for reuse.
//
// Sizes follow PyTorch's caching allocator (sizes.go): requests round up
// to 512 bytes; those up to 1 MiB share small segments, larger ones get
// segments of whole blocks, and a block never spans two segments. Free
// blocks live in a best-fit index (index.go); allocation splits off the
// rest, freeing merges free neighbours. With MaxSplitSize big blocks are
// neither split nor given to small requests.
//
// Costs: alloc and free of a cached size on one stream take only that
// stream's lock, make no driver call and allocate nothing (each stream's
// front cache of blocks freed on it). Reusing another stream's freed
// memory costs one event record and one device-side wait (no CPU wait);
// the pool learns which frees streams passed in batches, before it grows.
// In checking mode (Device.Checking) freed blocks are poisoned in the
// freeing stream's order, so a missing wait shows as wrong data.
//
// When upstream refuses a segment the pool climbs a ladder, retrying after
// each step: take pending blocks once their streams pass; call the
// Reclaimer (SetReclaimer or CachingOptions.Reclaimer: package gcpressure's
// collections) level by level; give idle segments back upstream. Only then
// does it fail, with an *OutOfMemoryError matching device.ErrOutOfMemory
// whose message is a status report (requested, used, reserved, limits,
// largest free block, fragmentation). The soft limit gives idle segments
// back when the pool checks stream progress; EmptyCache and Trim do so on
// demand. ReclaimUntil climbs the same ladder for memory no resource hands
// out (page-locked host memory, room for managed memory).
type CachingPool struct {
	dev         *device.Device
	up          Resource
	opts        CachingOptions
	frontBlocks int
	frontBytes  uint64
	ordered     bool // upstream is stream-ordered
	poison      bool // fill freed blocks with poisonByte
	pressure    bool // announce allocations (CachingOptions.Pressure)
	poisonByte  byte
	label       string // the device in profiles (deviceLabel)

	reg   atomic.Pointer[registry]
	regMu sync.Mutex

	mu          sync.Mutex
	small       index // free blocks of small segments
	large       index // free blocks of large segments
	segs        []*segment
	spare       []*Block
	spareEvents []*poolEvent
	pending     []*Block // freed after RecordUse, waiting for other streams
	release     []*Block // upstream blocks to free once the lock is dropped
	a           arenaStats

	peaks peaks
}

// segment is one block obtained upstream.
type segment struct {
	ptr   device.Ptr
	size  uint64
	up    *Block
	small bool
	head  *Block // the block at ptr (it survives every split and merge)
	// placed is how many bytes from ptr blocks have covered so far: a
	// block that reaches beyond it is fresh (Block.Fresh).
	placed uint64
	pos    int // index in CachingPool.segs
}

// Caching returns a caching pool over upstream (usually Limit(Direct(dev))).
func Caching(upstream Resource, opts CachingOptions) *CachingPool {
	dev := upstream.Device()
	poisonByte, checking := dev.Checking()
	p := &CachingPool{
		dev:         dev,
		up:          upstream,
		opts:        opts,
		frontBlocks: opts.FrontBlocks,
		frontBytes:  opts.FrontBytes,
		ordered:     isStreamOrdered(upstream),
		poison:      opts.Poison || checking,
		pressure:    opts.Pressure,
		poisonByte:  poisonByte,
		label:       deviceLabel(dev),
	}
	if p.frontBlocks == 0 {
		p.frontBlocks = defaultFrontBlocks
	}
	if p.frontBytes == 0 {
		p.frontBytes = defaultFrontBytes
	}
	p.reg.Store(&registry{m: map[*device.Stream]*streamCache{}})
	registerPool(p)
	return p
}

// Device is the pool's device.
func (p *CachingPool) Device() *device.Device { return p.dev }

// Upstream is the resource the pool obtains segments from.
func (p *CachingPool) Upstream() Resource { return p.up }

// Options are the options the pool was made with.
func (p *CachingPool) Options() CachingOptions { return p.opts }

// unlock drops the pool's lock and frees the segments released under it.
func (p *CachingPool) unlock() error {
	rel := p.release
	p.release = nil
	p.mu.Unlock()
	var first error
	for _, up := range rel {
		if err := p.up.Free(up); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (p *CachingPool) streamOrdered() bool { return false }
