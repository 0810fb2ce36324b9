package memory

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// quietTracer is a tracer that records no marks (it is not registered),
// on the counter clock where there is one when tsc, else the monotonic
// clock.
func quietTracer(capacity int, tsc bool) *Tracer {
	return &Tracer{ring: newTraceRing(capacity), clock: newTraceClock(tsc), devices: map[int]string{}}
}

// ringEvent is event k of writer g as ringWriter records it: every field
// derives from (g, k), so a copy mixing two records shows.
func ringEvent(g, k uint64) (ptr, size, stream uint64, dur int64, dev int, stack uint32, note string) {
	ptr = g<<32 | k
	size, stream, dur = ptr*3+1, ptr^0x5555_5555_5555_5555, int64(ptr>>1)
	dev, stack = int(g)-1, uint32(k*7+g)
	if k%5 == 0 {
		note = strconv.FormatUint(ptr, 16)
	}
	return
}

// checkRingEvent checks that e is a whole record of ringEvent and returns
// its writer and number.
func checkRingEvent(t *testing.T, e TraceEvent) (g, k uint64, ok bool) {
	g, k = e.Ptr>>32, e.Ptr&(1<<32-1)
	ptr, size, stream, dur, dev, stack, note := ringEvent(g, k)
	want := TraceEvent{T: e.T, Op: OpAlloc, Level: TraceBlock, Device: dev, Ptr: ptr, Size: size, Stream: stream, Stack: stack, Dur: dur, Note: note}
	if note != "" {
		want.Op, want.Level = OpReclaim, ""
	}
	return g, k, assert.Equal(t, want, e, "a torn event")
}

func ringWriter(t *Tracer, g, n uint64) {
	for k := range n {
		ptr, size, stream, dur, dev, stack, note := ringEvent(g, k)
		op, level := codeAlloc, codeBlock
		if note != "" {
			op, level = codeReclaim, codeNone
		}
		t.add(op, level, dev, ptr, size, stream, stack, dur, note)
	}
}

// Writers fill a small ring many times over while readers copy it. Every
// event a reader returns is whole; a read is a contiguous stretch of each
// writer's events, times nondecreasing, and its dropped count plus its
// events never shrink from one read to the next; at the end the ring holds
// exactly the last capacity events and Dropped counts the rest.
func TestTraceRingConcurrentWritersAndReaders(t *testing.T) {
	for _, tsc := range []bool{true, false} {
		for _, capacity := range []int{1, 7, 64} {
			t.Run("tsc="+strconv.FormatBool(tsc)+"/capacity="+strconv.Itoa(capacity), func(t *testing.T) {
				tr := quietTracer(capacity, tsc)
				const writers = 4
				per := uint64(20000)
				if testing.Short() || raceEnabled {
					per = 3000
				}
				var wg, rg sync.WaitGroup
				var done atomic.Bool
				var reads atomic.Int64
				for range 2 {
					rg.Add(1)
					go func() {
						defer rg.Done()
						var seen uint64
						for !done.Load() {
							f := tr.Snapshot()
							reads.Add(1)
							checkRingRead(t, f.Events, capacity)
							total := f.Dropped + uint64(len(f.Events))
							assert.GreaterOrEqual(t, total, seen, "a later read saw fewer events")
							seen = total
						}
					}()
				}
				for g := range uint64(writers) {
					wg.Add(1)
					go func() {
						defer wg.Done()
						ringWriter(tr, g+1, per)
					}()
				}
				wg.Wait()
				done.Store(true)
				rg.Wait()
				require.Positive(t, reads.Load())

				ev := tr.Events()
				require.Len(t, ev, capacity)
				assert.Equal(t, writers*per-uint64(capacity), tr.Dropped())
				last := checkRingRead(t, ev, capacity)
				for g, k := range last {
					assert.Equal(t, per-1, k, "writer %d's last event is kept", g)
				}
				f := tr.Snapshot()
				assert.Equal(t, tr.Dropped(), f.Dropped)
				assert.Equal(t, capacity, f.Capacity)
				assert.Equal(t, ev, f.Events)
			})
		}
	}
}

// checkRingRead checks one read of ringWriter's events and returns each
// writer's last event number in it.
func checkRingRead(t *testing.T, ev []TraceEvent, capacity int) map[uint64]uint64 {
	assert.LessOrEqual(t, len(ev), capacity)
	last := map[uint64]uint64{}
	for i, e := range ev {
		g, k, ok := checkRingEvent(t, e)
		if !ok {
			return last
		}
		if prev, seen := last[g]; seen {
			assert.Equal(t, prev+1, k, "writer %d's events are contiguous and in order", g)
		}
		last[g] = k
		if i > 0 {
			assert.LessOrEqual(t, ev[i-1].T, e.T, "times are nondecreasing")
		}
	}
	return last
}

// A ring of a capacity that is no power of two keeps exactly capacity
// events as it wraps, and counts the rest as dropped.
func TestTraceRingWraps(t *testing.T) {
	tr := quietTracer(5, true)
	for n := uint64(1); n <= 23; n++ {
		ringWriter(tr, 1, 1) // event (1, 0) each time: count them by time
		tr.add(codeFree, codeBlock, 3, n, n, 0, 0, 0, "")
		ev := tr.Events()
		require.Len(t, ev, min(int(2*n), 5))
		assert.Equal(t, 2*n-min(2*n, 5), tr.Dropped())
		assert.Equal(t, n, ev[len(ev)-1].Ptr, "the newest event is last")
		assert.Equal(t, OpFree, ev[len(ev)-1].Op)
	}
}

// A reader raises a time smaller than its predecessor's (the clock is read
// before the reservation, unordered with it) to the predecessor's.
func TestTraceRingTimesNondecreasing(t *testing.T) {
	r := newTraceRing(8)
	for _, ticks := range []int64{10, 30, 20, 40, 35, 50} {
		r.put(ticks, 1, 1, 0, 0, 0, packCodes(codeAlloc, codeBlock), "")
	}
	ev, dropped := r.read(tickScale{})
	require.Zero(t, dropped)
	var times []int64
	for _, e := range ev {
		times = append(times, e.T)
	}
	assert.Equal(t, []int64{10, 30, 30, 40, 40, 50}, times)
}

// A reader that finds an event rewritten under it keeps only the events
// after it, and counts those before as dropped.
func TestTraceRingReadDropsRewrittenPrefix(t *testing.T) {
	r := newTraceRing(4)
	for k := range uint64(4) {
		r.put(int64(k), k, 0, 0, 0, 0, packCodes(codeAlloc, codeBlock), "")
	}
	// As a reader that took hi = 4 finds it after event 5 was written
	// into event 1's slot and event 4 was reserved: event 0's slot may be
	// in the middle of a rewrite.
	r.next.Store(6)
	r.slots[1].w[1] = 5
	r.slots[1].seq = 6
	ev, dropped := readWindow(r, 4, 4)
	require.Len(t, ev, 2)
	assert.Equal(t, []uint64{2, 3}, []uint64{ev[0].Ptr, ev[1].Ptr})
	assert.Equal(t, uint64(2), dropped)
}

// readWindow is traceRing.read of the events [hi−capacity, hi).
func readWindow(r *traceRing, hi, capacity uint64) ([]TraceEvent, uint64) {
	var ev []TraceEvent
	first := hi - min(hi, capacity)
	names := traceNameTable()
	for i := first; i < hi; i++ {
		var e TraceEvent
		if !r.copyEvent(i, &e, tickScale{}, &names) {
			ev, first = nil, i+1
			continue
		}
		ev = append(ev, e)
	}
	return ev, first
}

// Marks of an op other than the package's keep their name, and notes
// survive the ring's wrapping until their event is dropped.
func TestTraceMarkOtherOpAndNotes(t *testing.T) {
	dev := defaultDevice(t)
	tr := NewTracer(3)
	tr.Wrap(Direct(dev), TraceBlock)
	for i := range 10 {
		TraceMark(dev, "custom_step", uint64(i), time.Duration(i), "note "+strconv.Itoa(i))
	}
	var marks []TraceEvent
	for _, e := range tr.Events() {
		if e.Op != OpGC {
			marks = append(marks, e)
		}
	}
	if len(marks) < 3 {
		t.Skip("Go GC cycles ended during the test and took the ring's places")
	}
	for i, e := range marks {
		n := 7 + i
		assert.Equal(t, TraceEvent{T: e.T, Op: "custom_step", Device: dev.Ordinal(), Size: uint64(n), Dur: int64(n), Note: "note " + strconv.Itoa(n)}, e)
	}
	tr.ring.mu.Lock()
	assert.LessOrEqual(t, len(tr.ring.notes), len(tr.ring.slots), "notes of events a lap old are forgotten")
	tr.ring.mu.Unlock()
}

// Names get codes once, and decode to themselves.
func TestTraceNames(t *testing.T) {
	for i, n := range builtinTraceNames {
		assert.Equal(t, uint16(i), traceCode(n))
	}
	c := traceCode("test_name_" + t.Name())
	assert.Equal(t, c, traceCode("test_name_"+t.Name()))
	assert.Equal(t, "test_name_"+t.Name(), traceNameTable()[c])
	assert.Equal(t, OpAlloc, traceNameTable()[codeAlloc])
	assert.Equal(t, TraceSegment, traceNameTable()[codeSegment])
}

// The times of a trace are nanoseconds since the tracer's start on either
// clock: two events a sleep apart are at least the sleep apart, and no
// further apart than the monotonic clock saw around them.
func TestTraceClock(t *testing.T) {
	for _, tsc := range []bool{true, false} {
		t.Run("tsc="+strconv.FormatBool(tsc), func(t *testing.T) {
			tr := quietTracer(4, tsc)
			before := time.Now()
			tr.add(codeAlloc, codeBlock, 0, 1, 1, 0, 0, 0, "")
			time.Sleep(5 * time.Millisecond)
			tr.add(codeFree, codeBlock, 0, 2, 1, 0, 0, 0, "")
			around := time.Since(before)
			ev := tr.Events()
			require.Len(t, ev, 2)
			d := time.Duration(ev[1].T - ev[0].T)
			const slack = 1e-3 // the calibration's error, generously
			assert.GreaterOrEqual(t, float64(d), float64(5*time.Millisecond)*(1-slack))
			assert.LessOrEqual(t, float64(d), float64(around)*(1+slack)+float64(time.Microsecond))
			assert.LessOrEqual(t, ev[0].T, int64(around))
			assert.Equal(t, ev, tr.Events(), "every read converts times alike")
		})
	}
}

//go:noinline
func tracedPair(r Resource, s *device.Stream) {
	b, _ := r.Alloc(s, 4096)
	_ = r.Free(b)
}

// A traced alloc+free of a cached block from a stack seen before
// allocates nothing.
func TestTracedAllocFreeAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	dev := defaultDevice(t)
	if _, on := dev.Checking(); on {
		t.Skip("the host backend's checking mode allocates its own bookkeeping per block")
	}
	r, tr := Trace(Caching(Direct(dev), CachingOptions{}), 1<<10)
	s := newStream(t, dev)
	tracedPair(r, s)
	assert.Zero(t, testing.AllocsPerRun(100, func() { tracedPair(r, s) }))
	assert.GreaterOrEqual(t, len(allocatorEvents(tr.Events())), 200)
}

// Goroutines, each on its own stream, allocate and free through a traced
// caching pool while a reader writes the trace: each stream's events read
// as alternating allocs and frees of the same block, and the JSON reads
// back as the snapshot.
func TestTracedPoolConcurrent(t *testing.T) {
	dev := defaultDevice(t)
	pool := Caching(Direct(dev), CachingOptions{})
	tr := NewTracer(1 << 12)
	r := tr.Wrap(pool, TraceBlock)
	const workers = 4
	iters := 2000
	if testing.Short() || raceEnabled {
		iters = 300
	}
	streams := make([]*device.Stream, workers)
	for i := range streams {
		streams[i] = newStream(t, dev)
	}
	var wg sync.WaitGroup
	var done atomic.Bool
	rd := make(chan struct{})
	go func() {
		defer close(rd)
		for !done.Load() {
			var buf bytes.Buffer
			assert.NoError(t, tr.WriteJSON(&buf))
			f, err := ReadTrace(&buf)
			if assert.NoError(t, err) {
				checkStreamPairs(t, f.Events, false)
			}
		}
	}()
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range iters {
				b, err := r.Alloc(streams[i], uint64(512*(1+k%4)))
				if !assert.NoError(t, err) {
					return
				}
				assert.NoError(t, r.Free(b))
			}
		}()
	}
	wg.Wait()
	done.Store(true)
	<-rd
	// A GC cycle's mark may still be recorded while the snapshot reads:
	// the snapshot ends at some count of events between before and after,
	// and each mark recorded during the read may push one event out of its
	// front.
	before := tr.ring.next.Load()
	f := tr.Snapshot()
	after := tr.ring.next.Load()
	assert.GreaterOrEqual(t, before, uint64(2*workers*iters))
	seen := f.Dropped + uint64(len(f.Events))
	assert.True(t, before <= seen && seen <= after, "dropped %d + kept %d = %d, not within the %d … %d events recorded", f.Dropped, len(f.Events), seen, before, after)
	assert.LessOrEqual(t, len(f.Events), 1<<12)
	assert.GreaterOrEqual(t, len(f.Events), int(min(before, 1<<12)-(after-before)), "events kept")
	checkStreamPairs(t, f.Events, true)
	require.NoError(t, pool.EmptyCache())
}

// checkStreamPairs checks that each stream's block events alternate
// alloc, free of the same block (the first may be a free whose alloc was
// dropped); with stacks, that every alloc names one.
func checkStreamPairs(t *testing.T, ev []TraceEvent, stacks bool) {
	open := map[uint64]*TraceEvent{}
	started := map[uint64]bool{}
	for i := range ev {
		e := &ev[i]
		if e.Level != TraceBlock {
			continue
		}
		switch e.Op {
		case OpAlloc:
			assert.Nil(t, open[e.Stream], "stream %#x allocates twice without a free", e.Stream)
			open[e.Stream] = e
			if stacks {
				assert.NotZero(t, e.Stack)
			}
		case OpFree:
			a := open[e.Stream]
			if a == nil {
				assert.False(t, started[e.Stream], "stream %#x frees without an alloc", e.Stream)
			} else {
				assert.Equal(t, a.Ptr, e.Ptr)
				assert.Equal(t, a.Size, e.Size)
				assert.LessOrEqual(t, a.T, e.T)
			}
			open[e.Stream] = nil
		}
		started[e.Stream] = true
	}
}

// A writer whose slot's previous event is reserved but not yet committed
// waits for that commit before writing the slot.
func TestTraceRingWriterWaitsForSlotsPreviousEvent(t *testing.T) {
	r := newTraceRing(1)
	r.next.Store(1) // event 0 reserved, its writer not done
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.put(7, 1, 2, 3, 0, 0, packCodes(codeFree, codeBlock), "")
	}()
	for range 1000 {
		runtime.Gosched()
	}
	select {
	case <-done:
		t.Fatal("event 1 was written over event 0 before event 0 was committed")
	default:
	}
	assert.Zero(t, atomic.LoadUint64(&r.slots[0].w[1]), "event 1's words are not written yet")
	commitSlot(&r.slots[0].seq, 1) // event 0's writer commits
	<-done
	ev, dropped := r.read(tickScale{})
	require.Len(t, ev, 1)
	assert.Equal(t, uint64(1), dropped)
	assert.Equal(t, TraceEvent{T: 7, Op: OpFree, Level: TraceBlock, Ptr: 1, Size: 2, Stream: 3}, ev[0])
}
