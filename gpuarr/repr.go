package gpuarr

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/layout"
)

// NumPy's print options: arrays of more than reprThreshold elements are
// summarized, each axis showing reprEdge elements at each end; lines
// wrap at reprWidth characters.
const (
	reprThreshold = 1000
	reprEdge      = 3
	reprWidth     = 75
	// reprSpanBytes bounds the memory String copies in one piece; a view
	// spread wider is read element run by element run.
	reprSpanBytes = 1 << 18
)

// String is a look at the array, like NumPy's str after the element type,
// shape and device: a scalar's value, a vector's elements in brackets,
// and for more axes the elements nested by rows, one row per line (from
// the line after the header), the 2-D blocks of 3-D arrays apart by a
// blank line, every element right-aligned to the widest:
//
//	gpuarr.Array[float32][2 3] on host:0
//	[[  1   2   3]
//	 [4.5   5   6]]
//	gpuarr.Array[int64][2000] on cuda:0 [   0    1    2 ... 1997 1998 1999]
//
// As in NumPy, an array of more than 1,000 elements is summarized: each
// axis shows its first and last three elements with "..." between; lines
// wrap at 75 characters. Elements are formatted as fmt's %v formats T.
//
// It copies only the elements it shows (the memory they span in one
// copy when that is small). Before that it waits, like ToSlice, for the
// array's last writer alone (its event, not the whole device); an array
// nothing wrote since its last host read costs no wait. It never blocks
// on the array's lock and never waits for a stream capture: when an
// operation holds the array (String called from Track's issue function,
// or racing another goroutine's operation on the same memory) or its last
// write was captured, the values are left out and a note says why. A nil,
// zero or released array prints as such; String never panics. Describe
// names the array without reading it.
func (a *Array[T]) String() string {
	switch {
	case a == nil:
		return "gpuarr.Array(nil)"
	case a.c.IsZero():
		return "gpuarr.Array(" + arg.ZeroArray + ")"
	}
	head := fmt.Sprintf("gpuarr.Array[%s]%v on %s", a.c.Elem().Name, a.c.Shape(), a.c.Device())
	if a.c.Released() {
		return head + " (released)"
	}
	sh := a.c.Shape()
	shown := shownIndexes(sh)
	vals, why := a.peek(shown)
	if why != "" {
		return head + " (" + why + ")"
	}
	texts := make([]string, len(vals))
	width := 0
	for i, v := range vals {
		texts[i] = fmt.Sprint(v)
		width = max(width, len(texts[i]))
	}
	switch {
	case len(sh) == 0:
		return head + " " + texts[0]
	case len(texts) == 0:
		return head + " []" // as NumPy prints any empty array
	}
	var b strings.Builder
	r := reprWriter{b: &b, texts: texts, width: width, shown: shown, rank: len(sh)}
	r.block(0, 0)
	if body := b.String(); !strings.Contains(body, "\n") {
		return head + " " + body
	}
	return head + "\n" + b.String()
}

// shownIndexes lists, per axis, the indexes String shows: all of them,
// or for a summarized array the first and last reprEdge with -1 (the
// "..." between) in the middle.
func shownIndexes(sh []int) [][]int {
	summarize := layout.Len(sh) > reprThreshold
	out := make([][]int, len(sh))
	for d, e := range sh {
		if summarize && e > 2*reprEdge {
			for i := range reprEdge {
				out[d] = append(out[d], i)
			}
			out[d] = append(out[d], -1)
			for i := e - reprEdge; i < e; i++ {
				out[d] = append(out[d], i)
			}
			continue
		}
		for i := range e {
			out[d] = append(out[d], i)
		}
	}
	return out
}

// reprWriter writes the nested rows of the shown elements (texts, in
// row-major order over the shown indexes, -1s skipped).
type reprWriter struct {
	b     *strings.Builder
	texts []string
	width int
	shown [][]int
	rank  int
	next  int // the next text to write
}

// block writes the sub-array over axes d… , its opening bracket at
// column col.
func (r *reprWriter) block(d, col int) {
	r.b.WriteByte('[')
	if d == r.rank-1 {
		r.row(col + 1)
		r.b.WriteByte(']')
		return
	}
	for i, idx := range r.shown[d] {
		if i > 0 {
			r.b.WriteByte('\n')
			for range r.rank - d - 2 { // a blank line between blocks of 2-D and up
				r.b.WriteByte('\n')
			}
			r.b.WriteString(strings.Repeat(" ", col+1))
		}
		if idx < 0 {
			r.b.WriteString("...")
			continue
		}
		r.block(d+1, col+1)
	}
	r.b.WriteByte(']')
}

// row writes the elements of one last-axis row, right-aligned to a common
// width, wrapping before reprWidth with continuation lines indented to
// col.
func (r *reprWriter) row(col int) {
	line := col
	for i, idx := range r.shown[r.rank-1] {
		var item string
		if idx < 0 {
			item = "..."
		} else {
			t := r.texts[r.next]
			r.next++
			item = strings.Repeat(" ", r.width-len(t)) + t
		}
		if i > 0 {
			if line+1+len(item)+1 > reprWidth {
				r.b.WriteByte('\n')
				r.b.WriteString(strings.Repeat(" ", col))
				line = col
			} else {
				r.b.WriteByte(' ')
				line++
			}
		}
		r.b.WriteString(item)
		line += len(item)
	}
}

// peek reads the elements shown (the row-major product of the shown
// indexes, -1s skipped), or says why it cannot.
func (a *Array[T]) peek(shown [][]int) (vals []T, why string) {
	c := &a.c
	sh := c.Shape()
	st := c.Strides()
	if st == nil {
		st = layout.RowMajorStrides(sh)
	}
	// The shown elements' offsets, and the span they reach.
	var offs []int64
	var lo, hi int64
	var walk func(d int, off int64)
	walk = func(d int, off int64) {
		if d == len(sh) {
			if len(offs) == 0 {
				lo, hi = off, off
			}
			lo, hi = min(lo, off), max(hi, off)
			offs = append(offs, off)
			return
		}
		for _, i := range shown[d] {
			if i >= 0 {
				walk(d+1, off+int64(i)*int64(st[d]))
			}
		}
	}
	walk(0, 0)
	if len(offs) == 0 {
		return nil, ""
	}
	if !c.Acquire() {
		return nil, "released"
	}
	defer c.Buffer().Unref()
	if why := c.Buffer().Peek(c.Device()); why != "" {
		return nil, why
	}
	size := int64(c.Elem().Size())
	vals = make([]T, len(offs))
	read := func(dst unsafe.Pointer, off int64, n int64) string {
		src := c.Ptr() + device.Ptr(off*size)
		if err := c.Device().CopyDtoH(dst, src, uint64(n*size)); err != nil {
			return "values not read: " + err.Error()
		}
		return ""
	}
	if span := hi - lo + 1; span*size <= reprSpanBytes {
		buf := make([]T, span)
		if why := read(unsafe.Pointer(&buf[0]), lo, span); why != "" {
			return nil, why
		}
		for i, off := range offs {
			vals[i] = buf[off-lo]
		}
		return vals, ""
	}
	// Wide views: a copy per run of consecutive elements.
	for i := 0; i < len(offs); {
		j := i + 1
		for j < len(offs) && offs[j] == offs[j-1]+1 {
			j++
		}
		if why := read(unsafe.Pointer(&vals[i]), offs[i], int64(j-i)); why != "" {
			return nil, why
		}
		i = j
	}
	return vals, ""
}
