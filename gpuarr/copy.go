package gpuarr

import (
	"fmt"
	"slices"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
	"github.com/gpuarr/gpuarr/p2p"
)

// Copy copies src into dst, which must have the same shape; they may live
// on one device or two. It runs on the default stream of dst's device
// unless an Option names a stream of dst's or src's device, and is
// ordered after other streams' use of both arrays.
//
// Between devices, the copy goes direct when peer access can be enabled
// (asynchronous, like a copy within a device) and through pinned host
// buffers otherwise (package p2p). A staged copy reads src on a stream of
// src's device (the Option's stream if it is one, else that device's
// default stream) and writes dst on one of dst's; it returns once the
// reads are done, the writes may still be running.
func Copy[T Element](dst, src *Array[T], opts ...Option) error {
	const call = "Copy"
	if err := dst.check(call + ": dst"); err != nil {
		return err
	}
	if err := src.check(call + ": src"); err != nil {
		return err
	}
	if !slices.Equal(dst.c.Shape(), src.c.Shape()) {
		return arg.Shapef(call, "dst is %s, src is %s", dst.c.Describe(), src.c.Describe())
	}
	if !dst.c.Contiguous() {
		return stridedError(call, &dst.c)
	}
	s, err := streamFor(call, opts, dst.c.Device())
	if err != nil {
		return err
	}
	if !src.c.Contiguous() {
		if s.Device() == src.c.Device() && s.Device() == dst.c.Device() {
			return EvalInto(dst, src, On(s))
		}
		packed, _, err := src.compact()
		if err != nil {
			return fmt.Errorf("gpuarr.%s: %w", call, err)
		}
		defer packed.Release()
		src = packed
	}
	return copyCores(call, &dst.c, &src.c, s)
}

// Clone returns a new array with src's shape and contents, on the device
// of the Option's stream (src's device when there is none): Clone(a,
// OnDevice(d)) moves a copy of a to d.
func Clone[T Element](src *Array[T], opts ...Option) (*Array[T], error) {
	const call = "Clone"
	if err := src.check(call); err != nil {
		return nil, err
	}
	s, err := streamFor(call, opts, src.c.Device())
	if err != nil {
		return nil, err
	}
	if !src.c.Contiguous() {
		if s.Device() == src.c.Device() {
			return Eval[T](src, On(s))
		}
		packed, _, err := src.compact()
		if err != nil {
			return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
		}
		defer packed.Release()
		src = packed
	}
	dst, err := newArray[T](call, src.c.Shape(), s)
	if err != nil {
		return nil, err
	}
	if err := copyCores(call, &dst.c, &src.c, s); err != nil {
		_ = dst.Release()
		return nil, err
	}
	return dst, nil
}

func copyCores(call string, dst, src *lifetime.Handle, s *device.Stream) error {
	dd, sd, on := dst.Device(), src.Device(), s.Device()
	if on != dd && on != sd {
		return fmt.Errorf("gpuarr.%s: a stream of %s cannot copy %s to %s: use a stream of either device: %w",
			call, on, src.Describe(), dst.Describe(), ErrArgument)
	}
	if dst.SharesBuffer(src) && dst.Len() > 0 && dst.Ptr() < src.Ptr().Add(src.Bytes()) && src.Ptr() < dst.Ptr().Add(dst.Bytes()) && dst.Ptr() != src.Ptr() {
		return fmt.Errorf("gpuarr.%s: %s and %s overlap in one buffer: %w", call, dst.Describe(), src.Describe(), ErrArgument)
	}
	n := dst.Bytes()
	o := lifetime.Claim{Call: call}
	var issue func() error
	switch path := p2p.Route(dd, sd); path {
	case p2p.Local:
		o.Add(src, tracking.Read, s)
		o.Add(dst, tracking.Write, s)
		issue = func() error {
			if dst.Ptr() == src.Ptr() {
				noteCopyResize(s, dst, src, n, false)
				return nil // copying an array onto itself
			}
			if err := s.CopyDtoD(dst.Ptr(), src.Ptr(), n); err != nil {
				return err
			}
			noteCopyResize(s, dst, src, n, true)
			return nil
		}
	case p2p.Direct:
		o.Add(src, tracking.Read, s)
		o.Add(dst, tracking.Write, s)
		issue = func() error { return p2p.CopyDirect(s, dst.Ptr(), dd, src.Ptr(), sd, n) }
	default:
		srcS, dstS := sd.DefaultStream(), dd.DefaultStream()
		if on == sd {
			srcS = s
		} else {
			dstS = s
		}
		o.Add(src, tracking.Read, srcS)
		o.Add(dst, tracking.Write, dstS)
		issue = func() error { return p2p.CopyStaged(dstS, dst.Ptr(), srcS, src.Ptr(), n) }
	}
	if err := o.Begin(false); err != nil {
		return err
	}
	err := issue()
	o.End()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %s to %s: %w", call, src.Describe(), dst.Describe(), err)
	}
	return nil
}

// noteCopyResize tells a Batched capture on s how the copy just issued
// (issued: it became a node) follows the batch size: between two
// contiguous batched arrays, its length scales with the rows.
func noteCopyResize(s *device.Stream, dst, src *lifetime.Handle, n uint64, issued bool) {
	b := lifetime.BatcherOf(s)
	if b == nil || !lifetime.Batched(b, dst) || !lifetime.Batched(b, src) || n == 0 {
		return
	}
	if !dst.Contiguous() || !src.Contiguous() {
		return
	}
	b.Resizes(s, lifetime.Resize{RowBytes: n / uint64(b.MaxBatch())}, issued)
}
