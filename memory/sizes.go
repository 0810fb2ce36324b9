package memory

// Size classes and segment sizes: how a request is rounded, which index
// it is served from, and how big a segment the pool asks upstream for.

// Size classes, after PyTorch's caching allocator.
const (
	minBlockSize  = 512      // every request is rounded up to a multiple of this
	smallSize     = 1 << 20  // requests up to this size are small
	smallSegment  = 2 << 20  // small requests share segments of this size
	largeSegment  = 20 << 20 // segment for large requests below minLargeAlloc
	minLargeAlloc = 10 << 20 // from this size a segment is the request rounded to roundLarge
	roundLarge    = 2 << 20

	// Small segments grow with the small pool: an eighth of what the pool
	// already reserves for small blocks, in multiples of smallSegment, up to
	// maxSmallSegment. A program with gigabytes of small blocks then costs
	// hundreds of driver allocations rather than thousands.
	maxSmallSegment = 32 << 20
	// Mid-size segments (requests of 1 to 10 MiB) grow the same way, up
	// to maxMidSegment (see midSegmentSize).
	maxMidSegment = 256 << 20

	maxRequest = 1 << 62 // larger requests fail at once (rounding would overflow)
)

// roundSize rounds a request to the pool's granularity.
func roundSize(n uint64) uint64 {
	if n < minBlockSize {
		return minBlockSize
	}
	return (n + minBlockSize - 1) &^ (minBlockSize - 1)
}

func roundUp(n, to uint64) uint64 { return (n + to - 1) / to * to }

// smallSegmentSize is the size of the next small segment when small
// segments already reserve reserved bytes.
func smallSegmentSize(reserved uint64) uint64 {
	return min(max(reserved/8/smallSegment*smallSegment, smallSegment), maxSmallSegment)
}

// midSegmentSize is the segment for a mid-size request whose own segment
// (segmentSize) is base, when the pool's large segments already reserve
// reserved bytes: an eighth of that in multiples of base, up to
// maxMidSegment, and never less than base.
//
// A program whose temporaries are left to the GC fills the pool up to its
// limit between collections, each new segment a synchronous driver
// allocation that the program waits for. Growing with the pool makes the
// number of segments grow with the logarithm of the pool's size rather
// than linearly (BENCHMARKS.md, the runs at 0c0a349). A pool whose large
// segments stay under 8·base keeps base-sized ones.
func midSegmentSize(base, reserved uint64) uint64 {
	return max(base, min(reserved/8, maxMidSegment)/base*base)
}

// segmentSize is the segment obtained upstream for a request of size bytes
// (the first segment, for a small one).
//
// A mid-size request (1 to 10 MiB) gets room for as many blocks of its size
// as fit in largeSegment, rounded up to roundLarge, rather than PyTorch's
// 20 MiB: programs repeat their sizes (a batch per step), and 20 MiB holds
// two 7.8 MiB blocks with 4.4 MiB left that only a smaller large request
// could use. Under a hard limit that remainder is memory nothing can have;
// with the segment cut to the blocks it is at most roundLarge.
func segmentSize(size uint64) uint64 {
	switch {
	case size <= smallSize:
		return smallSegment
	case size < minLargeAlloc:
		return roundUp(largeSegment/size*size, roundLarge)
	default:
		return roundUp(size, roundLarge)
	}
}
