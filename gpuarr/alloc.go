package gpuarr

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/memory"
)

// allocBuffer is the one place arrays get device memory: every
// constructor, view-free copy and clone comes through here. Package
// gcpressure's eager collection hooks in at the marked line, so
// that an allocation under memory pressure first lets the GC run the
// cleanups of unreachable arrays.
//
// The allocation counts as a write on s: the pool hands out memory that is
// safe to use in s's order, so another stream that uses the array first
// waits for s (the tracking's lazy event) like it waits for any writer.
func allocBuffer(call string, s *device.Stream, nbytes uint64) (*buffer, error) {
	st := stateOf(s.Device())
	if s.IsCapturing() {
		if c := captureOf(s); c != nil {
			return allocCaptured(call, st, c, s, nbytes)
		}
	}
	res, err := st.resource()
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	// Under memory pressure, let the GC run unreachable arrays' cleanups first.
	gcpressure.BeforeAlloc(s.Device(), nbytes)
	blk, err := res.Alloc(s, nbytes)
	if err != nil {
		return nil, allocError(call, nbytes, s.Device(), err)
	}
	b := st.newBuffer()
	b.block, b.ptr, b.size = blk, blk.Ptr(), nbytes
	b.refs.Store(1)
	b.trk.writer = s
	return b, nil
}

// allocCaptured allocates from the private pool of the capture going on on
// s: the graph's memory, which no work outside its graphs gets while one
// lives. No eager collection here: it may synchronize, which a capture
// forbids, and the general pool is not what is being filled.
func allocCaptured(call string, st *devState, c *capture, s *device.Stream, nbytes uint64) (*buffer, error) {
	blk, err := c.pool.res.Alloc(s, nbytes)
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %d bytes on %s from the graph's private pool: %w", call, nbytes, s.Device(), err)
	}
	b := &buffer{st: st, block: blk, ptr: blk.Ptr(), size: nbytes, res: poolResource{Resource: c.pool.res, p: c.pool}}
	b.refs.Store(1)
	b.trk.writer = s
	c.noteAlloc(b)
	return b, nil
}

// allocError is a failed allocation of nbytes on dev. An out-of-memory
// error from package memory already names the device and the size.
func allocError(call string, nbytes uint64, dev *device.Device, err error) error {
	if oom := (*memory.OutOfMemoryError)(nil); errors.As(err, &oom) {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return fmt.Errorf("gpuarr.%s: %d bytes on %s: %w", call, nbytes, dev, err)
}
