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
// splitting and coalescing, and freed blocks are cached for reuse. See the
// package documentation for its design.
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
