package lifetime

// Freed buffers are reused by later allocations on the same device: a
// buffer whose memory went back to the device's default resource, or to
// its managed memory for arrays (memory.go), goes to the device's spare
// pool, so a loop of temporaries allocates one Go object per array, its
// handle.
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
// still name the right device.
//
// Buffers of other resources (a graph's private pool, foreign memory) are
// not reused: captures key their bookkeeping by the buffers they allocate,
// and those resources are not the device's.

// newBuffer returns a buffer of st with no memory and no references: a
// spare one when there is one.
func (st *devState) newBuffer() *Buffer {
	if b, _ := st.spare.Get().(*Buffer); b != nil {
		return b
	}
	return &Buffer{st: st}
}

// recycle gives b, freed and with no references, to its device's spares.
func (b *Buffer) recycle() {
	b.block, b.ptr, b.size = nil, 0, 0
	if b.res != nil {
		b.res = nil
	}
	b.st.spare.Put(b)
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
