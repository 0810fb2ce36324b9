package memory

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var walkMem []uintptr

// frameChain is memory for chains of frames (each frame two words, the
// next frame pointer and the return address) on the heap, where a stack
// copy would not move the links: frame(i) is the frame at word i, and
// link(i, next, pc) writes frame i (next < 0: the last one).
func frameChain() (mem []uintptr, frame func(int) unsafe.Pointer, link func(i, next int, pc uintptr)) {
	mem = make([]uintptr, 64)
	walkMem = mem
	frame = func(i int) unsafe.Pointer { return unsafe.Pointer(&mem[i]) }
	link = func(i, next int, pc uintptr) {
		mem[i] = 0
		if next >= 0 {
			mem[i] = uintptr(frame(next))
		}
		mem[i+1] = pc
	}
	return mem, frame, link
}

// walkFrames on chains of frames built in memory: each frame is two
// words, the next frame pointer and the return address.
func TestWalkFrames(t *testing.T) {
	mem, frame, link := frameChain()
	// 0 -> 4 -> 10 -> end: return addresses 100, 101, 102.
	link(0, 4, 100)
	link(4, 10, 101)
	link(10, -1, 102)
	pcs := make([]uintptr, 8)
	n, h, ok := walkFrames(frame(0), 1, pcs, nil)
	assert.Equal(t, hashPCs(pcs[:n]), h)
	assert.True(t, ok)
	assert.Equal(t, []uintptr{100, 101, 102}, pcs[:n], "stops at a zero frame pointer")
	n, h, ok = walkFrames(frame(0), 3, pcs, nil)
	assert.Equal(t, hashPCs(pcs[:n]), h)
	assert.True(t, ok)
	assert.Equal(t, []uintptr{102}, pcs[:n], "skip")
	n, h, ok = walkFrames(frame(0), 1, pcs[:2], nil)
	assert.Equal(t, hashPCs(pcs[:n]), h)
	assert.True(t, ok)
	assert.Equal(t, []uintptr{100, 101}, pcs[:n], "bounded depth")

	link(10, 20, 0)
	n, h, ok = walkFrames(frame(0), 1, pcs, nil)
	assert.Equal(t, hashPCs(pcs[:n]), h)
	assert.True(t, ok)
	assert.Equal(t, []uintptr{100, 101}, pcs[:n], "stops at a zero return address")

	link(10, 4, 102) // a cycle: the frame pointer goes back
	_, _, ok = walkFrames(frame(0), 1, pcs, nil)
	assert.False(t, ok, "frame pointers must increase")
	link(10, 10, 102)
	_, _, ok = walkFrames(frame(0), 1, pcs, nil)
	assert.False(t, ok, "frame pointers must strictly increase")

	mem[4] = uintptr(frame(4)) + maxFrameGap + 8 // far away (never read)
	_, _, ok = walkFrames(frame(0), 1, pcs, nil)
	assert.False(t, ok, "frame pointers at most maxFrameGap apart")
}

// callers is runtime.Callers(skip, pcs) for skip ≥ 1 by walkFrames (the
// physical frames), and hashPCs of its stack; runtime.Callers' answer where
// the chain fails walkFrames' checks.
//
//go:noinline
func callers(skip int, pcs []uintptr) (n int, hash uint64) {
	if n, h, ok := walkFrames(getfp(), skip, pcs, nil); ok {
		return n, h
	}
	n = runtime.Callers(skip+1, pcs)
	return n, hashPCs(pcs[:n])
}

// A memo (stackMemo) of a walk matches the chain it was made from, and no
// longer once any word the walk read differs: a return address, a link,
// or where the walk ended.
func TestStackMemoMatches(t *testing.T) {
	mem, frame, link := frameChain()
	build := func() {
		link(0, 4, 100)
		link(4, 10, 101)
		link(10, 20, 102)
		link(20, -1, 103)
	}
	pcs := make([]uintptr, 8)
	for _, c := range []struct {
		name  string
		skip  int
		depth int
		edit  func()
	}{
		{"a return address", 1, 8, func() { mem[11] = 999 }},
		{"a skipped frame's return address", 3, 8, func() { mem[1] = 999 }},
		{"a link", 1, 8, func() { mem[4] = uintptr(frame(12)); link(12, 20, 102) }},
		{"the end of the chain", 1, 8, func() { link(20, 30, 103); link(30, -1, 104) }},
		{"a return address past a full buffer", 1, 2, func() { mem[11] = 999 }},
	} {
		build()
		var m stackMemo
		_, _, ok := walkFrames(frame(0), c.skip, pcs[:c.depth], &m)
		require.True(t, ok)
		require.NotZero(t, m.fp0)
		assert.True(t, m.matches(frame(0)), "%s: the walk's own chain", c.name)
		assert.False(t, m.matches(frame(4)), "%s: another first frame", c.name)
		c.edit()
		if c.name == "a return address past a full buffer" {
			// A frame beyond the full buffer was never read: the memo
			// still matches, as a walk finds the same stack.
			assert.True(t, m.matches(frame(0)), c.name)
			continue
		}
		assert.False(t, m.matches(frame(0)), "%s changed", c.name)
	}

	// A chain that ends at a zero return address: the memo holds that
	// frame's return address and no link, and matches until it changes.
	build()
	link(10, 20, 0)
	var m stackMemo
	_, _, ok := walkFrames(frame(0), 1, pcs, &m)
	require.True(t, ok)
	assert.True(t, m.matches(frame(0)))
	mem[20+1] = 555 // beyond the end: never read
	assert.True(t, m.matches(frame(0)))
	mem[11] = 102
	assert.False(t, m.matches(frame(0)), "the zero return address became one")

	// A walk longer than a memo holds leaves none.
	long := make([]uintptr, 2*(memoFrames+2))
	walkMem = long
	for i := 0; i+2 < len(long); i += 2 {
		long[i] = uintptr(unsafe.Pointer(&long[i+2]))
		long[i+1] = uintptr(1000 + i)
	}
	big := make([]uintptr, memoFrames+4)
	_, _, ok = walkFrames(unsafe.Pointer(&long[0]), 1, big, &m)
	require.True(t, ok)
	assert.Zero(t, m.fp0, "no memo of a walk that does not fit")
}

//go:noinline
func siteA(depth int) stackPair {
	if depth > 0 {
		return siteA(depth - 1)
	}
	return captureBoth(0)
}

//go:noinline
func siteB(depth int) stackPair {
	if depth > 0 {
		return siteB(depth - 1)
	}
	return captureBoth(0)
}

// Captures that alternate between call sites whose first frames are the
// same, from the same frame pointer (one set of memos), each give their
// own stack: the memos are told apart by the words they read.
func TestCaptureStackAlternatingSites(t *testing.T) {
	for i := range 200 {
		var p stackPair
		switch i % 3 {
		case 0:
			p = siteA(3)
		case 1:
			p = siteB(3)
		default:
			p = siteA(4)
		}
		require.Equal(t, p.want, p.got, "capture %d", i)
	}
}
