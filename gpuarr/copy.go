package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
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
func Copy[T Numeric](dst, src *Array[T], opts ...Option) error {
	const call = "Copy"
	if err := dst.check(call + ": dst"); err != nil {
		return err
	}
	if err := src.check(call + ": src"); err != nil {
		return err
	}
	if !dst.c.shape.Equal(src.c.shape) {
		return shapeError(call, "dst is %s, src is %s", dst.c.describe(), src.c.describe())
	}
	if !dst.c.contiguous() {
		return stridedError(call, &dst.c)
	}
	s, err := streamFor(call, opts, dst.c.dev())
	if err != nil {
		return err
	}
	if !src.c.contiguous() {
		if s.Device() == src.c.dev() && s.Device() == dst.c.dev() {
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
func Clone[T Numeric](src *Array[T], opts ...Option) (*Array[T], error) {
	const call = "Clone"
	if err := src.check(call); err != nil {
		return nil, err
	}
	s, err := streamFor(call, opts, src.c.dev())
	if err != nil {
		return nil, err
	}
	if !src.c.contiguous() {
		if s.Device() == src.c.dev() {
			return Eval[T](src, On(s))
		}
		packed, _, err := src.compact()
		if err != nil {
			return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
		}
		defer packed.Release()
		src = packed
	}
	dst, err := newArray[T](call, src.c.shape, s)
	if err != nil {
		return nil, err
	}
	if err := copyCores(call, &dst.c, &src.c, s); err != nil {
		_ = dst.Release()
		return nil, err
	}
	return dst, nil
}

func copyCores(call string, dst, src *core, s *device.Stream) error {
	dd, sd, on := dst.dev(), src.dev(), s.Device()
	if on != dd && on != sd {
		return fmt.Errorf("gpuarr.%s: a stream of %s cannot copy %s to %s: use a stream of either device: %w",
			call, on, src.describe(), dst.describe(), ErrArgument)
	}
	if dst.sharesBuffer(src) && dst.n > 0 && dst.off < src.off+src.nbytes() && src.off < dst.off+dst.nbytes() && dst.off != src.off {
		return fmt.Errorf("gpuarr.%s: %s and %s overlap in one buffer: %w", call, dst.describe(), src.describe(), ErrArgument)
	}
	n := dst.nbytes()
	o := op{call: call}
	var issue func() error
	switch path := p2p.Route(dd, sd); path {
	case p2p.Local:
		o.add(src, modeRead, s)
		o.add(dst, modeWrite, s)
		issue = func() error {
			if dst.buf == src.buf && dst.off == src.off {
				noteCopyResize(s, dst, src, n, false)
				return nil // copying an array onto itself
			}
			if err := s.CopyDtoD(dst.ptr(), src.ptr(), n); err != nil {
				return err
			}
			noteCopyResize(s, dst, src, n, true)
			return nil
		}
	case p2p.Direct:
		o.add(src, modeRead, s)
		o.add(dst, modeWrite, s)
		issue = func() error { return p2p.CopyDirect(s, dst.ptr(), dd, src.ptr(), sd, n) }
	default:
		srcS, dstS := sd.DefaultStream(), dd.DefaultStream()
		if on == sd {
			srcS = s
		} else {
			dstS = s
		}
		o.add(src, modeRead, srcS)
		o.add(dst, modeWrite, dstS)
		issue = func() error { return p2p.CopyStaged(dstS, dst.ptr(), srcS, src.ptr(), n) }
	}
	if err := o.begin(false); err != nil {
		return err
	}
	err := issue()
	o.end()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %s to %s: %w", call, src.describe(), dst.describe(), err)
	}
	return nil
}

// noteCopyResize tells a Batched capture on s how the copy just issued
// (issued: it became a node) follows the batch size: between two
// contiguous batched arrays, its length scales with the rows.
func noteCopyResize(s *device.Stream, dst, src *core, n uint64, issued bool) {
	c := batchedOf(s)
	if c == nil || !c.isBatched(dst) || !c.isBatched(src) || n == 0 {
		return
	}
	if !dst.contiguous() || !src.contiguous() {
		return
	}
	resizes(s, resizer{rowBytes: n / uint64(c.max)}, issued)
}
