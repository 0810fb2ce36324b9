package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/lifetime"
)

// Memory is where an array's elements live: DeviceMemory or UnifiedMemory.
type Memory uint32

const (
	// DeviceMemory is the device's own memory (memory.Default): the
	// fastest for kernels; the CPU reaches it only through copies
	// (ToSlice, CopyToHost, CopyFromHost).
	DeviceMemory = Memory(lifetime.DeviceMemory)
	// UnifiedMemory is managed memory (memory.DefaultManaged): one address
	// for the device and the CPU, so that CPU code reads and writes the
	// elements in place (package unified's Host, Borrow, All, Values).
	// The driver migrates its pages to whichever side touches them.
	UnifiedMemory = Memory(lifetime.UnifiedMemory)
)

// String is "device" or "unified", GPUARR_DEFAULT_MEMORY's values.
func (m Memory) String() string { return lifetime.Memory(m).String() }

// EnvDefaultMemory is GPUARR_DEFAULT_MEMORY: "device" (the default) or
// "unified", every device's default memory until SetDefaultMemory names
// another. A malformed value fails every allocation of an array on a
// device SetDefaultMemory was not called for, with an error matching
// device.ErrBadConfig that names the variable.
const EnvDefaultMemory = lifetime.EnvDefaultMemory

// SetDefaultMemory makes m the memory of every array allocated on dev
// from now on (arrays allocated before keep theirs), overriding
// GPUARR_DEFAULT_MEMORY for dev.
//
// Under UnifiedMemory every array gpuarr allocates for its user on dev is
// managed memory: the constructors' (Empty, Zeros, Ones, Full,
// FromSlice), the results of Eval, the reductions, Matmul and RNG, Copy's
// and Clone's new arrays, and the arrays that functions of other packages
// (linalg, sort, ...) return, so that CPU code can read and write any of
// them in place with package unified while a program is ported to the GPU
// one piece at a time. Such memory is tracked, reclaimed and limited like
// device memory: it comes from a caching pool (allocation makes no driver
// call when the pool has the memory), counts against
// GPUARR_HARD_MEMORY_LIMIT and in eager collection's reading of the
// device's pressure, and a request that would oversubscribe the device is
// refused (memory.OversubscribeError). What is not the user's stays device
// memory: reductions' scratch memory and the arrays a graph capture
// allocates (its private pool, GraphPool). Kernels on unified memory that
// the CPU does not touch run as on device memory; the first GPU use after
// the CPU touched an array of 64 KiB or more moves its pages back to the
// device in bulk on the using stream. Switch back to DeviceMemory once a
// port is done: device memory is allocated asynchronously and never
// migrates.
//
// UnifiedMemory on a device without managed memory is an error matching
// device.ErrNotSupported; a nil dev or another m one matching ErrArgument.
func SetDefaultMemory(dev *device.Device, m Memory) error {
	return lifetime.SetDefaultMemory(dev, lifetime.Memory(m))
}

// DefaultMemory is the memory arrays allocated on dev get now: as
// SetDefaultMemory set it, else as GPUARR_DEFAULT_MEMORY says (DeviceMemory
// when it is unset), or the error of a malformed GPUARR_DEFAULT_MEMORY.
func DefaultMemory(dev *device.Device) (Memory, error) {
	if dev == nil {
		return 0, fmt.Errorf("gpuarr.DefaultMemory: nil device: %w", ErrArgument)
	}
	m, err := lifetime.DefaultMemory(dev)
	return Memory(m), err
}

// Memory is where a's elements live: UnifiedMemory for managed memory
// (package unified's constructors, or any array allocated while its
// device's default memory was UnifiedMemory), else DeviceMemory. A
// released array is an error matching ErrReleased, a nil *Array or the
// zero Array one matching ErrArgument.
func (a *Array[T]) Memory() (Memory, error) {
	const call = "Array.Memory"
	if err := a.check(call); err != nil {
		return 0, err
	}
	if !a.c.Acquire() {
		return 0, a.c.ReleasedError(call)
	}
	m := a.c.Buffer().Memory()
	_ = a.c.Buffer().Unref()
	return Memory(m), nil
}
