package memory

import (
	"fmt"
)

// checkInvariants verifies the pool's whole structure; call it only when no
// other goroutine uses the pool. It returns the first violation.
//
//   - every segment is tiled by its blocks, in address order, with no two
//     free neighbours (coalescing is complete);
//   - every block is in exactly one place that matches its state: user,
//     a front cache (bin and age list), the index, the pending list;
//   - both indexes are valid treaps (key order, heap order) with the right
//     counts and bytes;
//   - reserved = allocated + front-cached + indexed + pending, per stream
//     the shard counts its allocated blocks, and the split counters match.
func (p *CachingPool) checkInvariants() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.reg.Load()
	for _, sc := range r.all {
		sc.mu.Lock()
		defer sc.mu.Unlock()
	}

	where := map[*Block]string{}
	// Front caches.
	var frontBytes uint64
	for _, sc := range r.all {
		n, bytes := 0, uint64(0)
		var prev *Block
		for b := sc.newest; b != nil; b = b.lnext {
			if b.lprev != prev {
				return fmt.Errorf("front age list of stream %d broken at %v", sc.stream.Handle(), b)
			}
			prev = b
			if b.state != stateFront || b.sc != sc {
				return fmt.Errorf("%v in the front cache of stream %d is %s of stream %p", b, sc.stream.Handle(), b.state, b.sc)
			}
			if where[b] != "" {
				return fmt.Errorf("%v twice (front, %s)", b, where[b])
			}
			where[b] = "front"
			n++
			bytes += b.size
		}
		if prev != sc.oldest {
			return fmt.Errorf("front oldest of stream %d is wrong", sc.stream.Handle())
		}
		if n != sc.count || bytes != sc.bytes {
			return fmt.Errorf("front cache of stream %d counts %d blocks %d bytes, holds %d, %d", sc.stream.Handle(), sc.count, sc.bytes, n, bytes)
		}
		binned := 0
		checkBin := func(class uint64, head *Block) error {
			var prev *Block
			for b := head; b != nil; b = b.fnext {
				if b.fprev != prev || b.class != class || where[b] != "front" {
					return fmt.Errorf("front bin %d of stream %d broken at %v", class, sc.stream.Handle(), b)
				}
				prev = b
				binned++
			}
			return nil
		}
		for i, h := range sc.small {
			if err := checkBin(uint64(i)*minBlockSize, h); err != nil {
				return err
			}
		}
		for c, h := range sc.large {
			if err := checkBin(c, h); err != nil {
				return err
			}
		}
		if binned != n {
			return fmt.Errorf("stream %d: %d front blocks binned, %d listed", sc.stream.Handle(), binned, n)
		}
		frontBytes += bytes
	}
	// Indexes.
	for _, x := range []*index{&p.small, &p.large} {
		n, bytes := 0, uint64(0)
		var check func(t *Block, lo, hi *Block) error
		check = func(t *Block, lo, hi *Block) error {
			if t == nil {
				return nil
			}
			if lo != nil && !blockBefore(lo, t.size, t.ptr) || hi != nil && !blockBefore(t, hi.size, hi.ptr) {
				return fmt.Errorf("index out of key order at %v", t)
			}
			for _, c := range []*Block{t.left, t.right} {
				if c != nil && c.prio > t.prio {
					return fmt.Errorf("index out of heap order at %v", t)
				}
			}
			if t.state != stateFree {
				return fmt.Errorf("%v in the index is %s", t, t.state)
			}
			if (x == &p.small) != t.seg.small {
				return fmt.Errorf("%v in the wrong index", t)
			}
			if where[t] != "" {
				return fmt.Errorf("%v twice (index, %s)", t, where[t])
			}
			where[t] = "index"
			n++
			bytes += t.size
			if err := check(t.left, lo, t); err != nil {
				return err
			}
			return check(t.right, t, hi)
		}
		for c, root := range x.roots {
			if (root != nil) != (x.full[c/64]&(1<<(c%64)) != 0) {
				return fmt.Errorf("index class %d: bitmap disagrees", c)
			}
			for b := root; b != nil; b = b.left {
				if sizeClass(b.size) != c {
					return fmt.Errorf("%v in index class %d", b, c)
				}
			}
			if err := check(root, nil, nil); err != nil {
				return err
			}
		}
		if n != x.n || bytes != x.bytes {
			return fmt.Errorf("index counts %d blocks %d bytes, holds %d, %d", x.n, x.bytes, n, bytes)
		}
	}
	// Pending.
	var pendingBytes uint64
	for _, b := range p.pending {
		if b.state != statePending || where[b] != "" {
			return fmt.Errorf("pending %v is %s (%s)", b, b.state, where[b])
		}
		where[b] = "pending"
		pendingBytes += b.size
	}
	// Segments.
	var reserved, splitBytes, splitN uint64
	allocated := map[*streamCache][2]uint64{}
	for i, s := range p.segs {
		if s.pos != i {
			return fmt.Errorf("segment %v at %d says %d", s.ptr, i, s.pos)
		}
		reserved += s.size
		at := s.ptr
		var prev *Block
		for b := s.head; b != nil; b = b.next {
			if b.seg != s || b.prev != prev || b.ptr != at {
				return fmt.Errorf("segment %v not tiled at %v (expected %v)", s.ptr, b, at)
			}
			if b.size == 0 || b.size%minBlockSize != 0 {
				return fmt.Errorf("%v has size %d", b, b.size)
			}
			if b.indexed != (b.state == stateFree) {
				return fmt.Errorf("%v is %s but indexed=%v", b, b.state, b.indexed)
			}
			if prev != nil && prev.state == stateFree && b.state == stateFree {
				return fmt.Errorf("free neighbours %v and %v not merged", prev, b)
			}
			switch b.state {
			case stateAllocated:
				if where[b] != "" {
					return fmt.Errorf("allocated %v is also in %s", b, where[b])
				}
				where[b] = "user"
				c := allocated[b.sc]
				allocated[b.sc] = [2]uint64{c[0] + b.size, c[1] + 1}
				if b.stream != b.sc.stream || b.owner != p {
					return fmt.Errorf("allocated %v has the wrong stream or owner", b)
				}
			case stateFront, stateFree, statePending:
				if where[b] == "" {
					return fmt.Errorf("%s %v is in no list", b.state, b)
				}
			default:
				return fmt.Errorf("%v is %s", b, b.state)
			}
			if b.state == stateFree && (b.prev != nil || b.next != nil) {
				splitBytes += b.size
				splitN++
			}
			at = at.Add(b.size)
			prev = b
		}
		if at != s.ptr.Add(s.size) {
			return fmt.Errorf("segment %v of %d bytes tiled to %v", s.ptr, s.size, at)
		}
	}
	for b, w := range where {
		if b.seg == nil || b.seg.pos >= len(p.segs) || p.segs[b.seg.pos] != b.seg {
			return fmt.Errorf("%v (%s) belongs to no live segment", b, w)
		}
	}
	var allocBytes uint64
	for _, sc := range r.all {
		c := allocated[sc]
		if sc.sh.bytes != c[0] || sc.sh.count != c[1] {
			return fmt.Errorf("stream %d counts %d bytes in %d blocks allocated, holds %d in %d",
				sc.stream.Handle(), sc.sh.bytes, sc.sh.count, c[0], c[1])
		}
		allocBytes += c[0]
	}
	if reserved != p.a.reserved.Current || uint64(len(p.segs)) != p.a.segments.Current {
		return fmt.Errorf("reserved %d in %d segments, stats say %d in %d", reserved, len(p.segs), p.a.reserved.Current, p.a.segments.Current)
	}
	if idx := p.small.bytes + p.large.bytes; reserved != allocBytes+frontBytes+idx+pendingBytes {
		return fmt.Errorf("reserved %d != allocated %d + front %d + index %d + pending %d", reserved, allocBytes, frontBytes, idx, pendingBytes)
	}
	if splitBytes != p.a.splitBytes.Current || splitN != p.a.splitN.Current {
		return fmt.Errorf("inactive split %d bytes in %d blocks, stats say %d in %d", splitBytes, splitN, p.a.splitBytes.Current, p.a.splitN.Current)
	}
	return nil
}
