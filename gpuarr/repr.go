package gpuarr

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/arg"
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
	case a.c.IsZero():
		return "gpuarr.Array(" + arg.ZeroArray + ")"
	}
	head := fmt.Sprintf("gpuarr.Array[%s]%v on %s", a.c.Elem().Name, a.c.Shape(), a.c.Device())
	if a.c.Released() {
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
	n := c.Len()
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
	if !c.Acquire() {
		return nil, nil, "released"
	}
	defer c.Buffer().Unref()
	if why := c.Buffer().Peek(c.Device()); why != "" {
		return nil, nil, why
	}
	vals = make([]T, len(pos))
	size := int64(uintptr(c.Elem().Size()))
	for i, p := range pos {
		off := int64(p)
		if st := c.Strides(); st != nil {
			off = 0
			for ax := len(c.Shape()) - 1; ax >= 0; ax-- {
				off += int64(p%c.Shape()[ax]) * int64(st[ax])
				p /= c.Shape()[ax]
			}
		}
		src := c.Ptr() + device.Ptr(off*size)
		if err := c.Device().CopyDtoH(unsafe.Pointer(&vals[i]), src, uint64(size)); err != nil {
			return nil, nil, "values not read: " + err.Error()
		}
	}
	return vals, pos, ""
}
