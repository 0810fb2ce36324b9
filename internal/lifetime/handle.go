package lifetime

import (
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/layout"
)

// Handle is an array handle without its element type: what a
// gpuarr.Array[T] holds as its first and only field, so that a pointer to
// the Handle keeps the Array alive and packages that know the layout can
// reach one from the other. Its zero value is the zero Array: no buffer.
//
// A Handle is made once (Make, MakeView) and then only read, apart from
// its lifetime state (Release, the registrar) and its lease.
type Handle struct {
	buf *Buffer
	// p is the first element's address, fixed for the handle's life: the
	// buffer object is reused once freed (recycle.go), so code that has
	// not acquired the buffer must not read its fields, and addresses are
	// wanted before that (the plan's arguments, aliasing checks).
	p    device.Ptr
	typ  *dtype.Elem // element type: name and size
	dims [4]int      // the shape, when the rank fits (rank of them)
	// more holds what few handles need: a shape of higher rank than dims
	// holds, the element steps of a strided view. nil for the usual
	// contiguous array of rank up to 4: every array allocates a handle,
	// and its size class (and the cache lines it spans) is part of what
	// Empty costs.
	more *handleMore
	// leaf is the fusion compiler's expression node for the handle, made
	// on first use (internal/fusion), so that using an array as an
	// operand allocates nothing. Opaque here.
	leaf unsafe.Pointer
	// released is the handle's state (cleanup.go): its Load reports
	// whether Release was called.
	released     handleState
	pendingDepth uint16 // its depth in the registrar's list, modulo 1<<16 (cleanupRegistrar.add)
	rank         uint16 // the shape's length, at most layout.MaxRank
	lease        Lease  // direct CPU access (lease.go)
	// link is, while the handle is pending, the next handle on the
	// registrar's list (*Handle, see pendingLink), and once it is tracked
	// its cleanup (*runtime.Cleanup, a separate allocation: few handles
	// live that long). One word for both, as the handle's size class is
	// part of what every array costs.
	link unsafe.Pointer
}

// The rank fits Handle.rank.
var _ [math.MaxUint16 - layout.MaxRank]struct{}

// bind points the handle at p in b, whose reference it owns.
func (h *Handle) bind(b *Buffer, p device.Ptr) { h.buf, h.p = b, p }

// handleMore is the part of a handle that few handles need (see
// Handle.more).
type handleMore struct {
	// shape is the shape when the rank exceeds len(Handle.dims): inl
	// holds it up to len(inl), else an allocation of its own.
	shape []int
	inl   [8]int
	// strides holds the element steps along each axis of a strided view
	// (Transpose, Permute, Step); nil for the contiguous row-major layout.
	// n counts the view's elements, not the memory they span.
	strides []int
}

// extra is h.more, made if need be.
func (h *Handle) extra() *handleMore {
	if h.more == nil {
		h.more = new(handleMore)
	}
	return h.more
}

// setShape stores a copy of sh.
func (h *Handle) setShape(sh []int) {
	h.rank = uint16(len(sh))
	if len(sh) <= len(h.dims) {
		copy(h.dims[:], sh)
		return
	}
	m := h.extra()
	if len(sh) <= len(m.inl) {
		m.shape = m.inl[:len(sh):len(sh)]
	} else {
		m.shape = make([]int, len(sh))
	}
	copy(m.shape, sh)
}

// setStrides makes h a strided view with steps st (kept, not copied).
func (h *Handle) setStrides(st []int) { h.extra().strides = st }

// IsZero reports whether h is the zero Array (no buffer).
func (h *Handle) IsZero() bool { return h.buf == nil }

// Shape is the shape; callers must not change it.
func (h *Handle) Shape() []int {
	if r := int(h.rank); r <= len(h.dims) {
		return h.dims[:r:r]
	}
	return h.more.shape
}

// Len is the number of elements: the product of the shape (0 for the
// zero Array).
func (h *Handle) Len() int {
	if h.buf == nil {
		return 0
	}
	n := 1
	for _, d := range h.Shape() {
		n *= d
	}
	return n
}

// Elem is the element type.
func (h *Handle) Elem() *dtype.Elem { return h.typ }

// Contiguous reports whether the elements are packed row-major from Ptr.
func (h *Handle) Contiguous() bool { return h.more == nil || h.more.strides == nil }

// Strides are the element steps of a strided view; nil when contiguous.
func (h *Handle) Strides() []int {
	if h.more == nil {
		return nil
	}
	return h.more.strides
}

// Device is the device whose memory holds the elements.
func (h *Handle) Device() *device.Device { return h.buf.st.dev }

// Ptr is the first element's device address.
func (h *Handle) Ptr() device.Ptr { return h.p }

// LaunchPtr is Ptr, making the handle a device.PtrArg: a launch argument
// that passes its first element's address without an allocation.
func (h *Handle) LaunchPtr() device.Ptr { return h.p }

// Bytes is n elements' size.
func (h *Handle) Bytes() uint64 { return uint64(h.Len()) * uint64(h.typ.Size()) }

// Buffer is the buffer the handle shares; read its fields only holding a
// reference (Acquire).
func (h *Handle) Buffer() *Buffer { return h.buf }

// Leaf is the fusion compiler's node for h, or nil.
func (h *Handle) Leaf() unsafe.Pointer { return atomic.LoadPointer(&h.leaf) }

// SetLeaf makes n h's node unless it has one, and returns h's node.
func (h *Handle) SetLeaf(n unsafe.Pointer) unsafe.Pointer {
	atomic.CompareAndSwapPointer(&h.leaf, nil, n)
	return atomic.LoadPointer(&h.leaf)
}

// Describe names the array in messages: "float32[3 4] array on host:0".
func (h *Handle) Describe() string {
	if h.buf == nil {
		return arg.ZeroArray
	}
	return fmt.Sprintf("%s%v array on %s", h.typ.Name, h.Shape(), h.Device())
}

// ReleasedError is call's error for a handle that cannot be used: the
// zero Array, or released.
func (h *Handle) ReleasedError(call string) error {
	if h.buf == nil {
		return fmt.Errorf("gpuarr.%s: %w", call, arg.ErrZeroArray)
	}
	return fmt.Errorf("gpuarr.%s: %s: %w", call, h.Describe(), arg.ErrReleased)
}

// Check is call's error when h is not a usable array: nil (a nil *Array),
// the zero Array, or released.
func (h *Handle) Check(call string) error {
	switch {
	case h == nil:
		return fmt.Errorf("gpuarr.%s: %w", call, arg.ErrNilArray)
	case h.buf == nil:
		return fmt.Errorf("gpuarr.%s: %w", call, arg.ErrZeroArray)
	case h.released.Load():
		return h.ReleasedError(call)
	}
	return nil
}

// Err is Check without a call: nil for a usable array.
func (h *Handle) Err() error {
	switch {
	case h == nil:
		return arg.ErrNilArray
	case h.buf == nil:
		return arg.ErrZeroArray
	case h.released.Load():
		return fmt.Errorf("%s: %w", h.Describe(), arg.ErrReleased)
	}
	return nil
}

// MustBeArray panics, naming fn, when h is nil (a nil *Array) or the zero
// Array: for the accessors that return no error.
func (h *Handle) MustBeArray(fn string) {
	if h == nil {
		panic("gpuarr: " + fn + " called on a nil *Array (was the error of the call that made it ignored?)")
	}
	if h.buf == nil {
		panic("gpuarr: " + fn + " called on the " + arg.ZeroArray)
	}
}

// Released reports whether Release was called on h.
func (h *Handle) Released() bool { return h.released.Load() }
