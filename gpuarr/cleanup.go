package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// track arranges a's cleanup: when a becomes unreachable, the GC drops
// its reference to the buffer. The cleanup is registered later, by the
// registrar (cleanupreg.go), unless a is released first. It holds the
// buffer, never the array (which would keep it reachable). Cleanups run
// on runtime goroutines, several at once since Go 1.25; the one that
// drops the last reference queues the buffer for deferredFrees' drainer
// rather than freeing it there (see freeQueue). A failed free cannot be
// reported from there; it is counted (counters.freeErrors).
func track[T Numeric](a *Array[T]) { registrar.add(&a.c) }

func dropBuffer(b *buffer) {
	if b.refs.Add(-1) == 0 {
		deferredFrees.push(b)
	}
}

// Release gives the array's memory back now instead of when the GC finds
// the array unreachable: tight loops call it (or defer it) so memory is
// reused at once. Views taken from the array keep the memory until they
// are released too. After Release every use of this handle fails with an
// error matching ErrReleased that names the array; Release itself may be
// called again and then does nothing and returns nil.
//
// The memory returns to the pool in stream order: work already issued on
// any stream that uses the array still sees it.
//
// Release of a nil *Array does nothing and returns nil; of the zero Array
// it returns an error matching ErrArgument.
func (a *Array[T]) Release() error {
	if a == nil {
		return nil
	}
	if a.c.buf == nil {
		return fmt.Errorf("gpuarr.Release: %w", errZeroArray)
	}
	st := &a.c.released.v
	for {
		switch st.Load() {
		case stateReleased:
			return nil
		case statePending: // the registrar will skip it
			if st.CompareAndSwap(statePending, stateReleased) {
				a.c.endLease()
				return a.c.buf.unref()
			}
		case stateTracked:
			if st.CompareAndSwap(stateTracked, stateReleased) {
				a.c.cleanup.Stop()
				a.c.endLease()
				return a.c.buf.unref()
			}
		}
	}
}

// newArray allocates an uninitialized array of shape sh on s.
func newArray[T Numeric](call string, sh Shape, s *device.Stream) (*Array[T], error) {
	esize := sizeOf[T]()
	n, err := checkShape(call, sh, esize)
	if err != nil {
		return nil, err
	}
	buf, err := allocBuffer(call, s, uint64(n)*uint64(esize))
	if err != nil {
		return nil, err
	}
	a := &Array[T]{}
	a.c.bind(buf, 0)
	a.c.n, a.c.typ = n, dtype.ElemOf[T]()
	a.c.setShape(sh)
	track(a)
	return a, nil
}

// view makes a new handle on a's buffer: off bytes in, n elements of
// shape sh. It fails when a was released.
func (a *Array[T]) view(call string, off uint64, n int, sh Shape) (*Array[T], error) {
	if !a.c.acquire() {
		return nil, a.c.releasedError(call)
	}
	v := &Array[T]{}
	v.c.bind(a.c.buf, a.c.off+off)
	v.c.n, v.c.typ = n, a.c.typ
	v.c.setShape(sh)
	track(v) // the pin above is the view's reference
	return v, nil
}
