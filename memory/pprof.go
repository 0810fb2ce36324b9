package memory

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/google/pprof/profile"
)

// Writing the GPU memory profile in pprof's format.

// Pseudo-frames of the profile. Each sample's outermost frame names its
// kind of memory, so a flame graph shows device, managed and pinned memory
// side by side (the "memory" label says the same for -tagfocus); memory a
// caching pool holds that no block handed out does sits under
// CachedFrame.
const (
	CachedFrame = "gpuarr: cached in pool (not held by any array)"
	rootPrefix  = "gpuarr: "
)

// rootFrame is the outermost pseudo-frame of a kind: "gpuarr: device memory".
func rootFrame(kind string) string { return rootPrefix + kind + " memory" }

// pools are the caching pools alive, for the cached memory they hold.
var pools struct {
	mu sync.Mutex
	ps []weak.Pointer[CachingPool]
}

func registerPool(p *CachingPool) {
	pools.mu.Lock()
	defer pools.mu.Unlock()
	live := pools.ps[:0]
	for _, w := range pools.ps {
		if w.Value() != nil {
			live = append(live, w)
		}
	}
	clear(pools.ps[len(live):])
	pools.ps = append(live, weak.Make(p))
}

func livePools() []*CachingPool {
	pools.mu.Lock()
	defer pools.mu.Unlock()
	var out []*CachingPool
	for _, w := range pools.ps {
		if p := w.Value(); p != nil {
			out = append(out, p)
		}
	}
	return out
}

// scaleSample turns sampled counts into estimates: each sample of average
// size avg stands for 1/(1 − exp(−avg/rate)) allocations, the inverse of
// its chance of being sampled.
func scaleSample(count, bytes uint64, rate int64) (int64, int64) {
	if count == 0 || bytes == 0 || rate <= 1 {
		return int64(count), int64(bytes)
	}
	avg := float64(bytes) / float64(count)
	s := 1 / (1 - math.Exp(-avg/float64(rate)))
	return int64(float64(count) * s), int64(float64(bytes) * s)
}

// Profile builds the GPU memory profile now: sample types alloc_objects,
// alloc_space, inuse_objects and inuse_space (the default), as Go's heap
// profile has, from the sampled allocations of every resource (estimates:
// see SetProfileRate), plus one exact sample per caching pool for the
// memory it holds but no block handed out does (CachedFrame). Every
// sample has the labels "memory" (MemoryDevice, MemoryManaged or
// MemoryPinned) and "device" ("cuda:0"). The leading frames of gpuarr's
// own packages are left out of each stack, so the innermost frame is the
// user's function that allocated. With the profile off (rate 0) only the
// cached memory appears.
func Profile() *profile.Profile {
	rate := loadProfileRate()
	b := newProfileBuilder(rate)
	for _, bk := range profileBuckets() {
		ac, ab := bk.allocs.Load(), bk.allocBytes.Load()
		ic, ib := bk.inuse()
		aco, abo := scaleSample(ac, ab, rate)
		ico, ibo := scaleSample(ic, ib, rate)
		if aco == 0 && abo == 0 {
			continue
		}
		kind := kindNames[bk.key.kind]
		b.add(symbolize(bk.key.stack.pcs), kind, bk.key.dev, []int64{aco, abo, ico, ibo})
	}
	for _, p := range livePools() {
		st := p.Stats()
		cached := st.ReservedBytes.Current - min(st.ReservedBytes.Current, st.AllocatedBytes.Current)
		if cached == 0 {
			continue
		}
		pseudo := []frameGroup{{frames: []Frame{{Func: CachedFrame}}}}
		b.add(pseudo, MemoryDevice, deviceLabel(p.dev), []int64{0, 0, int64(st.FreeBlocks), int64(cached)})
	}
	return b.p
}

// WriteProfile writes Profile to w in pprof's format (gzipped protocol
// buffer), for `go tool pprof`.
func WriteProfile(w io.Writer) error { return Profile().Write(w) }

// WriteProfileFile writes Profile to the named file.
func WriteProfileFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("memory.WriteProfileFile: %w", err)
	}
	if err := WriteProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("memory.WriteProfileFile: %s: %w", path, err)
	}
	return f.Close()
}

type profileBuilder struct {
	p     *profile.Profile
	m     *profile.Mapping
	locs  map[string]*profile.Location // by pc, or by name for pseudo-frames
	funcs map[Frame]*profile.Function
}

func newProfileBuilder(rate int64) *profileBuilder {
	exe, _ := os.Executable()
	m := &profile.Mapping{ID: 1, File: exe, HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"},
			{Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"},
		},
		DefaultSampleType: "inuse_space",
		PeriodType:        &profile.ValueType{Type: "space", Unit: "bytes"},
		Period:            rate,
		TimeNanos:         time.Now().UnixNano(),
		Mapping:           []*profile.Mapping{m},
		Comments:          []string{fmt.Sprintf("gpuarr GPU memory profile; sampling rate %d bytes (%s)", rate, EnvProfileRate)},
	}
	return &profileBuilder{p: p, m: m, locs: map[string]*profile.Location{}, funcs: map[Frame]*profile.Function{}}
}

func (b *profileBuilder) function(f Frame) *profile.Function {
	key := Frame{Func: f.Func, File: f.File}
	if fn := b.funcs[key]; fn != nil {
		return fn
	}
	fn := &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: f.Func, SystemName: f.Func, Filename: f.File}
	b.p.Function = append(b.p.Function, fn)
	b.funcs[key] = fn
	return fn
}

// location is the location of one program counter's frames (a pseudo-frame
// when pc is 0).
func (b *profileBuilder) location(g frameGroup) *profile.Location {
	key := fmt.Sprintf("%x", g.pc)
	if g.pc == 0 {
		key = "pseudo:" + g.frames[0].Func
	}
	if l := b.locs[key]; l != nil {
		return l
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: b.m, Address: uint64(g.pc)}
	for _, f := range g.frames {
		l.Line = append(l.Line, profile.Line{Function: b.function(f), Line: int64(f.Line)})
	}
	b.p.Location = append(b.p.Location, l)
	b.locs[key] = l
	return l
}

func (b *profileBuilder) add(groups []frameGroup, kind, dev string, values []int64) {
	s := &profile.Sample{Value: values, Label: map[string][]string{"memory": {kind}, "device": {dev}}}
	for _, g := range groups {
		s.Location = append(s.Location, b.location(g))
	}
	s.Location = append(s.Location, b.location(frameGroup{frames: []Frame{{Func: rootFrame(kind)}}}))
	b.p.Sample = append(b.p.Sample, s)
}

// Holder is one stack's share of the sampled memory in use, as an
// out-of-memory report names it.
type Holder struct {
	Bytes  uint64  // estimated bytes in use (scaled samples)
	Blocks uint64  // estimated blocks
	Stack  []Frame // innermost first, gpuarr's own leading frames left out
}

// oomHolders is the number of holders an out-of-memory report names.
const oomHolders = 5

// topHolders returns the n stacks holding the most sampled device memory
// of dev (deviceLabel), most first; none when the profile is off.
func topHolders(dev string, n int) []Holder {
	rate := loadProfileRate()
	if rate <= 0 {
		return nil
	}
	var hs []Holder
	var recs []*stackRec
	for _, bk := range profileBuckets() {
		if bk.key.kind != kindDevice || bk.key.dev != dev {
			continue
		}
		ic, ib := bk.inuse()
		c, by := scaleSample(ic, ib, rate)
		if by <= 0 {
			continue
		}
		hs = append(hs, Holder{Bytes: uint64(by), Blocks: uint64(c)})
		recs = append(recs, bk.key.stack)
	}
	idx := make([]int, len(hs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(hs[b].Bytes, hs[a].Bytes) })
	var out []Holder
	for _, i := range idx[:min(n, len(idx))] {
		h := hs[i]
		h.Stack = frames(recs[i].pcs)
		out = append(out, h)
	}
	return out
}

// writeHolders renders an out-of-memory report's holders.
func writeHolders(b *strings.Builder, hs []Holder) {
	if len(hs) == 0 {
		return
	}
	fmt.Fprintf(b, "  top holders (sampled at %s, %s):\n", FormatBytes(uint64(max(loadProfileRate(), 0))), EnvProfileRate)
	for _, h := range hs {
		var parts []string
		for _, f := range h.Stack[:min(3, len(h.Stack))] {
			parts = append(parts, f.String())
		}
		fmt.Fprintf(b, "    %s in %d blocks: %s\n", FormatBytes(h.Bytes), h.Blocks, strings.Join(parts, " ← "))
	}
}
