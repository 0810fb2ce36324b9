package memory

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
)

// Block is one allocation handed out by a Resource: an address, a size and
// the stream it was allocated on. Handing out *Block (rather than a bare
// pointer) lets Free find its bookkeeping without a lookup; the caching pool
// recycles Block values, so a Block must not be touched after Free.
type Block struct {
	ptr    device.Ptr
	size   uint64 // bytes the block spans (the request rounded up)
	class  uint64 // the rounded request the block was handed out for (its front-cache bin)
	req    uint64 // bytes requested
	stream *device.Stream
	owner  Resource // the resource that made the block (adaptors pass it through)
	state  blockState
	// indexed says the block is in the best-fit index. Unlike state it is
	// only ever touched under the pool's lock, so the pool may look at the
	// neighbours of a block while their owners use them.
	indexed bool
	nosync  bool // the owner already ordered every use before the free (Direct skips its sync)
	fresh   bool // see Fresh
	// prof is the profile bucket of a sampled block while it is
	// allocated (profile.go), nil otherwise.
	prof *bucket

	// Streams declared with RecordUse while the block is allocated.
	uses []*device.Stream

	// tag is the block's user's object (SetTag), kept across reuses of
	// the Block value.
	tag unsafe.Pointer

	// Caching pool bookkeeping.
	sc           *streamCache // the stream the block belongs to (allocated or front-cached)
	seg          *segment
	prev, next   *Block // address neighbours within seg
	fprev, fnext *Block // front-cache bin list
	lprev, lnext *Block // front-cache age list (newest first)
	left, right  *Block // best-fit index (treap)
	prio         uint32
	waits        []waitRef // what a stream must wait for before using a free block
}

type blockState uint8

const (
	stateSpare     blockState = iota // recycled struct, not describing memory
	stateAllocated                   // held by a user
	stateFront                       // freed into its stream's front cache
	stateFree                        // in the best-fit index
	statePending                     // freed after RecordUse; waiting for other streams
	stateFreeing                     // between a free and the pool's lock
)

func (s blockState) String() string {
	return [...]string{"spare", "allocated", "front-cached", "free", "pending", "freeing"}[s]
}

// Ptr is the block's device address.
func (b *Block) Ptr() device.Ptr { return b.ptr }

// Size is the number of bytes requested.
func (b *Block) Size() uint64 { return b.req }

// Capacity is the number of bytes the block spans (Size rounded up to the
// resource's granularity); all of them may be used.
func (b *Block) Capacity() uint64 { return b.size }

// Fresh reports whether some of the block's memory was never part of a
// block handed out before: a new segment's (or a new cuMemAllocManaged
// region's), or beyond what its segment covered so far. Fresh managed
// memory has no page placed anywhere yet: its first user decides where
// the pages go (package lifetime prefetches it to the device of its first
// GPU use, so the GPU does not fault it in page by page). A block reused
// from a cache is not fresh.
func (b *Block) Fresh() bool { return b.fresh }

// Tag is what SetTag last stored in the Block value, nil if nothing.
//
// The caching pools hand the same *Block out again for a later allocation
// of the same memory (or of other memory, once a Block value is reused),
// and the tag stays with the value: a user keeps an object of its own
// per block there, reused with the block instead of allocated per
// allocation. Only the block's current holder (between Alloc and Free)
// may call Tag or SetTag, so whatever the tag points to is the holder's
// until Free; what it holds must be idle before Free, as the next
// holder may take it at once. Blocks of resources that make a Block per
// allocation (Direct, Managed, Expandable) start with no tag every time.
func (b *Block) Tag() unsafe.Pointer { return b.tag }

// SetTag sets b's tag (see Tag).
func (b *Block) SetTag(p unsafe.Pointer) { b.tag = p }

// Stream is the stream the block was allocated on; Free is ordered on it.
func (b *Block) Stream() *device.Stream { return b.stream }

// String is "block 0x7f00 (4096 bytes on stream 3)".
func (b *Block) String() string {
	var h uintptr
	if b.stream != nil {
		h = b.stream.Handle()
	}
	return fmt.Sprintf("block %v (%d bytes on stream %d)", b.ptr, b.req, h)
}

// recordUse is RecordUse of a resource that keeps its blocks' uses itself
// (Direct, DriverPool, Expandable, Managed): b must be owner's and not
// freed, s a stream of dev; mu guards the blocks' state. Errors name call.
func recordUse(call string, owner Resource, dev *device.Device, mu *sync.Mutex, b *Block, s *device.Stream) error {
	if b == nil || b.owner != owner {
		return invalid(call, "%v was not allocated by this resource", b)
	}
	if s == nil || s.Device() != dev {
		return invalid(call, "stream must belong to %s", dev)
	}
	mu.Lock()
	defer mu.Unlock()
	if b.state != stateAllocated {
		return invalid(call, "%v is freed", b)
	}
	b.addUse(s)
	return nil
}

// addUse records s in b.uses once.
func (b *Block) addUse(s *device.Stream) {
	if s == b.stream {
		return
	}
	for _, u := range b.uses {
		if u == s {
			return
		}
	}
	b.uses = append(b.uses, s)
}
