package gpuarr

import (
	"fmt"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
)

// ToSlice copies the array to a new slice (row-major).
func (a *Array[T]) ToSlice() ([]T, error) {
	if err := a.check("ToSlice"); err != nil {
		return nil, err
	}
	out := make([]T, a.c.n)
	if err := a.download("ToSlice", out); err != nil {
		return nil, err
	}
	return out, nil
}

// CopyToHost copies the array into dst, which must have Len elements.
//
// Host reads need no stream and take no Option: when GPU work may still be
// writing the array (a dirty bit set by every write), the read waits for
// that writer — its event, not the whole device — then copies; reading an
// array nothing has written since the last host read waits for nothing.
// Into page-locked memory (device.AllocHost, unified.Pinned) the copy is a
// direct DMA with no staging copy.
func (a *Array[T]) CopyToHost(dst []T) error {
	if err := a.check("CopyToHost"); err != nil {
		return err
	}
	return a.download("CopyToHost", dst)
}

func (a *Array[T]) download(call string, dst []T) error {
	c := &a.c
	if len(dst) != c.n {
		return shapeError(call, "destination has %d elements, %s has %d", len(dst), c.describe(), c.n)
	}
	if !c.contiguous() {
		// A strided view: compact it on the device, then read that.
		packed, _, err := a.compact()
		if err != nil {
			return fmt.Errorf("gpuarr.%s: %w", call, err)
		}
		defer packed.Release()
		return packed.download(call, dst)
	}
	if !c.acquire() {
		return c.releasedError(call)
	}
	err := c.buf.syncForHost()
	if err == nil && c.n > 0 {
		// Synchronous and unordered with the streams: the wait above
		// ordered it after the writer.
		err = c.dev().CopyDtoH(unsafe.Pointer(unsafe.SliceData(dst)), c.ptr(), c.nbytes())
	}
	_ = c.buf.unref()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %s: %w", call, c.describe(), err)
	}
	return nil
}

// CopyFromHost copies src, which must have Len elements, into the array.
// It is a write in stream order (on the array's device's default stream
// unless an Option says otherwise), ordered after other streams' use of
// the array; src may be reused as soon as it returns. From page-locked
// memory (device.AllocHost, unified.Pinned) the copy goes by DMA with no
// staging copy, and CopyFromHost waits for it before returning.
func (a *Array[T]) CopyFromHost(src []T, opts ...Option) error {
	const call = "CopyFromHost"
	if err := a.check(call); err != nil {
		return err
	}
	if len(src) != a.c.n {
		return shapeError(call, "source has %d elements, %s has %d", len(src), a.c.describe(), a.c.n)
	}
	if !a.c.contiguous() {
		return stridedError(call, &a.c)
	}
	s, err := streamFor(call, opts, a.c.dev())
	if err != nil {
		return err
	}
	return a.upload(call, s, src)
}

func (a *Array[T]) upload(call string, s *device.Stream, src []T) error {
	if err := refuseInCapture(call, s, whyHostSlice); err != nil {
		return err
	}
	p := unsafe.Pointer(unsafe.SliceData(src))
	err := a.issue(call, s, modeWrite, true, func() error {
		if len(src) == 0 {
			return nil
		}
		return s.CopyHtoD(a.c.ptr(), p, a.c.nbytes())
	})
	if err != nil || len(src) == 0 || !device.IsPinned(p, a.c.nbytes()) {
		return err
	}
	// From page-locked memory the copy is a DMA that reads src when the
	// stream gets there (from pageable memory the driver has staged it by
	// now): wait for it, so src is free for reuse on return as promised.
	// unified.Pinned's Upload is the asynchronous form.
	if err := waitStream(s); err != nil {
		return fmt.Errorf("gpuarr.%s: waiting for the copy from pinned memory: %w", call, err)
	}
	return nil
}

// waitStream blocks until the work issued on s so far is done, through a
// pooled event (not the whole stream's later work).
func waitStream(s *device.Stream) error {
	ev, err := stateOf(s.Device()).events.get()
	if err != nil {
		return err
	}
	defer ev.drop()
	if err := s.Record(ev.ev); err != nil {
		if closed(err) {
			return nil
		}
		return err
	}
	counters.eventRecords.Add(1)
	gcpressure.BeforeBlockingWait(s.Device())
	err = ev.ev.Synchronize()
	counters.hostSyncs.Add(1)
	if err != nil && !closed(err) {
		return err
	}
	return nil
}
