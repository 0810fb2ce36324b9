package memory

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

var walkMem []uintptr

// walkFrames on chains of frames built in memory: each frame is two
// words, the next frame pointer and the return address.
func TestWalkFrames(t *testing.T) {
	mem := make([]uintptr, 64)
	walkMem = mem // on the heap: a stack copy would not move the links
	frame := func(i int) unsafe.Pointer { return unsafe.Pointer(&mem[i]) }
	link := func(i, next int, pc uintptr) {
		mem[i] = 0
		if next >= 0 {
			mem[i] = uintptr(frame(next))
		}
		mem[i+1] = pc
	}
	// 0 -> 4 -> 10 -> end: return addresses 100, 101, 102.
	link(0, 4, 100)
	link(4, 10, 101)
	link(10, -1, 102)
	pcs := make([]uintptr, 8)
	n, h, ok := walkFrames(frame(0), 1, pcs)
	assert.Equal(t, hashPCs(pcs[:n]), h)
	assert.True(t, ok)
	assert.Equal(t, []uintptr{100, 101, 102}, pcs[:n], "stops at a zero frame pointer")
	n, h, ok = walkFrames(frame(0), 3, pcs)
	assert.Equal(t, hashPCs(pcs[:n]), h)
	assert.True(t, ok)
	assert.Equal(t, []uintptr{102}, pcs[:n], "skip")
	n, h, ok = walkFrames(frame(0), 1, pcs[:2])
	assert.Equal(t, hashPCs(pcs[:n]), h)
	assert.True(t, ok)
	assert.Equal(t, []uintptr{100, 101}, pcs[:n], "bounded depth")

	link(10, 20, 0)
	n, h, ok = walkFrames(frame(0), 1, pcs)
	assert.Equal(t, hashPCs(pcs[:n]), h)
	assert.True(t, ok)
	assert.Equal(t, []uintptr{100, 101}, pcs[:n], "stops at a zero return address")

	link(10, 4, 102) // a cycle: the frame pointer goes back
	_, _, ok = walkFrames(frame(0), 1, pcs)
	assert.False(t, ok, "frame pointers must increase")
	link(10, 10, 102)
	_, _, ok = walkFrames(frame(0), 1, pcs)
	assert.False(t, ok, "frame pointers must strictly increase")

	mem[4] = uintptr(frame(4)) + maxFrameGap + 8 // far away (never read)
	_, _, ok = walkFrames(frame(0), 1, pcs)
	assert.False(t, ok, "frame pointers at most maxFrameGap apart")
}
