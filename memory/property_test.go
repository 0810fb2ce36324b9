package memory

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

// The property test drives caching pools on up to two devices, four streams
// each, with random allocations, frees, RecordUse, trims and stream
// synchronizations, and after every step checks that:
//
//   - no two live blocks overlap, and each still holds the pattern its
//     owner wrote (read back in the owner's stream order when it is freed:
//     a block handed out while another stream could still write it shows
//     up here, especially with GPUARR_HOST_CHECK=1's delays and poison);
//   - the pool's structure is consistent (checkInvariants: every byte of
//     every segment is in exactly one block, in exactly one place);
//   - reserved = active + cached, and reserved is what the Limit counts;
//   - allocated bytes and blocks, their peaks and the OOM count match a
//     model kept by the test.

// propOp is one step.
type propOp struct {
	kind   opKind
	dev    int
	stream int
	other  int    // RecordUse's stream
	size   uint64 // Alloc's request, Trim's keep
	pick   int    // which live block
}

type opKind uint8

const (
	opAlloc opKind = iota
	opFree
	opRecordUse
	opTrim
	opEmpty
	opSync
)

const (
	propStreams = 4
	propLimit   = 64 << 20 // per device: large requests run into it
)

// opFromBytes decodes 5 bytes into a step, so the fuzzer's inputs and the
// random generator share one shape.
func opFromBytes(b []byte) propOp {
	k := b[0] % 20
	var o propOp
	switch {
	case k < 10:
		o.kind = opAlloc
	case k < 17:
		o.kind = opFree
	case k < 18:
		o.kind = opRecordUse
	case k < 19:
		o.kind = opSync
	default:
		if b[1]&1 == 0 {
			o.kind = opTrim
		} else {
			o.kind = opEmpty
		}
	}
	o.dev = int(b[0]/20) & 1
	o.stream = int(b[1]>>1) % propStreams
	o.other = int(b[1]>>3) % propStreams
	v := uint64(binary.LittleEndian.Uint16(b[2:4]))
	switch b[4] % 8 {
	case 0, 1, 2, 3: // small: up to 4 KiB
		o.size = v % 4097
	case 4, 5: // small: up to 1 MiB
		o.size = v * 16 % (1<<20 + 1)
	case 6: // large
		o.size = 1<<20 + v*180
	default: // large, may exceed what is left under the limit
		o.size = 8<<20 + v*600
	}
	o.pick = int(binary.LittleEndian.Uint16(b[2:4]))
	if o.kind == opTrim {
		o.size = v * 1024
	}
	return o
}

type liveBlock struct {
	dev     int
	b       *Block
	ptr     device.Ptr
	cap     uint64
	pattern uint32
}

type propModel struct {
	bytes, blocks, peakBytes, peakBlocks, ooms uint64
}

type propRun struct {
	t       testing.TB
	devs    []*device.Device
	pools   []*CachingPool
	limits  []*limited
	streams [][]*device.Stream
	live    []liveBlock
	model   []propModel
	pattern uint32
	kernels []*testkernels.Set
}

// spinNanos is how late RecordUse's write lands.
const spinNanos = 2_000_000

func newPropRun(t testing.TB) *propRun {
	devs, err := device.Devices()
	require.NoError(t, err)
	if len(devs) > 2 {
		devs = devs[:2]
	}
	r := &propRun{t: t, devs: devs, model: make([]propModel, len(devs))}
	for _, d := range devs {
		ks, err := testkernels.Load(d)
		require.NoError(t, err)
		r.kernels = append(r.kernels, ks)
		lim := Limit(Direct(d), propLimit).(*limited)
		r.limits = append(r.limits, lim)
		// Small front caches, so spills and flushes happen often.
		r.pools = append(r.pools, Caching(lim, CachingOptions{FrontBlocks: 8, FrontBytes: 16 << 20, MaxSplitSize: 24 << 20}))
		var ss []*device.Stream
		for range propStreams {
			s, err := d.NewStream()
			require.NoError(t, err)
			ss = append(ss, s)
		}
		r.streams = append(r.streams, ss)
	}
	t.Cleanup(r.close)
	return r
}

func (r *propRun) close() {
	for len(r.live) > 0 {
		r.free(0)
	}
	for i, p := range r.pools {
		if err := p.EmptyCache(); err != nil {
			r.t.Errorf("EmptyCache: %v", err)
		}
		st := p.Stats()
		if st.ReservedBytes.Current != 0 || r.limits[i].Used() != 0 {
			r.t.Errorf("after EmptyCache with nothing allocated: reserved %d, limit counts %d", st.ReservedBytes.Current, r.limits[i].Used())
		}
		if st.SegmentsObtained != st.SegmentsReleased {
			r.t.Errorf("segments obtained %d, released %d", st.SegmentsObtained, st.SegmentsReleased)
		}
	}
	for _, ss := range r.streams {
		for _, s := range ss {
			_ = s.Close()
		}
	}
}

func (r *propRun) free(i int) {
	t := r.t
	lb := r.live[i]
	// Read back the first and last word in the owner's order.
	var w [1]uint32
	s := lb.b.Stream()
	for _, off := range []uint64{0, lb.cap - 4} {
		require.NoError(t, device.Download(s, w[:], lb.ptr.Add(off)))
		if w[0] != lb.pattern {
			t.Fatalf("block %v (dev %d) word at +%d is %#x, want %#x: someone else wrote it", lb.ptr, lb.dev, off, w[0], lb.pattern)
		}
	}
	require.NoError(t, r.pools[lb.dev].Free(lb.b))
	m := &r.model[lb.dev]
	m.bytes -= lb.cap
	m.blocks--
	r.live = slices.Delete(r.live, i, i+1)
}

func (r *propRun) step(o propOp) {
	t := r.t
	d := o.dev % len(r.devs)
	p := r.pools[d]
	s := r.streams[d][o.stream]
	switch o.kind {
	case opAlloc:
		b, err := p.Alloc(s, o.size)
		if err != nil {
			require.ErrorIs(t, err, device.ErrOutOfMemory)
			var oom *OutOfMemoryError
			require.True(t, errors.As(err, &oom), "OOM error type %T", err)
			r.model[d].ooms++
			break
		}
		require.GreaterOrEqual(t, b.Capacity(), o.size)
		require.Equal(t, o.size, b.Size())
		require.Equal(t, s, b.Stream())
		r.pattern++
		require.NoError(t, s.Memset32(b.Ptr(), r.pattern, b.Capacity()/4))
		r.live = append(r.live, liveBlock{dev: d, b: b, ptr: b.Ptr(), cap: b.Capacity(), pattern: r.pattern})
		m := &r.model[d]
		m.bytes += b.Capacity()
		m.blocks++
		m.peakBytes, m.peakBlocks = max(m.peakBytes, m.bytes), max(m.peakBlocks, m.blocks)
	case opFree:
		if len(r.live) > 0 {
			r.free(o.pick % len(r.live))
		}
	case opRecordUse:
		if len(r.live) == 0 {
			break
		}
		lb := r.live[o.pick%len(r.live)]
		other := r.streams[lb.dev][o.other]
		require.NoError(t, r.pools[lb.dev].RecordUse(lb.b, other))
		// Another stream writes the block too (the same pattern), late: if
		// the block were reused before this write lands, its next owner
		// would see it.
		require.NoError(t, other.Launch(r.kernels[lb.dev].SpinWrite, device.LaunchConfig{},
			lb.ptr, lb.pattern, uint64(spinNanos)))
	case opTrim:
		require.NoError(t, p.Trim(o.size))
	case opEmpty:
		require.NoError(t, p.EmptyCache())
	case opSync:
		require.NoError(t, s.Synchronize())
	}
	r.check()
}

func (r *propRun) check() {
	t := r.t
	for d, p := range r.pools {
		if err := p.checkInvariants(); err != nil {
			t.Fatalf("device %d: %v", d, err)
		}
		st := p.Stats()
		m := r.model[d]
		require.Equal(t, Stat{m.bytes, m.peakBytes}, st.AllocatedBytes, "allocated bytes")
		require.Equal(t, Stat{m.blocks, m.peakBlocks}, st.Allocations, "allocations")
		require.Equal(t, m.ooms, st.OOMs, "OOMs")
		require.Equal(t, st.ReservedBytes.Current, st.ActiveBytes.Current+st.CachedBytes, "reserved = active + cached")
		require.GreaterOrEqual(t, st.ActiveBytes.Current, st.AllocatedBytes.Current)
		require.Equal(t, r.limits[d].Used(), st.ReservedBytes.Current, "reserved vs the limit's count")
		require.LessOrEqual(t, st.ReservedBytes.Peak, uint64(propLimit))
		require.Equal(t, st.SegmentsObtained-st.SegmentsReleased, st.Segments.Current)
	}
	// No two live blocks of a device overlap.
	byPtr := slices.Clone(r.live)
	slices.SortFunc(byPtr, func(a, b liveBlock) int {
		if a.dev != b.dev {
			return a.dev - b.dev
		}
		return int(int64(a.ptr - b.ptr))
	})
	for i := 1; i < len(byPtr); i++ {
		a, b := byPtr[i-1], byPtr[i]
		if a.dev == b.dev && a.ptr.Add(a.cap) > b.ptr {
			t.Fatalf("live blocks overlap on device %d: %v+%d and %v", a.dev, a.ptr, a.cap, b.ptr)
		}
	}
}

func TestCachingPoolProperty(t *testing.T) {
	steps := 1500
	if testing.Short() {
		steps = 300
	}
	for seed := range uint64(3) {
		t.Run("", func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0x9e3779b9))
			r := newPropRun(t)
			var buf [5]byte
			for range steps {
				binary.LittleEndian.PutUint32(buf[:4], rng.Uint32())
				buf[4] = byte(rng.Uint32())
				r.step(opFromBytes(buf[:]))
			}
		})
	}
}

func FuzzCachingPool(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 11, 0, 0, 0, 0})
	f.Add([]byte{1, 2, 3, 4, 5, 17, 6, 7, 8, 9, 12, 0, 255, 255, 7, 11, 0, 0, 0, 0, 19, 1, 0, 0, 0})
	f.Add(slices.Repeat([]byte{3, 0x15, 0x40, 0, 6, 11, 0x0b, 0x40, 0, 6, 17, 0x0b, 0, 0, 0}, 6))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 5*400 {
			data = data[:5*400]
		}
		r := newPropRun(t)
		for i := 0; i+5 <= len(data); i += 5 {
			r.step(opFromBytes(data[i : i+5]))
		}
	})
}
