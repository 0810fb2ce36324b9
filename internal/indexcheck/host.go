package indexcheck

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// RecordHost is the Protocol for kernels written in Go (the host
// backend's): it records that the index idx at position pos is bad in the
// slot (its SlotSize bytes, as hostkernel.View gives them). Safe for
// concurrent use by the goroutines of a launch.
func RecordHost(slot []byte, pos uint64, idx int64) {
	if len(slot) < SlotSize {
		panic("indexcheck.RecordHost: short slot")
	}
	p := unsafe.Pointer(&slot[0])
	min := (*uint64)(p)
	val := (*int64)(unsafe.Add(p, 8))
	lock := (*uint32)(unsafe.Add(p, 16))
	for {
		cur := atomic.LoadUint64(min)
		if pos >= cur {
			return
		}
		if atomic.CompareAndSwapUint64(min, cur, pos) {
			break
		}
	}
	for !atomic.CompareAndSwapUint32(lock, 0, 1) {
		runtime.Gosched()
	}
	if atomic.LoadUint64(min) == pos {
		atomic.StoreInt64(val, idx)
	}
	atomic.StoreUint32(lock, 0)
}
