package arrayhook

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/layout"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
	"github.com/gpuarr/gpuarr/memory"
)

// HostLease is an array handle's lease on direct CPU access to its
// elements; see lifetime.Lease. PrepareHostAccess returns it.
type HostLease = lifetime.Lease

// HostLayout says where a's elements are for direct host access: Ptr is
// the first element's device address, Strides the element steps along
// each axis (row-major for a contiguous array).
type HostLayout struct {
	Ptr     device.Ptr
	Shape   gpuarr.Shape
	Strides []int
	// Resource is the resource a's memory came from when EmptyFrom made
	// it, nil for the device's default resource.
	Resource memory.Resource
	// Lease is a's lease on the access: the elements a loop may address
	// as one run, 0 from a's Release on (see HostLease).
	Lease *HostLease
}

// HostAccess says how PrepareHostAccess waits.
type HostAccess struct {
	// WholeDevice synchronizes the whole device, every call: for a device
	// without concurrent managed access, where the CPU must not touch
	// managed memory while any kernel runs.
	WholeDevice bool
	// Migrate, when set (and WholeDevice is not), is called when a GPU
	// write may be pending, before the wait, with the stream that wrote a
	// last and the memory a's elements span [p, p+n). It may issue work
	// on s over that memory (a prefetch to the CPU, so the CPU does not
	// fault the pages in one by one) and reports whether it did; the wait
	// then covers that work too, at no extra synchronization. It runs
	// under a's tracking lock: it must only issue work, never wait or
	// touch a's tracking. An error from it fails the access.
	Migrate func(s *device.Stream, p device.Ptr, n uint64) (bool, error)
}

// PrepareHostAccess makes a's memory safe for the CPU to read and write
// directly (memory the CPU can address: managed or host-backend memory)
// and returns its layout. When the dirty bit says a GPU write may be
// pending, it waits for that writer; it also waits for reads other streams
// issued since, since the CPU may write. See HostAccess for the whole-device
// wait and for migrating the memory on the writer's stream first.
// Afterwards a counts as clean and unread: until the next GPU operation on
// it, another call waits for nothing, takes one lock and makes no driver
// call. CPU writes need no further step: they are done before the next GPU
// operation is issued, which sees them. The memory stays valid until a is
// released or becomes unreachable: code that keeps using it reads the
// returned lease before each access (HostLease), which both keeps a
// reachable and sees its Release.
func PrepareHostAccess[T gpuarr.Element](a *gpuarr.Array[T], how HostAccess) (HostLayout, error) {
	const call = "PrepareHostAccess"
	h := handle(a)
	if err := h.Check(call); err != nil {
		return HostLayout{}, err
	}
	if !h.Acquire() {
		return HostLayout{}, h.ReleasedError(call)
	}
	defer h.Buffer().Unref()
	var migrate func(*device.Stream) (bool, error)
	if how.Migrate != nil {
		if p, n := span(h); n > 0 {
			migrate = func(s *device.Stream) (bool, error) { return how.Migrate(s, p, n) }
		}
	}
	if err := h.Buffer().HostAccess(h.Device(), how.WholeDevice, migrate); err != nil {
		return HostLayout{}, fmt.Errorf("gpuarr.%s: %s: %w", call, h.Describe(), err)
	}
	if !h.OpenLease() {
		return HostLayout{}, h.ReleasedError(call)
	}
	return HostLayout{Ptr: h.Ptr(), Shape: a.Shape(), Strides: a.Strides(), Resource: h.Buffer().Resource(), Lease: h.Lease()}, nil
}

// HostSyncs counts the times the host waited for GPU work for an array
// (host reads, PrepareHostAccess): tests use it to show a clean array
// costs no wait.
func HostSyncs() uint64 {
	n, _, _ := tracking.Counts()
	return n
}

// UseMemory runs fn, which issues work on s touching the memory a's
// elements span, as one tracked use of a on s (a write when write is set,
// else a read): s first waits for the conflicting work of other streams,
// and a's memory stays allocated until that work is done.
// fn receives the span's first address and length, and the resource a's
// memory came from (nil: the device's default). With a nil s, fn only
// runs with a's memory pinned (for calls that are not stream-ordered).
func UseMemory[T gpuarr.Element](a *gpuarr.Array[T], s *device.Stream, write bool, fn func(p device.Ptr, n uint64, res memory.Resource) error) error {
	const call = "UseMemory"
	h := handle(a)
	if err := h.Check(call); err != nil {
		return err
	}
	if fn == nil {
		return fmt.Errorf("gpuarr.%s: nil function: %w", call, arg.ErrArgument)
	}
	p, n := span(h)
	if n == 0 {
		return nil // no elements
	}
	run := func() error { return fn(p, n, h.Buffer().Resource()) }
	if s == nil {
		if !h.Acquire() {
			return h.ReleasedError(call)
		}
		defer h.Buffer().Unref()
		return run()
	}
	m := tracking.Read
	if write {
		m = tracking.Write
	}
	return h.Issue(call, s, m, false, run)
}

// span is the memory h's view reaches: from the element at the lowest
// offset (before the first element's for reversed axes), n bytes; n is 0
// when h has no elements.
func span(h *lifetime.Handle) (p device.Ptr, n uint64) {
	lo, hi := 0, 0
	st := h.Strides()
	if st == nil {
		st = layout.RowMajorStrides(h.Shape())
	}
	for i, d := range h.Shape() {
		if d == 0 {
			return 0, 0
		}
		if st[i] < 0 {
			lo += (d - 1) * st[i]
		} else {
			hi += (d - 1) * st[i]
		}
	}
	size := h.Elem().Size()
	return h.Ptr().Add(uint64(lo * size)), uint64((hi - lo + 1) * size)
}
