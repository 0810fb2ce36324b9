package memory

import (
	"cmp"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// The treap against a sorted slice.
func TestIndexMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var x index
	var model []*Block
	byKey := func(a, b *Block) int {
		if c := cmp.Compare(a.size, b.size); c != 0 {
			return c
		}
		return cmp.Compare(a.ptr, b.ptr)
	}
	next := device.Ptr(1 << 20)
	for step := range 20000 {
		switch {
		case len(model) == 0 || rng.IntN(3) > 0:
			b := &Block{ptr: next, size: uint64(1+rng.IntN(64)) * 512 << rng.IntN(12)}
			next += 1 << 20
			x.insert(b)
			i, _ := slices.BinarySearchFunc(model, b, byKey)
			model = slices.Insert(model, i, b)
		default:
			i := rng.IntN(len(model))
			x.remove(model[i])
			model = slices.Delete(model, i, i+1)
		}
		if step%100 == 0 {
			var got []*Block
			x.each(func(b *Block) bool { got = append(got, b); return true })
			require.Equal(t, model, got)
		}
		size := uint64(rng.IntN(70)) * 512 << rng.IntN(13)
		i, _ := slices.BinarySearchFunc(model, &Block{size: size}, byKey)
		var want *Block
		if i < len(model) {
			want = model[i]
		}
		require.Same(t, want, x.lowerBound(size))
		require.Equal(t, len(model), x.n)
		if len(model) > 0 {
			require.Same(t, model[len(model)-1], x.largest())
		}
	}
}

func TestSmallSegmentsGrow(t *testing.T) {
	for _, tc := range []struct{ reserved, seg uint64 }{
		{0, 2 << 20}, {14 << 20, 2 << 20}, {16 << 20, 2 << 20}, {32 << 20, 4 << 20},
		{100 << 20, 12 << 20}, {256 << 20, 32 << 20}, {16 << 30, 32 << 20},
	} {
		require.Equal(t, tc.seg, smallSegmentSize(tc.reserved), "after %d", tc.reserved)
	}
}

func TestMidSegmentsGrowWithThePool(t *testing.T) {
	const base = 16 << 20 // two 8 MB batches
	for _, tc := range []struct{ reserved, seg uint64 }{
		{0, base}, {100 << 20, base}, {128 << 20, base}, {200 << 20, base},
		{256 << 20, 32 << 20}, {1200 << 20, 144 << 20}, {2 << 30, 256 << 20}, {64 << 30, 256 << 20},
	} {
		require.Equal(t, tc.seg, midSegmentSize(base, tc.reserved), "after %d", tc.reserved)
	}
	require.Equal(t, uint64(18<<20), midSegmentSize(18<<20, 100<<20), "never less than the request's own segment")
	require.Equal(t, uint64(252<<20), midSegmentSize(18<<20, 4<<30), "a multiple of it")
}

func TestSizeClasses(t *testing.T) {
	for _, tc := range []struct{ n, round, seg uint64 }{
		{0, 512, 2 << 20},
		{1, 512, 2 << 20},
		{512, 512, 2 << 20},
		{513, 1024, 2 << 20},
		{1 << 20, 1 << 20, 2 << 20},
		{1<<20 + 1, 1<<20 + 512, 20 << 20},
		{10<<20 - 513, 10<<20 - 512, 20 << 20},
		{3 << 20, 3 << 20, 18 << 20},       // six of them
		{8192000, 8192000, 16 << 20},       // two 2048×1000 float32 batches
		{7<<20 + 1, 7<<20 + 512, 16 << 20}, // two, rounded up to 2 MiB
		{10<<20 - 1, 10 << 20, 10 << 20},
		{10 << 20, 10 << 20, 10 << 20},
		{21<<20 + 5, 21<<20 + 512, 22 << 20},
	} {
		require.Equal(t, tc.round, roundSize(tc.n), "round %d", tc.n)
		require.Equal(t, tc.seg, segmentSize(roundSize(tc.n)), "segment for %d", tc.n)
	}
}

// Peaks from sharded counters are exact with one goroutine, whatever the
// order in which streams allocate.
func TestPeaksExactSingleGoroutine(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var pk peaks
	shards := make([]*streamCache, 5)
	for i := range shards {
		shards[i] = new(streamCache)
	}
	cur := make([][]uint64, len(shards))
	var total, count, peakB, peakC, pending, peakActB uint64
	var pend []uint64
	for range 20000 {
		i := rng.IntN(len(shards))
		s := &shards[i].sh
		switch {
		case rng.IntN(20) == 0:
			n := uint64(1+rng.IntN(8)) * 512
			pending += n
			pend = append(pend, n)
			pk.addPending(shards, n)
		case rng.IntN(20) == 0 && len(pend) > 0:
			n := pend[0]
			pend = pend[1:]
			pending -= n
			pk.subPending(n)
		case len(cur[i]) > 0 && rng.IntN(2) == 0:
			n := cur[i][len(cur[i])-1]
			cur[i] = cur[i][:len(cur[i])-1]
			s.sub(n)
			total -= n
			count--
		default:
			n := uint64(1+rng.IntN(64)) * 512
			cur[i] = append(cur[i], n)
			s.add(n)
			if s.over() {
				pk.recompute(shards, shards[i])
			}
			total += n
			count++
		}
		peakB, peakC = max(peakB, total), max(peakC, count)
		peakActB = max(peakActB, total+pending)
		ab, ac, actB, _ := pk.read(shards)
		require.Equal(t, Stat{total, peakB}, ab)
		require.Equal(t, Stat{count, peakC}, ac)
		require.Equal(t, Stat{total + pending, peakActB}, actB)
	}
}

// Phased use of two streams: exact while uncontended (a's bound drops so
// that a later overlap is seen); after contention, bounds stay at each
// stream's maximum and recomputes stop.
func TestPeaksRelaxUnderContention(t *testing.T) {
	var pk peaks
	a, b := new(streamCache), new(streamCache)
	all := []*streamCache{a, b}
	step := func(c *streamCache, n int64) {
		c.mu.Lock()
		if n > 0 {
			c.sh.add(uint64(n))
		} else {
			c.sh.sub(uint64(-n))
		}
		over := c.sh.over()
		c.mu.Unlock()
		if over {
			pk.recompute(all, c)
		}
	}
	step(a, 10)
	step(a, -10)
	step(b, 10)
	require.Equal(t, uint64(0), a.sh.hiBytes, "exact mode takes a's headroom for b")
	step(a, 10) // overlap: a new peak of 20, seen
	ab, _, _, _ := pk.read(all)
	require.Equal(t, uint64(20), ab.Peak)

	// Contention: b's lock is held while a recomputes.
	b.mu.Lock()
	done := make(chan struct{})
	go func() {
		step(a, 10) // a's new maximum: recompute
		close(done)
	}()
	waitBlockedInSum(t) // the recompute found b's lock held and waits for it
	b.mu.Unlock()
	<-done
	require.True(t, pk.relaxed)
	step(a, -20)
	step(b, -10)
	pk.recompute(all, nil)
	require.Equal(t, uint64(20), a.sh.hiBytes, "relaxed: a keeps its maximum")
	require.Equal(t, uint64(10), b.sh.hiBytes)
}

// A pool that grows to hundreds of MiB of mid-size blocks asks upstream
// for a few big segments, not one small segment per couple of blocks.
func TestGrowingPoolObtainsFewerMidSegments(t *testing.T) {
	dev := defaultDevice(t)
	s := newStream(t, dev)
	pool := Caching(Direct(dev), CachingOptions{})
	const size, n = 2 << 20, 256 // 512 MiB in 2 MiB blocks; base segments of 20 MiB hold 10
	var blocks []*Block
	for range n {
		b, err := pool.Alloc(s, size)
		require.NoError(t, err)
		blocks = append(blocks, b)
	}
	st := pool.Stats()
	// Base segments alone would be 26. Growth starts once large segments
	// reserve 16 base segments (320 MiB): 16 of 20 MiB, then 40 MiB ones.
	assert.LessOrEqual(t, st.SegmentsObtained, uint64(21), "segments obtained for %d blocks", n)
	assert.GreaterOrEqual(t, st.ReservedBytes.Current, uint64(n*size))
	for _, b := range blocks {
		require.NoError(t, pool.Free(b))
	}
	require.NoError(t, pool.checkInvariants())
	require.NoError(t, pool.EmptyCache())
	assert.Zero(t, pool.Stats().ReservedBytes.Current)
}

// waitBlockedInSum returns once a goroutine waits for a stream's lock in
// sum (its TryLock failed), as its stack shows: waiting only for the peaks
// lock to be taken left a window in which b could be unlocked before sum
// tried it.
func waitBlockedInSum(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "memory.sum(") && strings.Contains(g, "Mutex).lockSlow") {
				return
			}
		}
		runtime.Gosched()
	}
	t.Fatal("no goroutine came to wait for a stream's lock in sum")
}
