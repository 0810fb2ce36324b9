package device

import (
	"sort"
	"sync"
	"unsafe"
)

// AllocHost allocates n bytes of page-locked ("pinned") host memory
// (cuMemAllocHost). Asynchronous copies between it and the device do not
// wait for the CPU, so it is what staged transfers go through; it is slow
// to allocate (keep and reuse it) and outside the Go heap. The slice is
// valid until FreeHost; it must not hold Go pointers.
func (d *Device) AllocHost(n uint64) ([]byte, error) {
	if n == 0 {
		return nil, invalid("Device.AllocHost", "size 0")
	}
	p, err := d.drv.AllocHost(n)
	if err != nil {
		return nil, err
	}
	pinnedRanges.add(uintptr(p), uintptr(n))
	return unsafe.Slice((*byte)(p), n), nil
}

// FreeHost releases memory from AllocHost; b must be the whole slice
// AllocHost returned (or start where it does). Anything else, or freeing
// twice, is an error matching ErrInvalidValue.
func (d *Device) FreeHost(b []byte) error {
	if len(b) == 0 {
		return invalid("Device.FreeHost", "empty slice: not an allocation from AllocHost")
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if err := d.drv.FreeHost(p); err != nil {
		return err
	}
	pinnedRanges.remove(uintptr(p))
	return nil
}

// IsPinned reports whether the n bytes at p lie inside one live
// allocation from AllocHost (of any device). A copy from such memory is
// asynchronous all the way (the DMA reads it when the stream gets there),
// where a copy from pageable memory has been staged when the call returns:
// callers that promise their caller the source is free for reuse on return
// must wait for the copy when it is pinned.
func IsPinned(p unsafe.Pointer, n uint64) bool {
	return pinnedRanges.contains(uintptr(p), uintptr(n))
}

// pinnedRanges are the live AllocHost allocations, sorted by address.
var pinnedRanges rangeSet

type rangeSet struct {
	mu sync.RWMutex
	r  []struct{ lo, n uintptr }
}

func (s *rangeSet) add(lo, n uintptr) {
	s.mu.Lock()
	i := sort.Search(len(s.r), func(i int) bool { return s.r[i].lo >= lo })
	s.r = append(s.r, struct{ lo, n uintptr }{})
	copy(s.r[i+1:], s.r[i:])
	s.r[i] = struct{ lo, n uintptr }{lo, n}
	s.mu.Unlock()
}

func (s *rangeSet) remove(lo uintptr) {
	s.mu.Lock()
	i := sort.Search(len(s.r), func(i int) bool { return s.r[i].lo >= lo })
	if i < len(s.r) && s.r[i].lo == lo {
		s.r = append(s.r[:i], s.r[i+1:]...)
	}
	s.mu.Unlock()
}

func (s *rangeSet) contains(p, n uintptr) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	// The last allocation starting at or before p.
	i := sort.Search(len(s.r), func(i int) bool { return s.r[i].lo > p }) - 1
	return i >= 0 && p-s.r[i].lo <= s.r[i].n && n <= s.r[i].n-(p-s.r[i].lo)
}
