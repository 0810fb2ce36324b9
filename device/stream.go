package device

import (
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Stream is an in-order queue of asynchronous work on one device. A Stream is
// safe for concurrent use, but work issued from several goroutines at once is
// ordered only by the order the calls happen to reach it; a goroutine that
// wants its own order takes its own stream.
type Stream struct {
	dev       *Device
	drv       driver.Stream
	hl        driver.HandoffLauncher // drv, when it launches after hand-offs in one call
	isDefault bool
	closed    atomic.Bool
	closeErr  error // set when the stream could not be created
	spareArgs atomic.Pointer[driver.Args]
	capturing atomic.Bool // between BeginCapture and EndCapture (capture.go)
}

// Device is the device the stream belongs to.
func (s *Stream) Device() *Device { return s.dev }

// Handle is unique among the device's live streams (the CUstream on CUDA).
func (s *Stream) Handle() uintptr {
	if s.drv == nil {
		return 0
	}
	return s.drv.Handle()
}

// IsDefault reports whether this is the device's default stream.
func (s *Stream) IsDefault() bool { return s.isDefault }

// Driver exposes the backend stream to sibling packages (memory pools).
func (s *Stream) Driver() driver.Stream { return s.drv }

func (s *Stream) check(call string) error {
	if s.closeErr != nil {
		return s.closeErr
	}
	if s.closed.Load() {
		return closedError(call + " on a closed stream")
	}
	return nil
}

// Synchronize blocks until all work issued on the stream is done.
func (s *Stream) Synchronize() error {
	if err := s.check("Stream.Synchronize"); err != nil {
		return err
	}
	return s.drv.Synchronize()
}

// Query reports whether all work issued on the stream is done.
func (s *Stream) Query() (bool, error) {
	if err := s.check("Stream.Query"); err != nil {
		return false, err
	}
	return s.drv.Query()
}

// Close waits for the stream's work and destroys it. Closing twice is an
// error matching ErrClosed; closing the default stream does nothing.
func (s *Stream) Close() error {
	if s.isDefault {
		return nil
	}
	if !s.closed.CompareAndSwap(false, true) {
		return closedError("Stream.Close twice")
	}
	return s.drv.Close()
}

// Record marks e as reached when the stream gets to this point.
func (s *Stream) Record(e *Event) error {
	if err := s.recordable(e); err != nil {
		return err
	}
	return s.drv.Record(e.drv)
}

// recordable checks that e can be recorded on s.
func (s *Stream) recordable(e *Event) error {
	if err := s.check("Stream.Record"); err != nil {
		return err
	}
	if err := e.check("Stream.Record"); err != nil {
		return err
	}
	if e.dev != s.dev {
		return invalid("Stream.Record", "event of %s recorded on a stream of %s", e.dev, s.dev)
	}
	return nil
}

// RecordWait records e on s and makes waiter wait, on the device, for that
// record: Record then waiter.Wait, in one driver round trip where the
// backend offers it. An error may come from either half; Closed tells a
// closed s from a closed waiter.
func (s *Stream) RecordWait(e *Event, waiter *Stream) error {
	rw, ok := s.drv.(driver.RecordWaiter)
	if !ok {
		if err := s.Record(e); err != nil {
			return err
		}
		return waiter.Wait(e)
	}
	if err := waiter.check("Stream.Wait"); err != nil {
		return err
	}
	if err := s.recordable(e); err != nil {
		return err
	}
	return rw.RecordWait(e.drv, waiter.drv)
}

// Closed reports whether Close was called on s (or its device closed).
func (s *Stream) Closed() bool { return s.check("Stream.Closed") != nil }

// Wait makes work issued later on s wait, on the device, for e's most recent
// record. The CPU does not block. The event may belong to another device.
func (s *Stream) Wait(e *Event) error {
	if err := s.check("Stream.Wait"); err != nil {
		return err
	}
	if err := e.check("Stream.Wait"); err != nil {
		return err
	}
	return s.drv.Wait(e.drv)
}

// AllocAsync allocates n bytes from the driver's stream-ordered pool,
// usable by work issued on s after this call.
func (s *Stream) AllocAsync(n uint64) (Ptr, error) {
	if err := s.check("Stream.AllocAsync"); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, invalid("Stream.AllocAsync", "size 0")
	}
	return s.drv.AllocAsync(n)
}

// FreeAsync frees memory from AllocAsync once work issued before it on s is done.
func (s *Stream) FreeAsync(p Ptr) error {
	if err := s.check("Stream.FreeAsync"); err != nil {
		return err
	}
	return s.drv.FreeAsync(p)
}

// CopyHtoD copies n bytes from host memory to the device, in stream order.
// With Go memory it returns once src may be reused.
func (s *Stream) CopyHtoD(dst Ptr, src unsafe.Pointer, n uint64) error {
	if err := s.check("Stream.CopyHtoD"); err != nil || n == 0 {
		return err
	}
	return s.drv.CopyHtoD(dst, src, n)
}

// CopyDtoH copies n bytes from the device to host memory, in stream order.
// With Go memory it returns once dst holds the data.
func (s *Stream) CopyDtoH(dst unsafe.Pointer, src Ptr, n uint64) error {
	if err := s.check("Stream.CopyDtoH"); err != nil || n == 0 {
		return err
	}
	return s.drv.CopyDtoH(dst, src, n)
}

// CopyDtoD copies n bytes between allocations of the stream's device.
func (s *Stream) CopyDtoD(dst, src Ptr, n uint64) error {
	if err := s.check("Stream.CopyDtoD"); err != nil || n == 0 {
		return err
	}
	return s.drv.CopyDtoD(dst, src, n)
}

// CopyPeer copies n bytes from src on srcDev to dst on dstDev, in s's order.
// It works with or without peer access (the driver stages when it must).
func (s *Stream) CopyPeer(dst Ptr, dstDev *Device, src Ptr, srcDev *Device, n uint64) error {
	if err := s.check("Stream.CopyPeer"); err != nil || n == 0 {
		return err
	}
	if dstDev.Backend() != srcDev.Backend() {
		return invalid("Stream.CopyPeer", "%s and %s are on different backends", dstDev, srcDev)
	}
	return s.drv.CopyPeer(dst, dstDev.drv, src, srcDev.drv, n)
}

// Memset8 sets n bytes at dst to v.
func (s *Stream) Memset8(dst Ptr, v uint8, n uint64) error {
	if err := s.check("Stream.Memset8"); err != nil || n == 0 {
		return err
	}
	return s.drv.Memset8(dst, v, n)
}

// Memset32 sets n 32-bit words at dst (4-byte aligned) to v.
func (s *Stream) Memset32(dst Ptr, v uint32, n uint64) error {
	if err := s.check("Stream.Memset32"); err != nil || n == 0 {
		return err
	}
	if dst%4 != 0 {
		return invalid("Stream.Memset32", "destination %v is not 4-byte aligned", dst)
	}
	return s.drv.Memset32(dst, v, n)
}
