package memory

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/units"
)

// The GPU memory profile: allocations sampled by bytes, as Go's heap
// profiler samples the heap (runtime.MemProfileRate), each charged to the
// Go call stack that made it, so that `go tool pprof` answers "which of my
// code holds device memory". pprof.go writes it.
//
// Sampling: every allocator keeps a countdown of bytes; each allocation
// subtracts its size, and the one that takes the countdown below zero is
// sampled and draws the next countdown from an exponential distribution
// of mean ProfileRate. An allocation of s bytes is therefore sampled with
// probability 1 − exp(−s/rate) (always, in practice, when s is several
// times the rate), and the writer scales each sample by the inverse of
// that probability, which makes the totals unbiased estimates. The caching
// pool keeps one countdown per stream, under the stream's lock that its
// hot path takes anyway, so an allocation that is not sampled costs one
// subtraction and one comparison; free tests one field of the block. A
// sample is taken after the stream's lock is released.

// DefaultProfileRate is the profile's default sampling rate: on average
// one sample per this many bytes allocated. An allocation of s bytes is
// sampled with probability 1 − exp(−s/rate): one of 64 MiB about once in
// 256 allocations, one of the rate 63 % of the time, one of four times
// the rate 98 %.
//
// The rate follows from the cost of a sample (a walk of up to
// maxStackDepth frames, a hash lookup and two atomic adds, and two more
// at free), which is about two to three times the caching pool's
// alloc+free of a cached block: a loop that reuses cached blocks of s
// bytes as fast as the pool serves them pays that ratio times the
// probability above, under 1.5 % for blocks of 64 MiB and less for
// smaller ones, so the profile can stay on. In return a program holding H
// bytes in arrays much smaller than the rate has about H/rate of them in
// the in-use profile (each scaled to stand for the bytes it represents),
// and all its arrays of several times the rate. A smaller rate
// (FineProfileRate for a profile file, EnvProfileRate, SetProfileRate)
// samples more, at a cost in proportion.
const DefaultProfileRate = 16 << 30

// FineProfileRate is runtime.MemProfileRate's default, the rate RecordTo
// (the example programs' -gpumemprofile) samples at: every allocation of a
// few MiB is sampled, each a stack capture on the allocation path.
const FineProfileRate = 512 << 10

// EnvProfileRate sets the profile's sampling rate in bytes at start-up
// ("16GiB", "1MiB", a number of bytes; 1 records every allocation, 0
// turns the profile off). SetProfileRate changes it at run time.
const EnvProfileRate = "GPUARR_MEMPROFILE_RATE"

// Kinds of memory the profile and the metrics keep apart.
const (
	MemoryDevice  = "device"  // device memory of the memory resources
	MemoryManaged = "managed" // managed (unified) memory: Managed, DefaultManaged
	MemoryPinned  = "pinned"  // page-locked host memory (unified.NewPinned; NotePinned)
)

var kindNames = [...]string{MemoryDevice, MemoryManaged, MemoryPinned}

const (
	kindDevice uint8 = iota
	kindManaged
	kindPinned
)

// idleRecheck is the countdown a stream restarts with while the profile
// is off, so that turning it on takes effect within this many bytes.
const idleRecheck = 16 << 20

var profRate struct {
	once sync.Once
	v    atomic.Int64
}

func loadProfileRate() int64 {
	profRate.once.Do(func() {
		rate := int64(DefaultProfileRate)
		if v, err := profileRateFromEnv(os.Getenv); err == nil {
			rate = v
		}
		profRate.v.CompareAndSwap(0, rate+1) // +1: a set value (SetProfileRate) wins
	})
	return profRate.v.Load() - 1
}

// profileRateFromEnv parses EnvProfileRate (unset: the default).
func profileRateFromEnv(getenv func(string) string) (int64, error) {
	v := strings.TrimSpace(getenv(EnvProfileRate))
	if v == "" {
		return DefaultProfileRate, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		return n, nil
	}
	n, err := units.ParseSize(v)
	if err != nil {
		return 0, &device.ConfigError{Var: EnvProfileRate, Value: v, Reason: "want a number of bytes (0: off, 1: every allocation) or a size such as 512KiB"}
	}
	return int64(n), nil
}

// ProfileRate is the profile's sampling rate in bytes (0: off).
func ProfileRate() int { return int(loadProfileRate()) }

// SetProfileRate sets the sampling rate in bytes and returns the previous
// one: 0 turns the profile off, 1 records every allocation. Each stream
// picks up a new rate at its next sample (within 16 MiB of allocation
// when the profile was off), so set it before the allocations to profile,
// as with runtime.MemProfileRate. Samples taken at another rate are
// scaled by the current one. A negative rate panics.
func SetProfileRate(rate int) (previous int) {
	if rate < 0 {
		panic("memory.SetProfileRate: negative rate " + strconv.Itoa(rate))
	}
	prev := loadProfileRate()
	profRate.v.Store(int64(rate) + 1)
	return int(prev)
}

// sampleClock is one allocator's countdown of bytes to the next sample.
// Its owner guards it (the caching pool: the stream cache's lock).
type sampleClock struct{ left int64 }

// tick counts an allocation of n bytes and reports whether it is sampled.
func (c *sampleClock) tick(n uint64) bool {
	c.left -= int64(n)
	if c.left >= 0 {
		return false
	}
	return c.reset()
}

// reset draws the next countdown; it reports whether the profile is on.
func (c *sampleClock) reset() bool {
	rate := loadProfileRate()
	if rate <= 0 {
		c.left = idleRecheck
		return false
	}
	c.left = int64(rand.ExpFloat64() * float64(rate))
	return true
}

// lockedClock is a sampleClock for allocators whose every call reaches the
// driver anyway (managed and pinned memory, the default resource without a
// caching pool): one shared countdown under a lock.
type lockedClock struct {
	mu sync.Mutex
	c  sampleClock
}

func (l *lockedClock) tick(n uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c.tick(n)
}

var otherClock lockedClock

// bucketKey is what a profile entry is charged to.
type bucketKey struct {
	stack *stackRec
	kind  uint8
	dev   string // device label (deviceLabel)
}

// bucket counts the sampled allocations of one stack, kind and device.
type bucket struct {
	key                bucketKey
	allocs, allocBytes atomic.Uint64
	frees, freeBytes   atomic.Uint64
	next               atomic.Pointer[bucket] // the stack's next bucket (stackRec.buckets)
}

func (b *bucket) free(n uint64) {
	b.frees.Add(1)
	b.freeBytes.Add(n)
}

// inuse is the bucket's sampled live count and bytes.
func (b *bucket) inuse() (count, bytes uint64) {
	// Frees are read first: a concurrent alloc-free pair then reads as
	// live rather than as a negative count.
	fc, fb := b.frees.Load(), b.freeBytes.Load()
	ac, ab := b.allocs.Load(), b.allocBytes.Load()
	return ac - min(ac, fc), ab - min(ab, fb)
}

// profState lists the buckets; mu orders the creation of buckets.
var profState struct {
	mu   sync.Mutex
	list []*bucket
}

// deviceLabel names dev in profiles and metrics: "cuda:0", "host:1".
func deviceLabel(dev *device.Device) string {
	if dev == nil {
		return "host"
	}
	return dev.Backend() + ":" + strconv.Itoa(dev.Ordinal())
}

// sample charges an allocation of n bytes on dev (deviceLabel) to the
// stack that made it, skip frames above sample's caller left out; it
// returns the bucket that Free reports to. It costs a stack capture
// (captureStack), a walk of the stack's few buckets and two atomic adds;
// it takes a lock and allocates only for a stack, kind or device not seen
// before.
//
//go:noinline
func sample(kind uint8, dev string, n uint64, skip int) *bucket {
	b := bucketOf(captureStack(skip+1), kind, dev)
	b.allocs.Add(1)
	b.allocBytes.Add(n)
	return b
}

// bucketOf returns the bucket of st, kind and dev, creating it if needed.
// A stack's buckets are a list that only grows, at its head, under
// profState.mu; readers walk it without a lock.
func bucketOf(st *stackRec, kind uint8, dev string) *bucket {
	find := func() *bucket {
		for b := st.buckets.Load(); b != nil; b = b.next.Load() {
			if b.key.kind == kind && b.key.dev == dev {
				return b
			}
		}
		return nil
	}
	if b := find(); b != nil {
		return b
	}
	profState.mu.Lock()
	defer profState.mu.Unlock()
	if b := find(); b != nil {
		return b
	}
	b := &bucket{key: bucketKey{stack: st, kind: kind, dev: dev}}
	b.next.Store(st.buckets.Load())
	st.buckets.Store(b)
	profState.list = append(profState.list, b)
	return b
}

// buckets returns every bucket so far.
func profileBuckets() []*bucket {
	profState.mu.Lock()
	defer profState.mu.Unlock()
	return append([]*bucket(nil), profState.list...)
}

// sampleOther samples an allocation of an allocator without a clock of
// its own (otherClock); nil when it is not sampled.
//
//go:noinline
func sampleOther(kind uint8, dev *device.Device, n uint64, skip int) *bucket {
	if !otherClock.tick(n) {
		return nil
	}
	return sample(kind, deviceLabel(dev), n, skip+1)
}

// unsample reports the free of a sampled block.
func unsample(b *Block) {
	if b.prof != nil {
		b.prof.free(b.size)
		b.prof = nil
	}
}

// pinnedBytes counts the page-locked host memory noted with NotePinned.
var pinnedBytes atomic.Int64

// PinnedNote is the record of a pinned host allocation made by NotePinned;
// Free ends it. The zero value's Free does nothing.
type PinnedNote struct {
	b *bucket
	n uint64
}

// NotePinned records n bytes of page-locked host memory just allocated
// through dev (unified.NewPinned calls it) in the metrics and, sampled,
// in the profile. Call Free on the result when the memory is freed.
func NotePinned(dev *device.Device, n uint64) PinnedNote {
	pinnedBytes.Add(int64(n))
	return PinnedNote{b: sampleOther(kindPinned, dev, n, 0), n: n}
}

// Free records that the memory of NotePinned was freed.
func (p PinnedNote) Free() {
	if p.n == 0 {
		return
	}
	pinnedBytes.Add(-int64(p.n))
	if p.b != nil {
		p.b.free(p.n)
	}
}

// profiled is the adaptor that samples a resource without a caching pool
// (the default resource under GPUARR_MEMORY_POOL=cuda or none).
type profiled struct{ upstream }

func (r profiled) Alloc(s *device.Stream, n uint64) (*Block, error) {
	b, err := r.Resource.Alloc(s, n)
	if err == nil && b.prof == nil {
		b.prof = sampleOther(kindDevice, r.Device(), b.size, 0)
	}
	return b, err
}

func (r profiled) Free(b *Block) error {
	p, size := b.prof, b.size
	b.prof = nil
	if err := r.Resource.Free(b); err != nil {
		b.prof = p
		return err
	}
	if p != nil {
		p.free(size)
	}
	return nil
}
