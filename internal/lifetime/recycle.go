package lifetime

import (
	"unsafe"

	"github.com/gpuarr/gpuarr/memory"
)

// A buffer object is reused with its memory block: the first allocation
// of a memory.Block value makes a Buffer and stores it in the block's tag
// (memory.Block.Tag), and every later allocation that the resource
// serves with that Block value (a caching pool hands the same values out
// again) takes the Buffer back from the tag. So a loop of temporaries
// allocates one Go object per array, its handle, and the buffer it uses
// is the one it used the last time round, in cache.
//
// Reuse is safe because a buffer is freed only when every handle on it has
// dropped its reference, and a handle that can still be used dropped its
// reference only by Release, which marks it released first. An operation
// claims a handle's buffer with Acquire: check released, pin, and check
// released again. If the buffer was freed and reused between the first
// check and the pin, the pin landed on another array's buffer, and the
// second check sees the Release that preceded the free: the operation
// unpins and fails with ErrReleased, as it would have without reuse. A
// reused buffer keeps its device (st), so messages about a released handle
// still name the right device. Buffer.free clears the buffer before it
// gives the block back, and touches it no more after: the block's next
// holder may take the buffer at once.
//
// A capture's buffers are not reused: captures key their bookkeeping by
// the buffers they allocate.

// bufferOf is the buffer object of blk, a block of st's device just
// allocated: the one in its tag, or a new one put there. It has no memory
// and no references.
func bufferOf(blk *memory.Block, st *devState) *Buffer {
	if b := (*Buffer)(blk.Tag()); b != nil {
		return b
	}
	b := &Buffer{st: st}
	blk.SetTag(unsafe.Pointer(b))
	return b
}

// Acquire pins h's buffer for an operation. It reports false, holding
// nothing, when the handle was released (see above for the second check).
func (h *Handle) Acquire() bool {
	if h.released.Load() {
		return false
	}
	if afterReleasedCheck != nil {
		afterReleasedCheck(h)
	}
	if !h.buf.Pin() {
		return false
	}
	if h.released.Load() {
		_ = h.buf.Unref() // maybe another array's buffer: its free, if this was its last reference, is counted
		return false
	}
	return true
}

// afterReleasedCheck, when set (tests only), runs in Acquire between the
// first check and the pin: where a Release on another goroutine, and the
// reuse of the freed buffer, can fall.
var afterReleasedCheck func(*Handle)

// SharesBuffer reports whether h and o are handles on one buffer, for
// aliasing checks made before the operation acquires them. A released
// handle shares nothing: its buffer may be another array's by now, and
// the operation's Acquire reports the release.
func (h *Handle) SharesBuffer(o *Handle) bool {
	return h.buf == o.buf && !h.released.Load() && !o.released.Load()
}
