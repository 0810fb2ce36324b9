package memory

import (
	"math/bits"

	"github.com/gpuarr/gpuarr/device"
)

// index is the caching pool's best-fit index: the free blocks of one kind
// (small or large) ordered by (size, address). Blocks are spread over size
// classes, four per power of two; each class is a treap threaded through
// the Block values themselves (left, right, prio), so insertion and removal
// allocate nothing, and a bitmap finds the next non-empty class. lowerBound
// is an exact best fit — the smallest block at least as large as the
// request, the lowest address among equals (keeping the low end of
// segments packed) — in O(log n) expected: a search in the request's class,
// else the first block of the next non-empty class. Free blocks of other
// sizes (many small holes, say) cost a lookup nothing.
type index struct {
	roots [indexBins]*Block
	full  [indexBins / 64]uint64 // bit per non-empty class
	n     int
	bytes uint64
	rng   uint32
}

const indexBins = 256

// sizeClass is 4*log2(size) plus the two bits below the leading one.
func sizeClass(size uint64) int {
	l := bits.Len64(size) - 1
	if l < 2 {
		return max(l, 0) * 4
	}
	return l*4 + int(size>>(l-2)&3)
}

// keyLess orders blocks by (size, ptr): it reports (size, ptr) < b's key.
func keyLess(size uint64, ptr device.Ptr, b *Block) bool {
	return size < b.size || size == b.size && ptr < b.ptr
}

// blockBefore reports b's key < (size, ptr).
func blockBefore(b *Block, size uint64, ptr device.Ptr) bool {
	return b.size < size || b.size == size && b.ptr < ptr
}

func (x *index) nextPrio() uint32 {
	// xorshift32: priorities only need to look random to the tree shape.
	r := x.rng
	if r == 0 {
		r = 2463534242
	}
	r ^= r << 13
	r ^= r >> 17
	r ^= r << 5
	x.rng = r
	return r
}

// insert adds b, keyed by its current size and address.
func (x *index) insert(b *Block) {
	b.left, b.right = nil, nil
	b.prio = x.nextPrio()
	c := sizeClass(b.size)
	x.roots[c] = treapInsert(x.roots[c], b)
	x.full[c/64] |= 1 << (c % 64)
	x.n++
	x.bytes += b.size
}

// remove takes b out; b must be in the index with the key it was inserted with.
func (x *index) remove(b *Block) {
	c := sizeClass(b.size)
	x.roots[c] = treapRemove(x.roots[c], b)
	if x.roots[c] == nil {
		x.full[c/64] &^= 1 << (c % 64)
	}
	b.left, b.right = nil, nil
	x.n--
	x.bytes -= b.size
}

// nextClass returns the first non-empty class at or after c, or -1.
func (x *index) nextClass(c int) int {
	for w := c / 64; w < len(x.full); w++ {
		m := x.full[w]
		if w == c/64 {
			m &^= 1<<(c%64) - 1
		}
		if m != 0 {
			return w*64 + bits.TrailingZeros64(m)
		}
	}
	return -1
}

// lowerBound returns the smallest block of at least size bytes, or nil.
func (x *index) lowerBound(size uint64) *Block {
	c := sizeClass(size)
	var best *Block
	for t := x.roots[c]; t != nil; {
		if t.size >= size {
			best = t
			t = t.left
		} else {
			t = t.right
		}
	}
	if best != nil {
		return best
	}
	if c = x.nextClass(c + 1); c < 0 {
		return nil
	}
	t := x.roots[c]
	for t.left != nil {
		t = t.left
	}
	return t
}

// largest returns the largest block, or nil.
func (x *index) largest() *Block {
	for w := len(x.full) - 1; w >= 0; w-- {
		if m := x.full[w]; m != 0 {
			t := x.roots[w*64+63-bits.LeadingZeros64(m)]
			for t.right != nil {
				t = t.right
			}
			return t
		}
	}
	return nil
}

// each calls f for every block in key order until f returns false.
func (x *index) each(f func(*Block) bool) {
	var walk func(t *Block) bool
	walk = func(t *Block) bool {
		return t == nil || walk(t.left) && f(t) && walk(t.right)
	}
	for _, r := range x.roots {
		if !walk(r) {
			return
		}
	}
}

func treapInsert(t, b *Block) *Block {
	if t == nil {
		return b
	}
	if b.prio > t.prio {
		b.left, b.right = treapSplit(t, b.size, b.ptr)
		return b
	}
	if keyLess(b.size, b.ptr, t) {
		t.left = treapInsert(t.left, b)
	} else {
		t.right = treapInsert(t.right, b)
	}
	return t
}

// treapSplit splits t into the blocks ordered before (size, ptr) and the rest.
func treapSplit(t *Block, size uint64, ptr device.Ptr) (l, r *Block) {
	if t == nil {
		return nil, nil
	}
	if blockBefore(t, size, ptr) {
		t.right, r = treapSplit(t.right, size, ptr)
		return t, r
	}
	l, t.left = treapSplit(t.left, size, ptr)
	return l, t
}

// treapMerge joins two treaps whose keys are all ordered l < r.
func treapMerge(l, r *Block) *Block {
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	case l.prio > r.prio:
		l.right = treapMerge(l.right, r)
		return l
	default:
		r.left = treapMerge(l, r.left)
		return r
	}
}

func treapRemove(t, b *Block) *Block {
	if t == nil {
		panic("memory: index lost a free block")
	}
	if t == b {
		return treapMerge(t.left, t.right)
	}
	if keyLess(b.size, b.ptr, t) {
		t.left = treapRemove(t.left, b)
	} else {
		t.right = treapRemove(t.right, b)
	}
	return t
}

func (p *CachingPool) indexOf(b *Block) *index {
	if b.seg.small {
		return &p.small
	}
	return &p.large
}

// insertFreeLocked makes b free: it merges b with free neighbours and puts
// the result in the index.
func (p *CachingPool) insertFreeLocked(b *Block) {
	if pr := b.prev; pr != nil && pr.indexed {
		p.removeIndexLocked(pr)
		p.mergeLocked(pr, b)
		b = pr
	}
	if nx := b.next; nx != nil && nx.indexed {
		p.removeIndexLocked(nx)
		p.mergeLocked(b, nx)
	}
	p.insertIndexLocked(b)
}

// mergeLocked grows b by its successor nx, which it recycles; neither is
// in the index.
func (p *CachingPool) mergeLocked(b, nx *Block) {
	b.size += nx.size
	b.next = nx.next
	if nx.next != nil {
		nx.next.prev = b
	}
	p.mergeWaitsLocked(b, nx)
	p.recycleLocked(nx)
}

func (p *CachingPool) insertIndexLocked(b *Block) {
	b.state, b.indexed = stateFree, true
	p.indexOf(b).insert(b)
	if b.prev != nil || b.next != nil {
		p.a.splitBytes.add(b.size)
		p.a.splitN.add(1)
	}
}

func (p *CachingPool) removeIndexLocked(b *Block) {
	p.indexOf(b).remove(b)
	b.state, b.indexed = stateFreeing, false
	if b.prev != nil || b.next != nil {
		p.a.splitBytes.sub(b.size)
		p.a.splitN.sub(1)
	}
}
