package gpuarr

// Freed buffers are reused by later allocations on the same device.
//
// Each array used to cost two Go objects, its handle and its buffer, and
// the GC's work for them was about half of Empty+Release: with the
// collector off (GOGC=off, host backend) the pair cost half as much. A buffer whose memory went back to the general pool is put in its
// device's spare pool instead, so a loop of temporaries allocates one
// object per array, the handle.
//
// Reuse is safe because a buffer is freed only when every handle on it has
// dropped its reference, and a handle that can still be used dropped its
// reference only by Release, which marks it released first. An operation
// claims a handle's buffer with acquire: check released, pin, and check
// released again. If the buffer was freed and reused between the first
// check and the pin, the pin landed on another array's buffer, and the
// second check sees the Release that preceded the free: the operation
// unpins and fails with ErrReleased, as it would have without reuse. A
// reused buffer keeps its device (st), so messages about a released handle
// still name the right device.
//
// Buffers of other resources (a graph's private pool, EmptyFrom, foreign
// memory) are not reused: captures key their bookkeeping by buffer, and
// their resources are not the device's.

// newBuffer returns a buffer of st with no memory and no references: a
// spare one when there is one.
func (st *devState) newBuffer() *buffer {
	if b, _ := st.spare.Get().(*buffer); b != nil {
		return b
	}
	return &buffer{st: st}
}

// recycle gives b, freed and with no references, to its device's spares.
func (b *buffer) recycle() {
	b.block, b.ptr, b.size = nil, 0, 0
	b.st.spare.Put(b)
}

// acquire pins c's buffer for an operation. It reports false, holding
// nothing, when the handle was released (see above for the second check).
func (c *core) acquire() bool {
	if c.released.Load() {
		return false
	}
	if afterReleasedCheck != nil {
		afterReleasedCheck(c)
	}
	if !c.buf.pin() {
		return false
	}
	if c.released.Load() {
		_ = c.buf.unref() // maybe another array's buffer: its free, if this was its last reference, is counted
		return false
	}
	return true
}

// afterReleasedCheck, when set (tests only), runs in acquire between the
// first check and the pin: where a Release on another goroutine, and the
// reuse of the freed buffer, can fall.
var afterReleasedCheck func(*core)

// sharesBuffer reports whether c and d are handles on one buffer, for
// aliasing checks made before the operation acquires them. A released
// handle shares nothing: its buffer may be another array's by now, and
// the operation's acquire reports the release.
func (c *core) sharesBuffer(d *core) bool {
	return c.buf == d.buf && !c.released.Load() && !d.released.Load()
}
