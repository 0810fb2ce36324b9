package gpuarr

import (
	"fmt"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// ToSlice copies the array to a new slice (row-major).
func (a *Array[T]) ToSlice() ([]T, error) {
	if err := a.check("ToSlice"); err != nil {
		return nil, err
	}
	out := make([]T, a.c.Len())
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
	if len(dst) != c.Len() {
		return arg.Shapef(call, "destination has %d elements, %s has %d", len(dst), c.Describe(), c.Len())
	}
	if !c.Contiguous() {
		// A strided view: compact it on the device, then read that.
		packed, _, err := a.compact()
		if err != nil {
			return fmt.Errorf("gpuarr.%s: %w", call, err)
		}
		defer packed.Release()
		return packed.download(call, dst)
	}
	if !c.Acquire() {
		return c.ReleasedError(call)
	}
	err := c.Buffer().HostRead(c.Device())
	if err == nil && c.Len() > 0 {
		// Synchronous and unordered with the streams: the wait above
		// ordered it after the writer.
		err = c.Device().CopyDtoH(unsafe.Pointer(unsafe.SliceData(dst)), c.Ptr(), c.Bytes())
	}
	_ = c.Buffer().Unref()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %s: %w", call, c.Describe(), err)
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
	if len(src) != a.c.Len() {
		return arg.Shapef(call, "source has %d elements, %s has %d", len(src), a.c.Describe(), a.c.Len())
	}
	if !a.c.Contiguous() {
		return stridedError(call, &a.c)
	}
	s, err := streamFor(call, opts, a.c.Device())
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
	err := a.c.Issue(call, s, tracking.Write, true, func() error {
		if len(src) == 0 {
			return nil
		}
		return s.CopyHtoD(a.c.Ptr(), p, a.c.Bytes())
	})
	if err != nil || len(src) == 0 || !device.IsPinned(p, a.c.Bytes()) {
		return err
	}
	// From page-locked memory the copy is a DMA that reads src when the
	// stream gets there (from pageable memory the driver has staged it by
	// now): wait for it, so src is free for reuse on return as promised.
	// unified.Pinned's Upload is the asynchronous form.
	if err := tracking.WaitStream(s); err != nil {
		return fmt.Errorf("gpuarr.%s: waiting for the copy from pinned memory: %w", call, err)
	}
	return nil
}
