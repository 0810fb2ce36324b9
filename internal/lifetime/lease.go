package lifetime

import (
	"sync/atomic"
	"unsafe"
)

// Lease is an array handle's lease on direct CPU access to its elements,
// for packages whose loops read and write the memory of arrays the CPU
// addresses (package unified's View, through internal/arrayhook's
// PrepareHostAccess, which returns it with the layout). It is part of the handle: a pointer to it keeps the
// array reachable, so a loop that reads it on every access keeps the array
// alive for as long as the loop runs.
//
// Run is the number of elements such a loop may address as one row-major
// run from the layout's Ptr while the handle is unreleased: the array's
// element count when its elements are packed row-major (size-1 axes
// aside), else -1 (a strided view, an empty array). Release sets it to 0
// before it gives the memory back, so a loop that checks each index
// against Run never touches memory the array no longer owns, whichever
// goroutine released it before, and a loop that tests Run for 0 sees the
// Release. Run is one plain load, cheap enough for every element: a
// Release on one goroutine racing that load on another is a data race in
// the program (the race detector reports it), as using an array's memory
// while releasing it is.
type Lease struct {
	n int // written with atomic stores through word, read plainly by Run
}

// Run is the elements the CPU may address as one run, -1 when it may
// address them otherwise, 0 once the array is released (see Lease).
func (l *Lease) Run() int { return l.n }

// int and uintptr have one size on every platform, for the atomic stores.
var _ [unsafe.Sizeof(0) - unsafe.Sizeof(uintptr(0))]struct{}

func (l *Lease) word() *uintptr { return (*uintptr)(unsafe.Pointer(&l.n)) }

// OpenLease sets h's lease for a host access about to be lent, and reports
// false, leaving it 0, when h is released. The caller holds a reference on
// h's buffer (Acquire), so a Release racing this cannot free the memory
// while the lease briefly says otherwise. The lease is written once (a
// handle's run never changes), under the buffer's lock, which every host
// access takes here: the write happens before any plain read through the
// lease, whichever goroutine's access came first.
func (h *Handle) OpenLease() bool {
	n := -1
	if l := h.Len(); l > 0 && h.hostRun() {
		n = l
	}
	p := h.lease.word()
	b := h.buf
	b.Lock()
	if atomic.LoadUintptr(p) == 0 {
		atomic.StoreUintptr(p, uintptr(n))
	}
	b.Unlock()
	if h.released.Load() {
		h.endLease()
		return false
	}
	return true
}

// endLease ends h's lease: Release calls it before it drops its reference.
func (h *Handle) endLease() {
	if p := h.lease.word(); atomic.LoadUintptr(p) != 0 {
		atomic.StoreUintptr(p, 0)
	}
}

// hostRun reports whether h's elements are packed row-major from ptr(),
// size-1 axes aside.
func (h *Handle) hostRun() bool {
	st := h.Strides()
	if st == nil {
		return true
	}
	want := 1
	sh := h.Shape()
	for i := len(sh) - 1; i >= 0; i-- {
		if d := sh[i]; d != 1 {
			if st[i] != want {
				return false
			}
			want *= d
		}
	}
	return true
}

// Lease is h's lease (see Lease), open once OpenLease returned true.
func (h *Handle) Lease() *Lease { return &h.lease }
