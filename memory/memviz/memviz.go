package memviz

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/gpuarr/gpuarr/memory"
)

//go:embed page.html
var page string

// dataMarker is where the page's data goes.
const dataMarker = "/*GPUARR_MEMVIZ_DATA*/"

// maxFrames bounds the frames of each stack the page shows.
const maxFrames = 16

// data is what the page's script reads: allocations in columns, in the
// order they were made.
type data struct {
	Title   string     `json:"title"`
	Dropped uint64     `json:"dropped"`
	Events  int        `json:"events"`
	End     int64      `json:"end"` // the last event's time
	Devices []devInfo  `json:"devices"`
	Streams []string   `json:"streams"`
	Stacks  [][]string `json:"stacks"` // by index; 0 is "no stack"
	Allocs  allocs     `json:"allocs"`
	// Order is every block alloc and free in time order: i+1 for the
	// alloc of allocation i, −(i+1) for its free.
	Order    []int32            `json:"order"`
	Reserved map[int][][2]int64 `json:"reserved"` // device → (t, reserved bytes) steps
	Marks    []mark             `json:"marks"`
}

type devInfo struct {
	Ordinal int    `json:"ordinal"`
	Name    string `json:"name"`
}

type allocs struct {
	T0     []int64  `json:"t0"`
	T1     []int64  `json:"t1"` // −1: not freed within the trace
	Size   []uint64 `json:"size"`
	Stream []int32  `json:"stream"` // index in Streams
	Stack  []int32  `json:"stack"`  // index in Stacks
	Dev    []int32  `json:"dev"`    // device ordinal
}

type mark struct {
	T      int64  `json:"t"`
	Op     string `json:"op"` // a memory.Op* mark, oom, trim, empty_cache, or "release" (a segment given back)
	Device int    `json:"device"`
	Size   uint64 `json:"size,omitempty"`
	Dur    int64  `json:"dur,omitempty"`
	Note   string `json:"note,omitempty"`
	Stack  int32  `json:"stack,omitempty"`
}

// Write writes the page for trace f to w.
func Write(w io.Writer, f *memory.TraceFile, title string) error {
	d := build(f, title)
	js, err := json.Marshal(d) // escapes <, > and &: safe inside a script element
	if err != nil {
		return fmt.Errorf("memviz: %w", err)
	}
	before, after, ok := strings.Cut(page, dataMarker)
	if !ok {
		return fmt.Errorf("memviz: the page template has no data marker")
	}
	for _, s := range []string{before} {
		if _, err := io.WriteString(w, s); err != nil {
			return err
		}
	}
	if _, err := w.Write(js); err != nil {
		return err
	}
	_, err = io.WriteString(w, after)
	return err
}

// WriteFile reads the trace file in and writes its page to out.
func WriteFile(out io.Writer, in string) error {
	r, err := os.Open(in)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := memory.ReadTrace(r)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	return Write(out, f, in)
}

type liveKey struct {
	dev int
	ptr uint64
}

func build(f *memory.TraceFile, title string) *data {
	d := &data{Title: title, Dropped: f.Dropped, Events: len(f.Events), Reserved: map[int][][2]int64{}, Stacks: [][]string{nil}}
	for ord, name := range f.Devices {
		d.Devices = append(d.Devices, devInfo{ord, name})
	}
	streams := map[uint64]int32{}
	stackIdx := map[uint32]int32{}
	stackOf := func(id uint32) int32 {
		if id == 0 {
			return 0
		}
		if i, ok := stackIdx[id]; ok {
			return i
		}
		var lines []string
		for _, fr := range f.Stacks[id][:min(maxFrames, len(f.Stacks[id]))] {
			lines = append(lines, fr.String())
		}
		if len(lines) == 0 {
			lines = []string{fmt.Sprintf("stack %d (not in the trace)", id)}
		}
		i := int32(len(d.Stacks))
		d.Stacks = append(d.Stacks, lines)
		stackIdx[id] = i
		return i
	}
	seenDev := map[int]bool{}
	for _, dv := range d.Devices {
		seenDev[dv.Ordinal] = true
	}
	live := map[liveKey]int32{}
	reserved := map[int]int64{}
	segs := map[liveKey]uint64{}
	a := &d.Allocs
	for _, e := range f.Events {
		d.End = max(d.End, e.T)
		if e.Device >= 0 && !seenDev[e.Device] {
			seenDev[e.Device] = true
			d.Devices = append(d.Devices, devInfo{e.Device, fmt.Sprintf("device %d", e.Device)})
		}
		switch {
		case e.Level == memory.TraceBlock && e.Op == memory.OpAlloc:
			si, ok := streams[e.Stream]
			if !ok {
				si = int32(len(d.Streams))
				streams[e.Stream] = si
				d.Streams = append(d.Streams, fmt.Sprintf("0x%x", e.Stream))
			}
			i := int32(len(a.T0))
			a.T0 = append(a.T0, e.T)
			a.T1 = append(a.T1, -1)
			a.Size = append(a.Size, e.Size)
			a.Stream = append(a.Stream, si)
			a.Stack = append(a.Stack, stackOf(e.Stack))
			a.Dev = append(a.Dev, int32(e.Device))
			live[liveKey{e.Device, e.Ptr}] = i
			d.Order = append(d.Order, i+1)
		case e.Level == memory.TraceBlock && e.Op == memory.OpFree:
			k := liveKey{e.Device, e.Ptr}
			i, ok := live[k]
			if !ok {
				continue // allocated before the trace's first event
			}
			delete(live, k)
			a.T1[i] = e.T
			d.Order = append(d.Order, -(i + 1))
		case e.Level == memory.TraceSegment && e.Op == memory.OpAlloc:
			segs[liveKey{e.Device, e.Ptr}] = e.Size
			reserved[e.Device] += int64(e.Size)
			d.Reserved[e.Device] = append(d.Reserved[e.Device], [2]int64{e.T, reserved[e.Device]})
		case e.Level == memory.TraceSegment && e.Op == memory.OpFree:
			k := liveKey{e.Device, e.Ptr}
			if _, ok := segs[k]; !ok {
				continue
			}
			delete(segs, k)
			reserved[e.Device] -= int64(e.Size)
			d.Reserved[e.Device] = append(d.Reserved[e.Device], [2]int64{e.T, reserved[e.Device]})
			d.Marks = append(d.Marks, mark{T: e.T, Op: "release", Device: e.Device, Size: e.Size, Note: "segment given back to the driver"})
		case e.Op == memory.OpAlloc || e.Op == memory.OpFree || e.Op == memory.OpRecordUse:
			// Levels this page does not know.
		case e.Op == memory.OpOOM:
			if e.Level == memory.TraceSegment {
				continue // the pool's segment request; the block-level OOM follows if the ladder fails
			}
			d.Marks = append(d.Marks, mark{T: e.T, Op: e.Op, Device: e.Device, Size: e.Size, Note: "out of memory", Stack: stackOf(e.Stack)})
		default:
			d.Marks = append(d.Marks, mark{T: e.T, Op: e.Op, Device: e.Device, Size: e.Size, Dur: e.Dur, Note: e.Note})
		}
	}
	slices.SortFunc(d.Devices, func(x, y devInfo) int { return x.Ordinal - y.Ordinal })
	if d.Streams == nil {
		d.Streams = []string{}
	}
	if d.Order == nil {
		d.Order = []int32{}
	}
	if d.Marks == nil {
		d.Marks = []mark{}
	}
	return d
}
