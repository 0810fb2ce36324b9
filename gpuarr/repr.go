package gpuarr

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
)

// reprEdge is how many elements String shows at each end of a longer
// array (NumPy shows three).
const reprEdge = 3

// String is a short look at the array, like NumPy's repr: its element
// type, shape and device, then its elements in row-major order, all of
// them up to six, else the first and last three:
//
//	gpuarr.Array[float32][2 3] on host:0 [1 2 3 4 5 6]
//	gpuarr.Array[int64][1000] on cuda:0 [0 1 2 ... 997 998 999]
//
// It copies only the elements it shows. Before that it waits, like
// ToSlice, for the array's last writer alone (its event, not the whole
// device); an array nothing wrote since its last host read costs no wait.
// It never blocks on the array's lock and never waits for a stream
// capture: when an operation holds the array (String called from Track's
// issue function, or racing another goroutine's operation on the same
// memory) or its last write was captured, the values are left out and a
// note says why. A nil, zero or released array prints as such; String
// never panics. Describe names the array without reading it.
func (a *Array[T]) String() string {
	switch {
	case a == nil:
		return "gpuarr.Array(nil)"
	case a.c.buf == nil:
		return "gpuarr.Array(" + zeroArray + ")"
	}
	head := fmt.Sprintf("gpuarr.Array[%s]%v on %s", a.c.typ.Name, a.c.shape, a.c.dev())
	if a.c.released.Load() {
		return head + " (released)"
	}
	vals, pos, why := a.peek()
	if why != "" {
		return head + " (" + why + ")"
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(" [")
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(' ')
			if pos[i] != pos[i-1]+1 {
				b.WriteString("... ")
			}
		}
		fmt.Fprint(&b, v)
	}
	b.WriteByte(']')
	return b.String()
}

// peek reads the elements String shows and their row-major positions, or
// says why it cannot.
func (a *Array[T]) peek() (vals []T, pos []int, why string) {
	c := &a.c
	n := c.n
	for i := range n {
		if n > 2*reprEdge && i == reprEdge {
			pos = append(pos, n-reprEdge, n-reprEdge+1, n-reprEdge+2)
			break
		}
		pos = append(pos, i)
	}
	if n == 0 {
		return nil, nil, ""
	}
	if !c.acquire() {
		return nil, nil, "released"
	}
	defer c.buf.unref()
	if why := c.buf.waitForPeek(); why != "" {
		return nil, nil, why
	}
	vals = make([]T, len(pos))
	size := int64(uintptr(c.typ.Size()))
	for i, p := range pos {
		off := int64(p)
		if st := c.strides(); st != nil {
			off = 0
			for ax := len(c.shape) - 1; ax >= 0; ax-- {
				off += int64(p%c.shape[ax]) * int64(st[ax])
				p /= c.shape[ax]
			}
		}
		src := c.ptr() + device.Ptr(off*size)
		if err := c.dev().CopyDtoH(unsafe.Pointer(&vals[i]), src, uint64(size)); err != nil {
			return nil, nil, "values not read: " + err.Error()
		}
	}
	return vals, pos, ""
}

// waitForPeek is syncForHost for String: it waits for the last writer's
// event when a GPU write may be pending, but gives up rather than block on
// the buffer's lock (its caller may hold it) or on a stream capture. It
// returns why it gave up, or "".
func (b *buffer) waitForPeek() string {
	if !b.mu.TryLock() {
		return "values not shown: an operation holds the array"
	}
	t := &b.trk
	if !t.dirty {
		b.mu.Unlock()
		return ""
	}
	if t.wcap || t.writer != nil && t.writer.IsCapturing() {
		b.mu.Unlock()
		return "values not shown: written in a stream capture"
	}
	seq := t.wseq
	ev, err := t.recordWriterLocked()
	if ev != nil {
		ev.hold()
	}
	b.mu.Unlock()
	if err == nil && ev != nil {
		err = ev.ev.Synchronize()
		counters.hostSyncs.Add(1)
	}
	if ev != nil {
		ev.drop()
	}
	if err != nil && !closed(err) {
		return "values not read: " + err.Error()
	}
	// Clean now, unless written since (as syncForHost), so the next host
	// read waits for nothing; if the lock is busy, a later read waits for
	// a finished event instead.
	if b.mu.TryLock() {
		if t.wseq == seq {
			t.dirty = false
		}
		b.mu.Unlock()
	}
	return ""
}
