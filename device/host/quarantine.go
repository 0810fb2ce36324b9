package host

import (
	"sync"
	"syscall"
)

// In checking mode, memory the CPU addresses directly (managed
// allocations and AllocHost's page-locked memory) is not unmapped when it
// is freed but quarantined: its pages are dropped (madvise MADV_DONTNEED,
// so it costs address space, not memory), every access to it is forbidden
// (mprotect PROT_NONE), and the address range stays reserved, so no later
// allocation can land there. A CPU access through a pointer or slice that
// outlived the memory then faults at once, at the access, on every run
// (SIGSEGV: "unexpected fault address"), where an unmapped range would
// fault or, once another mapping reused the addresses, read and write that
// other allocation's data. Outside checking mode the range is unmapped.
//
// The quarantine holds the last quarantineRanges ranges, and at most
// quarantineBytes of address space; older ones are unmapped, oldest
// first, and lose the guarantee.
const (
	quarantineRanges = 1024
	quarantineBytes  = 256 << 30
)

// quarantine is the ranges held, oldest first.
var quarantine struct {
	sync.Mutex
	ranges [][]byte // the slices Mmap returned; Munmap needs them back
	bytes  uint64
}

// retire ends the life of mem, a mapping from syscall.Mmap that nothing
// uses any more: quarantined when check is set, else unmapped.
func retire(mem []byte, check bool) {
	if !check {
		// Munmap fails only for a slice Mmap did not return; ours always is.
		_ = syscall.Munmap(mem)
		return
	}
	if syscall.Madvise(mem, syscall.MADV_DONTNEED) != nil || syscall.Mprotect(mem, syscall.PROT_NONE) != nil {
		// Not expected on Linux for a whole anonymous mapping: fall back
		// to poisoning, which a stale read still notices.
		Poison(mem)
		_ = syscall.Munmap(mem)
		return
	}
	quarantine.Lock()
	defer quarantine.Unlock()
	quarantine.ranges = append(quarantine.ranges, mem)
	quarantine.bytes += uint64(len(mem))
	for len(quarantine.ranges) > quarantineRanges || quarantine.bytes > quarantineBytes && len(quarantine.ranges) > 1 {
		old := quarantine.ranges[0]
		quarantine.ranges[0] = nil
		quarantine.ranges = quarantine.ranges[1:]
		quarantine.bytes -= uint64(len(old))
		_ = syscall.Munmap(old)
	}
}

// quarantined reports the ranges and bytes the quarantine holds now.
func quarantined() (ranges int, bytes uint64) {
	quarantine.Lock()
	defer quarantine.Unlock()
	return len(quarantine.ranges), quarantine.bytes
}
