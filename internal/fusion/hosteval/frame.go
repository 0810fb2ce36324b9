package hosteval

import (
	"unsafe"
)

// chunk is the number of elements evaluated at once: large enough that a
// column operation's loop dominates its call, small enough that a
// program's columns stay in cache.
const chunk = 1024

// A frame is one goroutine's scratch for evaluating chunks: a column per
// slot (one slot per instruction, plus the extras program lists). A
// column is either the frame's own scratch or, for contiguous inputs and
// an elementwise kernel's result, device memory at the chunk.
type frame struct {
	col []unsafe.Pointer
	mem [][]uint64 // owned scratch, kept here so the GC keeps it
	off []int64    // element offsets of a strided or random operand
	idx []int64    // the index walk behind off
}

func newFrame(pr *program) *frame {
	fr := &frame{
		col: make([]unsafe.Pointer, pr.nslots),
		mem: make([][]uint64, pr.nslots),
		off: make([]int64, chunk),
		idx: make([]int64, max(pr.src.Rank, 1)),
	}
	for s, owned := range pr.owned {
		if owned {
			fr.mem[s] = make([]uint64, chunk*pr.words(s))
			fr.col[s] = unsafe.Pointer(&fr.mem[s][0])
		}
	}
	for _, c := range pr.consts {
		fill(fr.col[c.slot], c.bits, c.size)
	}
	return fr
}

// getFrame returns a frame with the launch's scalars in their columns.
func (pr *program) getFrame(ls *launch) *frame {
	fr, _ := pr.frames.Get().(*frame)
	if fr == nil {
		fr = newFrame(pr)
	}
	for _, s := range pr.scalars {
		fill(fr.col[s.slot], ls.scalars[s.index], s.size)
	}
	return fr
}

// putFrame drops the frame's pointers into device memory (they die with
// the launch) and keeps it for the next launch.
func (pr *program) putFrame(fr *frame) {
	for _, s := range pr.aliases {
		fr.col[s] = nil
	}
	pr.frames.Put(fr)
}

// words is the 8-byte words per element of slot s's scratch: 2 for a
// complex128 instruction, else 1.
func (pr *program) words(s int) int {
	if s < len(pr.src.Code) && pr.src.Code[s].T.Size() > 8 {
		return 2
	}
	if s == pr.out && pr.src.OutType().Size() > 8 {
		return 2
	}
	return 1
}

// fill sets a whole column to the value whose bits (see bitsOf) are v.
func fill(p unsafe.Pointer, v uint64, size int) {
	switch size {
	case 1:
		fillK(col[uint8](p, chunk), uint8(v))
	case 2:
		fillK(col[uint16](p, chunk), uint16(v))
	case 4:
		fillK(col[uint32](p, chunk), uint32(v))
	default:
		fillK(col[uint64](p, chunk), v)
	}
}

func fillK[T any](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}

// moveFor returns a kernel copying a column of elements of the given size.
func moveFor(size int) unaryK {
	switch size {
	case 1:
		return copyK[uint8]
	case 2:
		return copyK[uint16]
	case 4:
		return copyK[uint32]
	case 16:
		return copyK[[2]uint64]
	}
	return copyK[uint64]
}

// gatherFor returns a kernel that reads elements at the offsets off from
// the n-element span at base, for elements of the given size. Go's bounds
// checks stand behind the span computed from dims and strides.
func gatherFor(size int) func(o, base unsafe.Pointer, span int, off []int64) {
	switch size {
	case 1:
		return gatherK[uint8]
	case 2:
		return gatherK[uint16]
	case 4:
		return gatherK[uint32]
	case 16:
		return gatherK[[2]uint64]
	}
	return gatherK[uint64]
}

// scatterFor returns a kernel that writes a column of elements of the
// given size to the offsets off of the span-element array at base (a
// strided output).
func scatterFor(size int) func(base unsafe.Pointer, span int, src unsafe.Pointer, off []int64) {
	switch size {
	case 1:
		return scatterK[uint8]
	case 2:
		return scatterK[uint16]
	case 4:
		return scatterK[uint32]
	case 16:
		return scatterK[[2]uint64]
	}
	return scatterK[uint64]
}

func scatterK[T any](base unsafe.Pointer, span int, src unsafe.Pointer, off []int64) {
	v, s := col[T](base, span), col[T](src, len(off))
	for j, k := range off {
		v[k] = s[j]
	}
}

func gatherK[T any](o, base unsafe.Pointer, span int, off []int64) {
	v, os := col[T](base, span), col[T](o, len(off))
	for j, k := range off {
		os[j] = v[k]
	}
}
