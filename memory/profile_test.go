package memory

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// withProfileRate sets the profile's rate for one test.
func withProfileRate(t *testing.T, rate int) {
	prev := SetProfileRate(rate)
	restartOtherClock()
	t.Cleanup(func() { SetProfileRate(prev); restartOtherClock() })
}

// restartOtherClock makes the next managed or pinned allocation draw the
// shared countdown at the rate now set: one drawn at an earlier rate (an
// exponential of mean 512 KiB, say) could skip a test's allocation.
func restartOtherClock() {
	otherClock.mu.Lock()
	otherClock.c.left = 0
	otherClock.mu.Unlock()
}

// writeAndParse writes the profile and parses it back as go tool pprof
// would.
func writeAndParse(t *testing.T) *profile.Profile {
	var buf bytes.Buffer
	require.NoError(t, WriteProfile(&buf))
	p, err := profile.Parse(&buf)
	require.NoError(t, err)
	require.NoError(t, p.CheckValid())
	return p
}

// sampleValues sums the values of the samples whose innermost frame is fn
// (a suffix of the function's name) and whose "memory" label is kind.
func sampleValues(p *profile.Profile, fn, kind string) []int64 {
	sum := make([]int64, len(p.SampleType))
	for _, s := range p.Sample {
		if len(s.Location) == 0 || len(s.Location[0].Line) == 0 || s.Label["memory"][0] != kind {
			continue
		}
		if !strings.HasSuffix(s.Location[0].Line[0].Function.Name, fn) {
			continue
		}
		for i, v := range s.Value {
			sum[i] += v
		}
	}
	return sum
}

//go:noinline
func allocForProfile(t *testing.T, p *CachingPool, s *device.Stream, n uint64) *Block {
	b, err := p.Alloc(s, n)
	require.NoError(t, err)
	return b
}

// At rate 1 every allocation is sampled: the profile's figures are exact,
// charged to the allocating function (the pool's own frames left out),
// in pprof's four sample types.
func TestProfileChargesTheAllocatingFunction(t *testing.T) {
	withProfileRate(t, 1)
	dev := defaultDevice(t)
	p := Caching(Direct(dev), CachingOptions{})
	defer p.EmptyCache()
	s := newStream(t, dev)
	before := sampleValues(writeAndParse(t), "memory.allocForProfile", MemoryDevice)

	a := allocForProfile(t, p, s, 3000)  // 3072 bytes
	b := allocForProfile(t, p, s, 2<<20) // 2 MiB
	c := allocForProfile(t, p, s, 1<<10) // 1 KiB, freed below
	require.NoError(t, p.Free(c))

	prof := writeAndParse(t)
	types := []string{}
	for _, st := range prof.SampleType {
		types = append(types, st.Type)
	}
	assert.Equal(t, []string{"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"}, types)
	assert.Equal(t, "inuse_space", prof.DefaultSampleType)
	got := sampleValues(prof, "memory.allocForProfile", MemoryDevice)
	for i := range got {
		got[i] -= before[i]
	}
	total := int64(a.Capacity() + b.Capacity() + 1024)
	assert.Equal(t, []int64{3, total, 2, int64(a.Capacity() + b.Capacity())}, got)

	// The root frame names the kind; the labels name kind and device.
	for _, smp := range prof.Sample {
		last := smp.Location[len(smp.Location)-1].Line[0].Function.Name
		assert.Equal(t, "gpuarr: "+smp.Label["memory"][0]+" memory", last)
		assert.NotEmpty(t, smp.Label["device"])
	}
	require.NoError(t, p.Free(a))
	require.NoError(t, p.Free(b))
	got = sampleValues(writeAndParse(t), "memory.allocForProfile", MemoryDevice)
	assert.Equal(t, before[3], got[3], "freed blocks leave inuse_space")
}

// Memory a pool caches but hands to nobody is one exact sample under
// CachedFrame.
func TestProfileShowsCachedMemory(t *testing.T) {
	withProfileRate(t, 0)
	dev := defaultDevice(t)
	p := Caching(Direct(dev), CachingOptions{})
	defer p.EmptyCache()
	b, err := p.Alloc(nil, 4<<20)
	require.NoError(t, err)
	require.NoError(t, p.Free(b))
	st := p.Stats()
	want := int64(st.ReservedBytes.Current - st.AllocatedBytes.Current)
	require.Positive(t, want)

	found := false
	for _, s := range writeAndParse(t).Sample {
		if s.Location[0].Line[0].Function.Name == CachedFrame && s.Value[3] == want && s.Label["device"][0] == deviceLabel(dev) {
			found = true
			assert.Equal(t, rootFrame(MemoryDevice), s.Location[1].Line[0].Function.Name)
		}
	}
	assert.True(t, found, "a cached-memory sample of %d bytes", want)
	runtime.KeepAlive(p)
}

//go:noinline
func allocManagedForProfile(t *testing.T, r Resource) *Block {
	b, err := r.Alloc(nil, 1<<20)
	require.NoError(t, err)
	return b
}

//go:noinline
func notePinnedForProfile(dev *device.Device) PinnedNote { return NotePinned(dev, 3<<20) }

// Managed and pinned memory are samples of their own kind.
func TestProfileSeparatesManagedAndPinned(t *testing.T) {
	withProfileRate(t, 1)
	dev := defaultDevice(t)
	if !dev.Info().ManagedMemory {
		t.Skip(dev.String() + " has no managed memory")
	}
	m := Managed(dev)
	b := allocManagedForProfile(t, m)
	pin := notePinnedForProfile(dev)
	before := Metrics()["memory/pinned_bytes"]

	prof := writeAndParse(t)
	assert.Equal(t, int64(b.Capacity()), sampleValues(prof, "memory.allocManagedForProfile", MemoryManaged)[3])
	assert.Zero(t, sampleValues(prof, "memory.allocManagedForProfile", MemoryDevice)[3])
	assert.Equal(t, int64(3<<20), sampleValues(prof, "memory.notePinnedForProfile", MemoryPinned)[3])

	require.NoError(t, m.Free(b))
	pin.Free()
	prof = writeAndParse(t)
	assert.Zero(t, sampleValues(prof, "memory.allocManagedForProfile", MemoryManaged)[3])
	assert.Zero(t, sampleValues(prof, "memory.notePinnedForProfile", MemoryPinned)[3])
	assert.Equal(t, before-3<<20, Metrics()["memory/pinned_bytes"])
}

// With the profile off, allocations record nothing.
func TestProfileOffRecordsNothing(t *testing.T) {
	withProfileRate(t, 0)
	dev := defaultDevice(t)
	p := Caching(Direct(dev), CachingOptions{})
	defer p.EmptyCache()
	before := sampleValues(writeAndParse(t), "memory.allocForProfile", MemoryDevice)
	for range 100 {
		require.NoError(t, p.Free(allocForProfile(t, p, nil, 64<<20)))
	}
	assert.Equal(t, before, sampleValues(writeAndParse(t), "memory.allocForProfile", MemoryDevice))
}

// The countdown samples 1 − exp(−s/rate) of the allocations of s bytes
// (every one of a size far above the rate), and the scaled samples
// estimate the true totals: within 5 % for about 20,000 samples, a
// deviation of more than seven standard deviations.
func TestSampleClockIsUnbiased(t *testing.T) {
	withProfileRate(t, 512<<10)
	cases := []struct {
		size uint64
		n    int
	}{{512, 20_000_000}, {64 << 10, 200_000}, {4 << 20, 20_000}, {64 << 20, 20_000}}
	// n is chosen so each size expects about 20,000 samples or more: the
	// 5% bound below is then more than 7 standard deviations.
	for _, c := range cases {
		var clk sampleClock
		clk.reset()
		var count uint64
		for range c.n {
			if clk.tick(c.size) {
				count++
			}
		}
		estC, estB := scaleSample(count, count*c.size, 512<<10)
		trueB := float64(c.size) * float64(c.n)
		assert.InDelta(t, 1, float64(estB)/trueB, 0.05, "size %d: %d samples", c.size, count)
		assert.InDelta(t, 1, float64(estC)/float64(c.n), 0.05, "size %d", c.size)
		if c.size >= 64<<20 {
			assert.Equal(t, uint64(c.n), count, "allocations far above the rate are always sampled")
		}
	}
}

// An allocation the profile does not sample allocates nothing, and a
// sampled one from a known stack neither.
func TestProfileHotPathAllocatesNothing(t *testing.T) {
	if _, checking := defaultDevice(t).Checking(); checking {
		t.Skip("in checking mode each free queues a poisoning memset, which allocates")
	}
	for _, rate := range []int{DefaultProfileRate, 1} {
		withProfileRate(t, rate)
		dev := defaultDevice(t)
		p := Caching(Direct(dev), CachingOptions{})
		s := dev.DefaultStream()
		allocFree := func() {
			b, err := p.Alloc(s, 4096)
			if err != nil {
				panic(err)
			}
			if err := p.Free(b); err != nil {
				panic(err)
			}
		}
		allocFree()
		assert.Zero(t, testing.AllocsPerRun(1000, allocFree), "rate %d", rate)
		require.NoError(t, p.EmptyCache())
	}
}

//go:noinline
func holdMemory(t *testing.T, p *CachingPool) *Block {
	b, err := p.Alloc(nil, 6<<20)
	require.NoError(t, err)
	return b
}

// With the profile on, an out-of-memory report names the stacks holding
// the device's memory, most first.
func TestOOMReportNamesTopHolders(t *testing.T) {
	withProfileRate(t, 1)
	dev := defaultDevice(t)
	never := ReclaimFunc(func(*device.Device, uint64, int) bool { return false })
	p := Caching(Limit(Direct(dev), 8<<20), CachingOptions{Reclaimer: never})
	defer p.EmptyCache()
	held := holdMemory(t, p)
	defer p.Free(held)

	_, err := p.Alloc(nil, 4<<20)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	var oom *OutOfMemoryError
	require.True(t, errors.As(err, &oom))
	require.NotEmpty(t, oom.Holders)
	top := oom.Holders[0]
	assert.GreaterOrEqual(t, top.Bytes, uint64(6<<20))
	assert.True(t, strings.HasSuffix(top.Stack[0].Func, "memory.holdMemory"), "innermost frame %v", top.Stack[0])
	assert.Contains(t, err.Error(), "top holders")
	assert.Contains(t, err.Error(), "memory.holdMemory (profile_test.go:")

	SetProfileRate(0)
	_, err = p.Alloc(nil, 4<<20)
	require.True(t, errors.As(err, &oom))
	assert.Empty(t, oom.Holders, "no holders with the profile off")
	assert.NotContains(t, err.Error(), "top holders")
}

func TestProfileRateFromEnv(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvProfileRate {
				return v
			}
			return ""
		}
	}
	for v, want := range map[string]int64{"": DefaultProfileRate, "0": 0, "1": 1, "1MiB": 1 << 20, " 4096 ": 4096} {
		got, err := profileRateFromEnv(env(v))
		require.NoError(t, err, v)
		assert.Equal(t, want, got, v)
	}
	_, err := profileRateFromEnv(env("lots"))
	require.ErrorIs(t, err, device.ErrBadConfig)
	assert.ErrorContains(t, err, EnvProfileRate)
	_, err = ConfigFromEnv(defaultDevice(t), env("-5"))
	assert.ErrorContains(t, err, EnvProfileRate)
	assert.Panics(t, func() { SetProfileRate(-1) })
}

func TestIsLibraryFrame(t *testing.T) {
	for name, lib := range map[string]bool{
		"github.com/gpuarr/gpuarr/memory.(*CachingPool).Alloc":       true,
		"github.com/gpuarr/gpuarr/gpuarr.Zeros[...]":                 true,
		"github.com/gpuarr/gpuarr/gcpressure.BeforeAlloc":            true,
		"github.com/gpuarr/gpuarr/internal/cleanups.Collect":         true,
		"github.com/gpuarr/gpuarr/examples/train/linreg.step":        false,
		"github.com/gpuarr/gpuarr/examples/train/linreg.Train.func1": false,
		"main.main":                     false,
		"github.com/other/memory.Alloc": false,
		"runtime.goexit":                false,
	} {
		assert.Equal(t, lib, isLibraryFrame(Frame{Func: name, File: "x.go"}), name)
	}
	assert.False(t, isLibraryFrame(Frame{Func: "github.com/gpuarr/gpuarr/memory.helper", File: "/x/memory/a_test.go"}))
}

//go:noinline
func stackHere() []uintptr {
	var pcs [maxStackDepth]uintptr
	return pcs[:runtime.Callers(1, pcs[:])]
}

// Symbolizing program counter by program counter finds the same frames,
// inlined calls included, as the runtime does for the whole stack.
func TestSymbolizeMatchesCallersFrames(t *testing.T) {
	pcs := stackHere()
	var want []Frame
	fr := runtime.CallersFrames(pcs)
	for {
		f, more := fr.Next()
		want = append(want, Frame{Func: f.Function, File: f.File, Line: f.Line})
		if !more {
			break
		}
	}
	assert.Equal(t, want, frames(pcs))
	assert.Equal(t, stacks.intern(pcs), stacks.intern(append([]uintptr(nil), pcs...)), "one record per stack")
	assert.NotEqual(t, stacks.intern(pcs).id, stacks.intern(pcs[1:]).id)
}

//go:noinline
func allocSiteA(p *CachingPool, s *device.Stream) (*Block, error) { return p.Alloc(s, 4096) }

//go:noinline
func allocSiteB(p *CachingPool, s *device.Stream) (*Block, error) { return p.Alloc(s, 8192) }

// siteKey is what siteCounts sums by.
type siteKey struct {
	fn   string
	kind uint8
	dev  string
}

// siteCounts sums the buckets of allocSiteA and allocSiteB: allocations,
// bytes, and in use; it checks there is one bucket per stack, kind and
// device.
func siteCounts(t *testing.T) map[siteKey][4]uint64 {
	got := map[siteKey][4]uint64{}
	for _, b := range profileBuckets() {
		fr := frames(b.key.stack.pcs)
		if len(fr) == 0 || !strings.HasSuffix(fr[0].Func, ".allocSiteA") && !strings.HasSuffix(fr[0].Func, ".allocSiteB") {
			continue
		}
		k := siteKey{fr[0].Func, b.key.kind, b.key.dev}
		c := got[k]
		ic, ib := b.inuse()
		got[k] = [4]uint64{c[0] + b.allocs.Load(), c[1] + b.allocBytes.Load(), c[2] + ic, c[3] + ib}
		for ob := b.key.stack.buckets.Load(); ob != nil; ob = ob.next.Load() {
			if ob != b {
				assert.False(t, ob.key.kind == b.key.kind && ob.key.dev == b.key.dev, "one bucket per stack, kind and device")
			}
		}
	}
	return got
}

// Goroutines sampling every allocation from two sites on their own
// streams at once: each site gets one bucket per kind and device, whose
// counts are exact, and every free is reported.
func TestProfileConcurrentSamples(t *testing.T) {
	withProfileRate(t, 1)
	dev := defaultDevice(t)
	p := Caching(Direct(dev), CachingOptions{})
	defer p.EmptyCache()
	before := siteCounts(t)
	const workers, rounds = 4, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		s := newStream(t, dev)
		wg.Go(func() {
			for range rounds {
				for _, site := range []func(*CachingPool, *device.Stream) (*Block, error){allocSiteA, allocSiteB} {
					b, err := site(p, s)
					if err == nil {
						err = p.Free(b)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	got := siteCounts(t)
	require.Len(t, got, 2)
	for k, c := range got {
		size := uint64(4096)
		if strings.HasSuffix(k.fn, "B") {
			size = 8192
		}
		b := before[k]
		assert.Equal(t, [4]uint64{workers*rounds + b[0], workers*rounds*size + b[1], 0, 0}, c, k.fn)
	}
}
