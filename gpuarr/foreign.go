package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/memory"
)

// Arrays over memory from another allocator, and direct host access to
// memory the CPU can address. Package unified builds managed arrays on
// these two hooks; they are general: any memory.Resource whose blocks
// kernels of its device can use gives fully tracked arrays.

// EmptyFrom allocates an array of shape sh whose memory comes from res
// instead of the device's default resource. It is an ordinary array in
// every way (views, expressions, copies, tracking, Release, cleanup); its
// memory goes back to res, stream-ordered, when the last handle goes. The
// stream (an Option, else res's device's default stream) must belong to
// res's device.
func EmptyFrom[T Numeric](res memory.Resource, sh Shape, opts ...Option) (*Array[T], error) {
	const call = "EmptyFrom"
	if res == nil {
		return nil, fmt.Errorf("gpuarr.%s: nil resource: %w", call, ErrArgument)
	}
	s, err := streamFor(call, opts, res.Device())
	if err != nil {
		return nil, err
	}
	if s.Device() != res.Device() {
		return nil, fmt.Errorf("gpuarr.%s: a stream of %s with a resource of %s: %w", call, s.Device(), res.Device(), ErrArgument)
	}
	esize := sizeOf[T]()
	n, err := checkShape(call, sh, esize)
	if err != nil {
		return nil, err
	}
	if err := gcpressure.Install(); err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	nbytes := uint64(n) * uint64(esize)
	gcpressure.BeforeAlloc(s.Device(), nbytes)
	blk, err := res.Alloc(s, nbytes)
	if err != nil {
		return nil, allocError(call, nbytes, s.Device(), err)
	}
	b := &buffer{st: stateOf(s.Device()), res: res, block: blk, ptr: blk.Ptr(), size: nbytes}
	b.refs.Store(1)
	b.trk.writer = s
	a := &Array[T]{}
	a.c.bind(b, 0)
	a.c.n, a.c.typ = n, dtype.ElemOf[T]()
	a.c.setShape(sh)
	track(a)
	return a, nil
}

// HostLayout says where a's elements are for direct host access: Ptr is
// the first element's device address, Strides the element steps along
// each axis (row-major for a contiguous array).
type HostLayout struct {
	Ptr     device.Ptr
	Shape   Shape
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
func PrepareHostAccess[T Numeric](a *Array[T], how HostAccess) (HostLayout, error) {
	const call = "PrepareHostAccess"
	if err := a.check(call); err != nil {
		return HostLayout{}, err
	}
	c := &a.c
	if !c.acquire() {
		return HostLayout{}, c.releasedError(call)
	}
	defer c.buf.unref()
	var migrate func(*device.Stream) (bool, error)
	if how.Migrate != nil {
		if lo, n := a.span(); n > 0 {
			p := c.ptr().Add(uint64(lo * int(uintptr(c.typ.Size()))))
			migrate = func(s *device.Stream) (bool, error) { return how.Migrate(s, p, uint64(n*int(uintptr(c.typ.Size())))) }
		}
	}
	if err := c.buf.syncForHostAccess(how.WholeDevice, migrate); err != nil {
		return HostLayout{}, fmt.Errorf("gpuarr.%s: %s: %w", call, c.describe(), err)
	}
	if !c.openLease() {
		return HostLayout{}, c.releasedError(call)
	}
	return HostLayout{Ptr: c.ptr(), Shape: a.Shape(), Strides: a.Strides(), Resource: c.buf.res, Lease: &c.lease}, nil
}

// syncForHostAccess is syncForHost for reading and writing: it also waits
// for the streams that read the buffer since its last write, the writer's
// own stream included, then forgets them.
func (b *buffer) syncForHostAccess(wholeDevice bool, migrate func(*device.Stream) (bool, error)) error {
	if wholeDevice {
		return b.syncDevice()
	}
	b.mu.Lock()
	t := &b.trk
	if t.wread {
		// The writer's stream read the buffer after its write: the CPU,
		// which may write, waits for an event recorded after those reads.
		t.wfresh = false
		ev, err := t.recordWriterLocked()
		if err == nil && ev != nil {
			err = ev.ev.Synchronize()
			counters.hostSyncs.Add(1)
		}
		if err != nil && !closed(err) {
			b.mu.Unlock()
			return err
		}
		t.wread = false
	}
	if len(t.readers) == 0 {
		b.mu.Unlock()
		return b.syncForHostMigrating(migrate)
	}
	for i := range t.readers {
		r := &t.readers[i]
		if r.s.IsCapturing() {
			b.mu.Unlock()
			return captureError(r.s, "read")
		}
		ev, err := t.recordReaderLocked(r)
		if err == nil && ev != nil {
			err = ev.ev.Synchronize()
			counters.hostSyncs.Add(1)
		}
		if err != nil && !closed(err) {
			b.mu.Unlock()
			return err
		}
	}
	t.dropReaders()
	b.mu.Unlock()
	return b.syncForHostMigrating(migrate)
}

// syncDevice waits for every stream of the buffer's device and marks the
// buffer clean and unread.
func (b *buffer) syncDevice() error {
	b.mu.Lock()
	seq := b.trk.wseq
	b.mu.Unlock()
	gcpressure.BeforeBlockingWait(b.st.dev)
	err := b.st.dev.Synchronize()
	counters.hostSyncs.Add(1)
	if err != nil && !closed(err) {
		return err
	}
	b.mu.Lock()
	if b.trk.wseq == seq {
		b.trk.dirty, b.trk.wread = false, false
		b.trk.dropReaders()
	}
	b.mu.Unlock()
	return nil
}

// HostSyncs counts the times host access waited for GPU work (host reads,
// PrepareHostAccess): tests use it to show a clean array costs no wait.
func HostSyncs() uint64 { return counters.hostSyncs.Load() }

// UseMemory runs fn, which issues work on s touching the memory a's
// elements span, as one tracked use of a on s (a write when write is set,
// else a read): s first waits for the conflicting work of other streams,
// and a's memory stays allocated until that work is done.
// fn receives the span's first address and length, and the resource a's
// memory came from (nil: the device's default). With a nil s, fn only
// runs with a's memory pinned (for calls that are not stream-ordered).
func UseMemory[T Numeric](a *Array[T], s *device.Stream, write bool, fn func(p device.Ptr, n uint64, res memory.Resource) error) error {
	const call = "UseMemory"
	if err := a.check(call); err != nil {
		return err
	}
	if fn == nil {
		return fmt.Errorf("gpuarr.%s: nil function: %w", call, ErrArgument)
	}
	c := &a.c
	lo, n := a.span()
	if n == 0 {
		return nil // no elements
	}
	run := func() error {
		return fn(c.ptr().Add(uint64(lo*int(uintptr(c.typ.Size())))), uint64(n*int(uintptr(c.typ.Size()))), c.buf.res)
	}
	if s == nil {
		if !c.acquire() {
			return c.releasedError(call)
		}
		defer c.buf.unref()
		return run()
	}
	m := modeRead
	if write {
		m = modeWrite
	}
	return a.issue(call, s, m, false, run)
}

// span is the elements a's view reaches, from the lowest offset lo (in
// elements from a's first element, negative for reversed axes) through n
// elements; n is 0 when a has no elements.
func (a *Array[T]) span() (lo, n int) {
	hi := 0
	for i, d := range a.c.shape {
		if d == 0 {
			return 0, 0
		}
		st := a.strideAt(i)
		if st < 0 {
			lo += (d - 1) * st
		} else {
			hi += (d - 1) * st
		}
	}
	return lo, hi - lo + 1
}

func (a *Array[T]) strideAt(i int) int {
	if a.c.strides() != nil {
		return a.c.strides()[i]
	}
	st := 1
	for _, d := range a.c.shape[i+1:] {
		st *= d
	}
	return st
}
