package memory

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// allocatorEvents leaves out marks (events without a level).
func allocatorEvents(ev []TraceEvent) []TraceEvent {
	var out []TraceEvent
	for _, e := range ev {
		if e.Level != "" {
			out = append(out, e)
		}
	}
	return out
}

//go:noinline
func traceAllocHere(t *testing.T, r Resource, s *device.Stream) *Block {
	b, err := r.Alloc(s, 5000)
	require.NoError(t, err)
	return b
}

// Each allocation carries the id of its stack; the file names each stack
// once, innermost frame first, the allocator's own frames left out.
func TestTraceRecordsStacks(t *testing.T) {
	dev := defaultDevice(t)
	tr := NewTracer(64)
	r := tr.Wrap(Caching(tr.Wrap(Direct(dev), TraceSegment), CachingOptions{}), TraceBlock)
	s := newStream(t, dev)
	a := traceAllocHere(t, r, s)
	b := traceAllocHere(t, r, s)
	require.NoError(t, r.Free(a))
	require.NoError(t, r.Free(b))

	var buf bytes.Buffer
	require.NoError(t, tr.WriteJSON(&buf))
	f, err := ReadTrace(&buf)
	require.NoError(t, err)
	assert.Equal(t, dev.String(), f.Devices[dev.Ordinal()])
	var allocs []TraceEvent
	for _, e := range f.Events {
		if e.Op == OpAlloc && e.Level == TraceBlock {
			allocs = append(allocs, e)
		}
		if e.Op == OpFree {
			assert.Zero(t, e.Stack, "frees carry no stack")
		}
	}
	require.Len(t, allocs, 2)
	require.NotZero(t, allocs[0].Stack)
	st := f.Stacks[allocs[0].Stack]
	require.NotEmpty(t, st)
	assert.True(t, strings.HasSuffix(st[0].Func, "memory.traceAllocHere"), "innermost frame %v", st[0])
	assert.True(t, strings.HasSuffix(st[1].Func, "memory.TestTraceRecordsStacks"), "its caller %v", st[1])
	assert.Equal(t, uint64(s.Handle()), allocs[0].Stream)
	assert.Equal(t, uint64(a.Capacity()), allocs[0].Size)
}

// Marks reach the tracers of their device (every tracer for a
// process-wide mark, device -1) and no other.
func TestTraceMark(t *testing.T) {
	dev := defaultDevice(t)
	tr := NewTracer(16)
	tr.Wrap(Direct(dev), TraceBlock)
	require.True(t, Tracing())
	TraceMark(dev, OpReclaim, 100, time.Millisecond, "level 1 (collect)")
	TraceMark(nil, OpEagerGC, 200, 2*time.Millisecond, "in the background at pressure 0.91")
	other, err := device.BackendDevices(dev.Backend())
	require.NoError(t, err)
	if len(other) > 1 {
		TraceMark(other[1], OpReclaim, 1, 0, "another device")
	}
	var marks []TraceEvent
	for _, e := range tr.Events() {
		if e.Op != OpGC {
			marks = append(marks, e)
		}
	}
	require.Len(t, marks, 2)
	assert.Equal(t, TraceEvent{T: marks[0].T, Op: OpReclaim, Device: dev.Ordinal(), Size: 100, Dur: int64(time.Millisecond), Note: "level 1 (collect)"}, marks[0])
	assert.Equal(t, -1, marks[1].Device)
	assert.Equal(t, OpEagerGC, marks[1].Op)
}

// While a tracer is alive, the end of each Go GC cycle is marked.
func TestTraceMarksGCCycles(t *testing.T) {
	tr := NewTracer(1024)
	found := false
	// The mark is recorded by a cleanup that runs after the cycle, on
	// another goroutine: collect until one shows up.
	for i := 0; i < 200 && !found; i++ {
		runtime.GC()
		runtime.Gosched()
		for _, e := range tr.Events() {
			if e.Op == OpGC {
				found = true
				assert.Equal(t, -1, e.Device)
				assert.True(t, strings.HasPrefix(e.Note, "cycle "), e.Note)
			}
		}
		if !found {
			time.Sleep(time.Millisecond)
		}
	}
	assert.True(t, found, "a gc mark after 200 collections")
}

func TestReadTraceRefusesOtherJSON(t *testing.T) {
	_, err := ReadTrace(strings.NewReader(`{"traceEvents": []}`))
	assert.ErrorContains(t, err, "not a gpuarr memory trace")
	_, err = ReadTrace(strings.NewReader(`{`))
	assert.Error(t, err)
}
