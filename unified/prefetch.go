package unified

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/memory"
)

// CPU is the host as a prefetch target.
var CPU *device.Device

// Prefetch migrates a's memory to dev (CPU: the host) in the order of s,
// so that a kernel on dev (or the CPU) then finds it resident instead of
// faulting pages in one by one. It is a hint: correctness never depends on
// it. It counts as a use of a on s (ordered after other streams' writes).
func Prefetch[T gpuarr.Element](a *gpuarr.Array[T], dev *device.Device, s *device.Stream) error {
	const call = "Prefetch"
	if err := a.Err(); err != nil {
		return fmt.Errorf("unified.%s: %w", call, err)
	}
	if s == nil {
		return fmt.Errorf("unified.%s: nil stream (prefetches are stream-ordered: pass the stream of the work that uses the array): %w", call, gpuarr.ErrArgument)
	}
	loc := device.HostLocation
	if dev != nil {
		loc = device.LocationOf(dev)
	}
	return managedOp(call, a, s, func(p device.Ptr, n uint64) error {
		return s.Prefetch(p, n, loc)
	})
}

// Advice is a hint about how a unified array is used.
type Advice struct {
	kind  device.Advice
	dev   *device.Device
	name  string
	undo  bool
	local bool // a device location is required
}

// ReadMostly: the array is mostly read; the driver may keep read-only
// copies where it is read.
func ReadMostly() Advice { return Advice{kind: 1, name: "ReadMostly"} }

// PreferredLocation: keep the array's pages on dev (nil: the CPU).
func PreferredLocation(dev *device.Device) Advice {
	return Advice{kind: 3, dev: dev, name: "PreferredLocation"}
}

// AccessedBy: dev accesses the array; keep it mapped there.
func AccessedBy(dev *device.Device) Advice {
	return Advice{kind: 5, dev: dev, name: "AccessedBy", local: true}
}

// Unset undoes an advice.
func (a Advice) Unset() Advice { a.kind++; a.undo = true; return a }

// Advise gives the driver a hint about a's memory. Advice applies to
// whole pages, so it reaches the neighbours of a view in the same pages.
// An array the GPU writes once and the CPU then reads is best advised
// PreferredLocation(nil) and AccessedBy(its device) before the kernel: its
// pages stay in host memory and the CPU's first pass migrates nothing.
func Advise[T gpuarr.Element](a *gpuarr.Array[T], adv Advice) error {
	const call = "Advise"
	if err := a.Err(); err != nil {
		return fmt.Errorf("unified.%s: %w", call, err)
	}
	if adv.kind == 0 {
		return fmt.Errorf("unified.%s: the zero Advice: use ReadMostly, PreferredLocation or AccessedBy: %w", call, gpuarr.ErrArgument)
	}
	if adv.local && adv.dev == nil {
		return fmt.Errorf("unified.%s: AccessedBy(nil): name a device: %w", call, gpuarr.ErrArgument)
	}
	loc := device.HostLocation
	if adv.dev != nil {
		loc = device.LocationOf(adv.dev)
	}
	dev := a.Device()
	return managedOp(call, a, nil, func(p device.Ptr, n uint64) error {
		return dev.Advise(p, n, adv.kind, loc)
	})
}

// managedOp checks that a is a unified array and calls fn with the memory
// its elements span, as a tracked use of a on s (nil: not stream-ordered).
func managedOp[T gpuarr.Element](call string, a *gpuarr.Array[T], s *device.Stream, fn func(device.Ptr, uint64) error) error {
	dev := a.Device()
	var notManaged error
	err := arrayhook.UseMemory(a, s, false, func(p device.Ptr, n uint64, res memory.Resource) error {
		if !isManagedResource(dev, res) {
			notManaged = notManagedError(call, a.Describe())
			return notManaged
		}
		return fn(p, n)
	})
	switch {
	case notManaged != nil:
		return notManaged
	case err != nil:
		return fmt.Errorf("unified.%s: %w", call, err)
	}
	return nil
}
