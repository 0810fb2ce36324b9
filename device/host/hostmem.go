package host

import (
	"sync"
	"syscall"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Page-locked host memory stands for cuMemAllocHost: an anonymous mapping
// outside the Go heap, not charged to the device's capacity (it is host
// memory on a GPU too). It is not device memory: kernels cannot reach it.
// Uploads from it read it when the stream runs the copy, as a GPU's DMA
// does (uploads from other host memory snapshot it when issued, as the
// driver stages pageable memory); downloads return once it holds the data.
// Freed, it is quarantined in checking mode (quarantine.go), so a CPU
// access that outlived it faults.
var pinned struct {
	sync.Mutex
	m map[unsafe.Pointer][]byte // base → the slice Mmap returned
}

// AllocHost maps n bytes (cuMemAllocHost_v2).
func (d *device) AllocHost(n uint64) (unsafe.Pointer, error) {
	const call = "cuMemAllocHost_v2"
	if err := d.symbol(call); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errorf(call, driver.InvalidValue, "size 0")
	}
	if n > uint64(int(^uint(0)>>1)) {
		return nil, errorf(call, driver.OutOfMemory, "%s: %d bytes of host memory", d, n)
	}
	mem, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, errorf(call, driver.OutOfMemory, "%s: mmap of %d bytes of host memory: %v", d, n, err)
	}
	p := unsafe.Pointer(unsafe.SliceData(mem))
	pinned.Lock()
	if pinned.m == nil {
		pinned.m = map[unsafe.Pointer][]byte{}
	}
	pinned.m[p] = mem
	pinned.Unlock()
	return p, nil
}

// FreeHost unmaps memory from AllocHost (of any host device, as
// cuMemFreeHost accepts pinned memory of any context).
func (d *device) FreeHost(p unsafe.Pointer) error {
	const call = "cuMemFreeHost"
	if err := d.symbol(call); err != nil {
		return err
	}
	pinned.Lock()
	mem, ok := pinned.m[p]
	delete(pinned.m, p)
	pinned.Unlock()
	if !ok {
		return errorf(call, driver.InvalidValue, "%p is not a live allocation from AllocHost", p)
	}
	retire(mem, d.sys.cfg.check)
	return nil
}

// pinnedSpanLocked reports whether [p, p+n) lies inside one live AllocHost
// mapping; the caller holds pinned's lock.
func pinnedSpanLocked(p unsafe.Pointer, n uint64) bool {
	for base, mem := range pinned.m {
		off := uintptr(p) - uintptr(base)
		if uintptr(p) >= uintptr(base) && off <= uintptr(len(mem)) && uintptr(n) <= uintptr(len(mem))-off {
			return true
		}
	}
	return false
}

func pinnedSpan(p unsafe.Pointer, n uint64) bool {
	pinned.Lock()
	defer pinned.Unlock()
	return pinnedSpanLocked(p, n)
}
