package unified

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/internal/layout"
	"github.com/gpuarr/gpuarr/memory"
)

// Pinned is a host array in page-locked memory: copies between it and a
// device array go by DMA, asynchronously, with no staging copy. Download
// and Upload queue such a copy on a stream, tracked like any array use;
// Borrow and UnsafeSlice wait for the copies queued since the CPU last
// looked, so the CPU never reads (or overwrites) memory a copy is still
// using.
//
// The memory is also a direct source and destination for gpuarr's
// CopyFromHost and CopyToHost: a DMA with no staging copy, which both wait
// for before they return (device.IsPinned tells them the memory is
// page-locked), so the slice is free for reuse at once. Download and
// Upload are the asynchronous forms.
//
//	err := p.Borrow(func(s []float32) error { return a.CopyToHost(s) })
//
// Pinned memory is charged to gcpressure's host-memory account. Release
// frees it (after its copies); so does the GC when the Pinned becomes
// unreachable, which is why a slice of it is lent (Borrow) rather than
// handed out: a raw slice (UnsafeSlice) does not keep the Pinned alive.
type Pinned[T gpuarr.Element] struct {
	m        *pinnedMem
	n        int
	released atomic.Bool
	cleanup  runtime.Cleanup
}

// pinnedMem is what the cleanup holds: never the Pinned itself.
type pinnedMem struct {
	dev  *device.Device
	b    []byte
	note memory.PinnedNote // the profile's and the metrics' record

	mu      sync.Mutex
	pending []*device.Event // copies queued since the CPU last waited
}

// NewPinned allocates n elements of page-locked host memory through dev
// (nil: device.Default()). Like device memory, it goes through eager
// collection first (the host-memory account's pressure) and, when the
// driver runs out of page-locked memory, the reclaim ladder before it
// fails.
func NewPinned[T gpuarr.Element](n int, dev *device.Device) (*Pinned[T], error) {
	const call = "NewPinned"
	if n <= 0 {
		return nil, fmt.Errorf("unified.%s: %d elements: want at least 1: %w", call, n, gpuarr.ErrArgument)
	}
	if dev == nil {
		d, err := device.Default()
		if err != nil {
			return nil, fmt.Errorf("unified.%s: %w", call, err)
		}
		dev = d
	}
	var zero T
	nbytes := uint64(n) * uint64(unsafe.Sizeof(zero))
	if err := chargeHost(nbytes); err != nil {
		return nil, fmt.Errorf("unified.%s: %d bytes of pinned host memory: %w", call, nbytes, err)
	}
	b, err := dev.AllocHost(nbytes)
	if errors.Is(err, device.ErrOutOfMemory) {
		// The reclaim ladder frees unreachable arrays, Pinned ones too.
		_ = gcpressure.Install() // the ladder; a malformed variable is reported where gpuarr allocates
		memory.ReclaimUntil(dev, nbytes, func() bool {
			b, err = dev.AllocHost(nbytes)
			return !errors.Is(err, device.ErrOutOfMemory)
		})
	}
	if err != nil {
		unchargeHost(nbytes)
		return nil, fmt.Errorf("unified.%s: %d bytes on %s: %w", call, nbytes, dev, err)
	}
	p := &Pinned[T]{m: &pinnedMem{dev: dev, b: b, note: memory.NotePinned(dev, nbytes)}, n: n}
	p.cleanup = runtime.AddCleanup(p, func(m *pinnedMem) { _ = m.free() }, p.m)
	return p, nil
}

// Len is the number of elements.
func (p *Pinned[T]) Len() int { return p.n }

// Borrow waits for the copies queued on the memory, then calls f with it
// as a []T and returns f's error. The slice is lent for the call only:
// Borrow keeps p reachable until f returns, and f must neither keep the
// slice (or a part of it) past its return nor release p. Borrow returns an
// error matching gpuarr.ErrReleased after Release, and one matching
// gpuarr.ErrArgument for a nil f, without calling f.
func (p *Pinned[T]) Borrow(f func(s []T) error) error {
	const call = "Pinned.Borrow"
	if f == nil {
		return fmt.Errorf("unified.%s: nil function: %w", call, gpuarr.ErrArgument)
	}
	s, err := p.slice(call)
	if err != nil {
		return err
	}
	err = f(s)
	runtime.KeepAlive(p)
	return err
}

// UnsafeSlice waits for the copies queued on the memory, then returns it
// as a raw []T. Prefer Borrow: the slice does not keep p alive, and Go
// cannot tell. The caller must keep p reachable (a use of p after the
// slice's last use, or runtime.KeepAlive(p)) and unreleased for as long
// as it uses the slice; a use after p was released or collected reads or
// writes freed memory, or crashes. The host backend's checking mode
// (GPUARR_HOST_CHECK=1) makes such a use fault at once.
func (p *Pinned[T]) UnsafeSlice() ([]T, error) { return p.slice("Pinned.UnsafeSlice") }

func (p *Pinned[T]) slice(call string) ([]T, error) {
	if p == nil {
		return nil, fmt.Errorf("unified.%s: nil *Pinned: %w", call, gpuarr.ErrArgument)
	}
	if p.released.Load() {
		return nil, fmt.Errorf("unified.%s: %w", call, gpuarr.ErrReleased)
	}
	if err := p.m.wait(); err != nil {
		return nil, fmt.Errorf("unified.%s: %w", call, err)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(p.m.b))), p.n), nil
}

// Release waits for the copies queued on the memory and frees it. A second
// Release does nothing.
func (p *Pinned[T]) Release() error {
	if p == nil || !p.released.CompareAndSwap(false, true) {
		return nil
	}
	p.cleanup.Stop()
	return p.m.free()
}

// Download queues a copy of a (contiguous, Len elements) into p on s.
func (p *Pinned[T]) Download(a *gpuarr.Array[T], s *device.Stream) error {
	return p.copy("Download", a, s, false)
}

// Upload queues a copy of p into a (contiguous, Len elements) on s.
func (p *Pinned[T]) Upload(a *gpuarr.Array[T], s *device.Stream) error {
	return p.copy("Upload", a, s, true)
}

func (p *Pinned[T]) copy(call string, a *gpuarr.Array[T], s *device.Stream, up bool) error {
	if p == nil || p.released.Load() {
		return fmt.Errorf("unified.Pinned.%s: %w", call, gpuarr.ErrReleased)
	}
	if err := a.Err(); err != nil {
		return fmt.Errorf("unified.Pinned.%s: %w", call, err)
	}
	if s == nil {
		return fmt.Errorf("unified.Pinned.%s: nil stream: %w", call, gpuarr.ErrArgument)
	}
	if a.Len() != p.n {
		return fmt.Errorf("unified.Pinned.%s: %v has %d elements, the pinned array %d: %w", call, a.Describe(), a.Len(), p.n, gpuarr.ErrShape)
	}
	if !layout.IsRowMajor(a.Shape(), a.Strides()) {
		return fmt.Errorf("unified.Pinned.%s: %v is a strided view: copy it to a contiguous array first: %w", call, a.Describe(), gpuarr.ErrArgument)
	}
	ev, err := s.Device().NewEvent()
	if err != nil {
		return fmt.Errorf("unified.Pinned.%s: %w", call, err)
	}
	host := unsafe.Pointer(unsafe.SliceData(p.m.b))
	err = arrayhook.UseMemory(a, s, !up, func(ptr device.Ptr, n uint64, _ memory.Resource) error {
		var err error
		if up {
			err = s.CopyHtoD(ptr, host, n)
		} else {
			err = s.CopyDtoH(host, ptr, n)
		}
		if err == nil {
			err = s.Record(ev)
		}
		return err
	})
	if err != nil {
		_ = ev.Close()
		return fmt.Errorf("unified.Pinned.%s: %w", call, err)
	}
	p.m.mu.Lock()
	p.m.pending = append(p.m.pending, ev)
	p.m.mu.Unlock()
	return nil
}

func (m *pinnedMem) wait() error {
	m.mu.Lock()
	pend := m.pending
	m.pending = nil
	m.mu.Unlock()
	var first error
	for _, ev := range pend {
		if err := ev.Synchronize(); err != nil && first == nil && !errors.Is(err, device.ErrClosed) {
			first = err
		}
		_ = ev.Close()
	}
	return first
}

func (m *pinnedMem) free() error {
	werr := m.wait()
	n := uint64(len(m.b))
	if err := m.dev.FreeHost(m.b); err != nil {
		return err
	}
	unchargeHost(n)
	m.note.Free()
	return werr
}
