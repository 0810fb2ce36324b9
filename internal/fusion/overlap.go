package fusion

import (
	"slices"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/lifetime"
)

// Destinations that an operand reads.
//
// A kernel writes each element of its destination once, in no order
// relative to the other elements' reads, so an operand that reads the
// destination's memory at other positions (a transpose, a reverse, a
// shifted slice, a broadcast row of it) could see elements already
// written. NumPy's out= computes as if into a temporary first, and so do
// EvalInto and Reduce: when an array operand's bytes meet the
// destination's in one buffer and the operand is not element-aligned with
// it, the result is computed into a temporary from the device's pool and
// copied into the destination, both in stream order.
//
// Element-aligned (same first address, element size, shape and strides,
// so not broadcast) is the in-place case y = y*2 + x: each position reads
// its own element before writing it, which needs no temporary. A
// reduction's operand is never aligned with its result.
//
// The test is a pointer compare per array operand, more only for an
// operand in the destination's buffer; nothing is allocated unless a
// temporary is needed.

// overlapTemps counts evaluations that went through a temporary.
var overlapTemps atomic.Uint64

// OverlapTemps is the number of evaluations (elementwise or reductions)
// computed into a temporary because an operand read the destination's
// memory unaligned, since the process started. For tests.
func OverlapTemps() uint64 { return overlapTemps.Load() }

// span is the bytes [lo, hi) h's elements occupy (lo == hi when it has
// none).
func span(h *lifetime.Handle) (lo, hi uint64) {
	lo = uint64(h.Ptr())
	if h.Len() == 0 {
		return lo, lo
	}
	size := uint64(h.Elem().Size())
	st := h.Strides()
	if st == nil {
		return lo, lo + uint64(h.Len())*size
	}
	hi = lo + size
	for d, e := range h.Shape() {
		step := int64(st[d]) * int64(e-1)
		if step < 0 {
			lo -= uint64(-step) * size
		} else {
			hi += uint64(step) * size
		}
	}
	return lo, hi
}

// meets reports whether c's elements and dst's share bytes.
func meets(dst, c *lifetime.Handle) bool {
	if c.Buffer() != dst.Buffer() {
		return false
	}
	dl, dh := span(dst)
	cl, ch := span(c)
	return dl < ch && cl < dh
}

// clobbers reports whether writing dst elementwise could change what
// operand c reads: they share bytes and c is not element-aligned with dst
// (see above).
func clobbers(dst, c *lifetime.Handle) bool {
	if c.Buffer() != dst.Buffer() {
		return false // the usual case: one compare
	}
	aligned := c.Ptr() == dst.Ptr() && c.Elem().Size() == dst.Elem().Size() &&
		slices.Equal(c.Shape(), dst.Shape()) && slices.Equal(c.Strides(), dst.Strides())
	return !aligned && meets(dst, c)
}

// evalApart computes root into a temporary of dst's shape and type on s,
// then copies it into dst, dropping the temporary in stream order.
func evalApart(call string, dst *lifetime.Handle, root *Node, s *device.Stream) error {
	t := dst.Elem().DType
	tmp, err := lifetime.Temp(call, s, t, dst.Shape())
	if err != nil {
		return err
	}
	defer tmp.Done()
	overlapTemps.Add(1)
	if err := EvalInto(call, tmp, root, s); err != nil {
		return err
	}
	return EvalInto(call, dst, Leaf(tmp, t), s)
}
