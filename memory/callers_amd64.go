package memory

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// getfp returns its caller's frame pointer (callers_amd64.s).
func getfp() unsafe.Pointer

// maxFrameGap bounds the distance between two successive frame pointers
// that walkFrames accepts: more than any Go frame has in practice (the
// compiler moves variables of over 128 KiB to the heap), while a frame
// pointer that leaves the goroutine's stack (a C frame's register under a
// cgo callback, which points into another thread's stack) lands farther
// away. A larger step, or one that does not increase, means the chain is
// not one to trust, and runtime.Callers answers.
const maxFrameGap = 1 << 20

// captureStack interns the calling goroutine's stack from captureStack's
// caller, skip frames above it left out (frames of functions that are not
// inlined). On amd64 it walks the chain of frame pointers (walkFrames)
// instead of runtime.Callers' table lookups, and remembers each walk it
// made (stackMemo): a stack seen from the same frame before costs a check
// of the words the walk read, loads that do not wait on one another, and
// allocates nothing. A stack seen before from elsewhere costs a walk and
// a hash lookup, and the memo; a new one also a runtime.Callers, for the
// record's pcs, and the record. Where the chain fails walkFrames' checks,
// runtime.Callers' answer is interned.
//
//go:noinline
func captureStack(skip int) *stackRec {
	fp := getfp()
	set := &stackMemos[(uintptr(fp)>>4)&(memoSets-1)]
	for i := range set.ways {
		if m := set.ways[i].Load(); m != nil && m.skip == skip && m.matches(fp) {
			return m.rec
		}
	}
	var memo stackMemo
	var key [maxStackDepth]uintptr
	n, h, ok := walkFrames(fp, skip+1, key[:], &memo)
	if !ok {
		var pcs [maxStackDepth]uintptr
		return stacks.intern(pcs[:runtime.Callers(skip+2, pcs[:])])
	}
	rec := stacks.find(h, key[:n])
	if rec == nil {
		var pcs [maxStackDepth]uintptr
		rec = stacks.insert(h, key[:n], pcs[:runtime.Callers(skip+2, pcs[:])])
	}
	if memo.fp0 == 0 {
		return rec
	}
	memo.rec, memo.skip = rec, skip
	m := new(stackMemo)
	*m = memo
	set.ways[set.next.Add(1)%memoWays].Store(m)
	return rec
}

// stackMemo is one walk of walkFrames: the frame pointer it started from
// and the words it read, frame by frame, the return address and the
// caller's frame pointer, with the record of the stack they make and the
// frames left out of it (captureStack's skip). The words are kept as
// integers: a heap object must not point into a stack.
type stackMemo struct {
	fp0    uintptr
	skip   int
	frames int // frames read; the last one's next is unread where its pc is 0
	pc     [memoFrames]uintptr
	next   [memoFrames]uintptr
	rec    *stackRec
}

// memoFrames bounds the frames a memo holds: the most walkFrames reads
// for maxStackDepth program counters and the few frames skipped.
const memoFrames = maxStackDepth + 8

// stackMemos holds recent walks in sets by their first frame pointer, a
// few per set (walks from one frame that go on to different callers),
// the oldest replaced.
var stackMemos [memoSets]struct {
	ways [memoWays]atomic.Pointer[stackMemo]
	next atomic.Uint32
}

const (
	memoSets = 256
	memoWays = 4
)

// matches reports whether the stack from frame pointer fp holds the words
// m's walk read, so that a walk from fp would read the same and find the
// same stack. It starts only where m's walk started (fp = m.fp0), and each
// frame pointer it follows is m's copy, which the stack's own word has
// just been found equal to: the loads of successive frames do not wait on
// one another, and every address it reads is one that m's walk read and
// found trustworthy (walkFrames' checks).
//
// It reads the goroutine's own stack, which cannot move while it runs: it
// calls nothing and cannot grow the stack (nosplit).
//
//go:nosplit
//go:norace
//go:nocheckptr
func (m *stackMemo) matches(fp unsafe.Pointer) bool {
	if uintptr(fp) != m.fp0 {
		return false
	}
	for j := 0; j < m.frames; j++ {
		pc := *(*uintptr)(unsafe.Add(fp, unsafe.Sizeof(uintptr(0))))
		if pc != m.pc[j] {
			return false
		}
		if pc == 0 {
			return true
		}
		if *(*uintptr)(fp) != m.next[j] {
			return false
		}
		fp = *(*unsafe.Pointer)(unsafe.Pointer(&m.next[j]))
	}
	return true
}

// walkFrames writes the return addresses of the frames from fp outwards
// to pcs, the first skip−1 left out, and returns how many it wrote and
// their hashPCs; on amd64 each frame's frame pointer holds its caller's
// frame pointer, and the word above it the return address into the
// caller. The program counters are those of the physical frames: a frame
// whose calls were inlined contributes one, where runtime.Callers writes
// one per logical frame, and wrapper frames that runtime.Callers leaves
// out are kept; skip counts physical frames. It stops at a zero frame
// pointer or return address or when pcs is full; it reports false when
// the chain is not one to trust (frame pointers must strictly increase,
// at most maxFrameGap apart). When m is not nil it records the walk there
// (stackMemo), or sets m.fp0 to 0 where the walk does not fit.
//
// It reads the goroutine's own stack, which cannot move while it runs: it
// calls nothing and cannot grow the stack (nosplit).
//
//go:nosplit
//go:norace
//go:nocheckptr
func walkFrames(fp unsafe.Pointer, skip int, pcs []uintptr, m *stackMemo) (n int, hash uint64, ok bool) {
	h := uint64(hashStart)
	if m != nil {
		m.fp0, m.frames = uintptr(fp), 0
	}
	for i := 1; n < len(pcs) && fp != nil; i++ {
		pc := *(*uintptr)(unsafe.Add(fp, unsafe.Sizeof(uintptr(0))))
		if m != nil {
			if m.frames == memoFrames { // too deep to remember: no memo
				m.fp0, m = 0, nil
			} else {
				m.pc[m.frames] = pc
				m.frames++
			}
		}
		if pc == 0 {
			break
		}
		if i >= skip {
			pcs[n] = pc
			n++
			h = (h ^ uint64(pc)) * hashPrime
		}
		next := *(*unsafe.Pointer)(fp)
		if next != nil && (uintptr(next) <= uintptr(fp) || uintptr(next)-uintptr(fp) > maxFrameGap) {
			return n, h, false
		}
		if m != nil {
			m.next[m.frames-1] = uintptr(next)
		}
		fp = next
	}
	return n, h, true
}
