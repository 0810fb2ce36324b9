package driver

import "fmt"

// Ptr is a device address (CUdeviceptr). Zero is never a valid allocation.
type Ptr uint64

// Add offsets the pointer by n bytes.
func (p Ptr) Add(n uint64) Ptr { return p + Ptr(n) }

func (p Ptr) String() string { return fmt.Sprintf("0x%x", uint64(p)) }

// Dim3 is a grid or block shape. Zero components count as 1.
type Dim3 struct{ X, Y, Z uint32 }

// Norm returns d with zero components replaced by 1.
func (d Dim3) Norm() Dim3 {
	if d.X == 0 {
		d.X = 1
	}
	if d.Y == 0 {
		d.Y = 1
	}
	if d.Z == 0 {
		d.Z = 1
	}
	return d
}

// Count is X*Y*Z of the normalized shape.
func (d Dim3) Count() uint64 {
	n := d.Norm()
	return uint64(n.X) * uint64(n.Y) * uint64(n.Z)
}

// Info is what a backend reports about a device at open time.
type Info struct {
	Backend                 string // "cuda" or "host"
	Ordinal                 int
	Name                    string
	ComputeMajor            int
	ComputeMinor            int
	TotalMemory             uint64
	DriverVersion           int // CUDA encoding: 1000*major + 10*minor (13000 = 13.0)
	Multiprocessors         int
	L2CacheBytes            int
	MemoryPools             bool // stream-ordered allocation pools (cuMemAllocAsync)
	VirtualMemory           bool // cuMemAddressReserve / cuMemMap
	ManagedMemory           bool
	ConcurrentManagedAccess bool
	UnifiedAddressing       bool
}
