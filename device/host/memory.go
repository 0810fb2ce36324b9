package host

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Device memory is anonymous private mappings, one per allocation: outside
// the Go heap, so the GC neither scans nor moves it, and its address is a
// stable device pointer (never 0, unique among live allocations of every
// host device). The global index maps any pointer, interior ones included,
// back to its allocation.

// allocation is one mapping.
type allocation struct {
	base, size uint64
	dev        *device
	mem        []byte   // the slice Mmap returned; Munmap needs it back
	pool       *memPool // non-nil for blocks of a MemPool
	vm         *vmRange // non-nil for an address reservation (VMReserve)
	managed    bool     // from AllocManaged: the CPU addresses it (quarantine.go)

	freeQueued atomic.Bool // a free is queued or under way: a second one is a double free

	// Pins count the copies and kernels using mem right now; unmapping
	// waits for them, so a use racing a free reads stale or poisoned bytes
	// (a wrong answer a test can see) instead of faulting the process.
	mu       sync.Mutex
	unpinned sync.Cond
	pins     int
}

func (a *allocation) pin() {
	a.mu.Lock()
	a.pins++
	a.mu.Unlock()
}

func (a *allocation) unpin() {
	a.mu.Lock()
	if a.pins--; a.pins == 0 {
		a.unpinned.Broadcast()
	}
	a.mu.Unlock()
}

func (a *allocation) waitUnpinned() {
	a.mu.Lock()
	for a.pins > 0 {
		a.unpinned.Wait()
	}
	a.mu.Unlock()
}

// allocIndex holds live allocations sorted by base address.
type allocIndex struct {
	mu    sync.RWMutex
	alloc []*allocation
}

var index allocIndex

func cmpBase(a *allocation, p uint64) int {
	switch {
	case a.base < p:
		return -1
	case a.base > p:
		return 1
	}
	return 0
}

func (x *allocIndex) insert(a *allocation) {
	x.mu.Lock()
	i, _ := slices.BinarySearchFunc(x.alloc, a.base, cmpBase)
	x.alloc = slices.Insert(x.alloc, i, a)
	x.mu.Unlock()
}

// remove takes a out of the index; it reports false when a was not there
// (another goroutine freed it first).
func (x *allocIndex) remove(a *allocation) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	i, found := slices.BinarySearchFunc(x.alloc, a.base, cmpBase)
	if !found || x.alloc[i] != a {
		return false
	}
	x.alloc = slices.Delete(x.alloc, i, i+1)
	return true
}

// findLocked returns the allocation containing p, or nil.
func (x *allocIndex) findLocked(p uint64) *allocation {
	i, found := slices.BinarySearchFunc(x.alloc, p, cmpBase)
	if found {
		return x.alloc[i]
	}
	if i == 0 {
		return nil
	}
	if a := x.alloc[i-1]; p-a.base < a.size {
		return a
	}
	return nil
}

// lookup returns the live allocation containing p, or nil.
func (x *allocIndex) lookup(p driver.Ptr) *allocation {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.findLocked(uint64(p))
}

// pin resolves [p, p+n) to the bytes of one live allocation and pins it;
// the caller unpins when done with the bytes. On failure it says why, for
// the caller's error.
func (x *allocIndex) pin(p driver.Ptr, n uint64) (*allocation, []byte, string) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	a := x.findLocked(uint64(p))
	if a == nil {
		return nil, nil, fmt.Sprintf("%v is not inside any live allocation", p)
	}
	off := uint64(p) - a.base
	if n > a.size-off {
		return nil, nil, fmt.Sprintf("[%v, +%d) runs %d bytes past the end of allocation %#x (%d bytes on %s)",
			p, n, n-(a.size-off), a.base, a.size, a.dev)
	}
	if a.vm != nil {
		if why := a.vm.unmapped(p, off, n); why != "" {
			return nil, nil, why
		}
	}
	a.pin() // under the read lock, so a free cannot slip in between
	return a, a.mem[off : off+n : off+n], ""
}

// allocate maps n bytes on d, charged to its capacity; pool is the
// MemPool that will own it, if any.
func (d *device) allocate(call string, n uint64, pool *memPool) (*allocation, error) {
	if n == 0 {
		return nil, errorf(call, driver.InvalidValue, "size 0")
	}
	if !d.reserve(n) {
		used := d.used.Load()
		return nil, errorf(call, driver.OutOfMemory, "%s: requested %d bytes, %d in use, capacity %d (%s)",
			d, n, used, d.capacity, EnvMemory)
	}
	if n > uint64(int(^uint(0)>>1)) {
		d.used.Add(-n)
		return nil, errorf(call, driver.OutOfMemory, "%s: requested %d bytes", d, n)
	}
	mem, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		d.used.Add(-n)
		return nil, errorf(call, driver.OutOfMemory, "%s: mmap of %d bytes: %v", d, n, err)
	}
	a := &allocation{
		base: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(mem)))),
		size: n, dev: d, mem: mem, pool: pool,
	}
	a.unpinned.L = &a.mu
	index.insert(a)
	return a, nil
}

// reserve charges n bytes to d's capacity, or reports false.
func (d *device) reserve(n uint64) bool {
	for {
		used := d.used.Load()
		if n > d.capacity-used {
			return false
		}
		if d.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// release unmaps a once no copy or kernel uses it. It reports false when
// a was already gone.
func (a *allocation) release() bool {
	if !index.remove(a) {
		return false
	}
	a.waitUnpinned()
	check := a.dev.sys.cfg.check
	switch {
	case a.managed:
		retire(a.mem, check)
	case check:
		Poison(a.mem)
		fallthrough
	default:
		// Munmap fails only for a slice Mmap did not return; ours always is.
		_ = syscall.Munmap(a.mem)
	}
	a.dev.used.Add(-a.size)
	return true
}

// liveBase returns the allocation whose base is p, or an InvalidValue
// error naming p (unknown, already freed, or interior).
func liveBase(call string, p driver.Ptr) (*allocation, error) {
	a := index.lookup(p)
	switch {
	case a == nil:
		return nil, errorf(call, driver.InvalidValue, "%v is not a live allocation (unknown or already freed)", p)
	case a.base != uint64(p):
		return nil, errorf(call, driver.InvalidValue, "%v is interior to allocation %#x (offset %d on %s)",
			p, a.base, uint64(p)-a.base, a.dev)
	}
	return a, nil
}

// Alloc maps n bytes of device memory (cuMemAlloc).
func (d *device) Alloc(n uint64) (driver.Ptr, error) {
	const call = "cuMemAlloc_v2"
	if err := d.symbol(call); err != nil {
		return 0, err
	}
	a, err := d.allocate(call, n, nil)
	if err != nil {
		return 0, err
	}
	return driver.Ptr(a.base), nil
}

// Free unmaps memory from Alloc or AllocAsync, waiting for copies and
// kernels using it right now (cuMemFree is as synchronous in practice).
// Like cuMemFree it accepts memory of any host device.
func (d *device) Free(p driver.Ptr) error {
	const call = "cuMemFree_v2"
	if err := d.symbol(call); err != nil {
		return err
	}
	a, err := liveBase(call, p)
	if err != nil {
		return err
	}
	if a.pool != nil {
		return errorf(call, driver.InvalidValue, "%v belongs to a memory pool of %s: free it with FreeAsync", p, a.dev)
	}
	if !a.freeQueued.CompareAndSwap(false, true) {
		return errorf(call, driver.InvalidValue, "%v is already being freed", p)
	}
	forgetManaged(p)
	if !a.release() {
		return errorf(call, driver.InvalidValue, "%v is already being freed", p)
	}
	return nil
}

// MemInfo reports the capacity left and the capacity.
func (d *device) MemInfo() (free, total uint64, err error) {
	if err := d.symbol("cuMemGetInfo_v2"); err != nil {
		return 0, 0, err
	}
	return d.capacity - d.used.Load(), d.capacity, nil
}

// illegal is the error of a copy, memset or kernel touching memory outside
// live allocations.
func illegal(call, why string) error {
	return errorf(call, driver.IllegalAddress, "%s", why)
}

// span validates [p, p+n) now, without keeping a pin: queued operations
// check early so the caller hears of a bad pointer at once, and check again
// when they run.
func span(call string, p driver.Ptr, n uint64) error {
	a, _, why := index.pin(p, n)
	if a == nil {
		return illegal(call, why)
	}
	a.unpin()
	return nil
}

// copyMem copies n bytes between device addresses (any host devices:
// copies, unlike kernels, need no peer access).
func copyMem(call string, dst, src driver.Ptr, n uint64) error {
	sa, sb, why := index.pin(src, n)
	if sa == nil {
		return illegal(call, "source "+why)
	}
	defer sa.unpin()
	da, db, why := index.pin(dst, n)
	if da == nil {
		return illegal(call, "destination "+why)
	}
	defer da.unpin()
	copy(db, sb)
	return nil
}

// toDevice copies host bytes to a device address.
func toDevice(call string, dst driver.Ptr, src []byte) error {
	a, b, why := index.pin(dst, uint64(len(src)))
	if a == nil {
		return illegal(call, "destination "+why)
	}
	copy(b, src)
	a.unpin()
	return nil
}

// fromDevice copies device bytes to host memory.
func fromDevice(call string, dst []byte, src driver.Ptr) error {
	a, b, why := index.pin(src, uint64(len(dst)))
	if a == nil {
		return illegal(call, "source "+why)
	}
	copy(dst, b)
	a.unpin()
	return nil
}

// hostBytes views n bytes of caller memory at p (Go or not).
func hostBytes(p unsafe.Pointer, n uint64) []byte { return unsafe.Slice((*byte)(p), n) }

// CopyHtoD copies synchronously; it is not ordered with stream work.
func (d *device) CopyHtoD(dst driver.Ptr, src unsafe.Pointer, n uint64) error {
	const call = "cuMemcpyHtoD_v2"
	if err := d.symbol(call); err != nil {
		return err
	}
	return toDevice(call, dst, hostBytes(src, n))
}

// CopyDtoH copies synchronously; it is not ordered with stream work.
func (d *device) CopyDtoH(dst unsafe.Pointer, src driver.Ptr, n uint64) error {
	const call = "cuMemcpyDtoH_v2"
	if err := d.symbol(call); err != nil {
		return err
	}
	return fromDevice(call, hostBytes(dst, n), src)
}

// CopyDtoD copies synchronously; it is not ordered with stream work.
func (d *device) CopyDtoD(dst, src driver.Ptr, n uint64) error {
	const call = "cuMemcpyDtoD_v2"
	if err := d.symbol(call); err != nil {
		return err
	}
	return copyMem(call, dst, src, n)
}
