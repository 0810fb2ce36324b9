package unified

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/units"
)

// OversubscribeError refuses a managed allocation larger than the free
// memory of its device. Oversubscribed managed memory makes the driver
// page between host and device; on a GPU shared with others it can stall
// the device for everyone. It matches device.ErrOutOfMemory.
type OversubscribeError struct {
	Device    *device.Device
	Requested uint64 // bytes asked for
	Free      uint64 // bytes free on the device when asked
}

func (e *OversubscribeError) Error() string {
	return fmt.Sprintf("unified: %s of managed memory requested on %s with only %s free: refused, since oversubscribing "+
		"managed memory can stall the GPU; allocate less, free memory first, or pass unified.AllowOversubscribe() "+
		"if this system pages managed memory well",
		units.FormatBytes(e.Requested)+fmt.Sprintf(" (%d bytes)", e.Requested), e.Device, units.FormatBytes(e.Free)+fmt.Sprintf(" (%d bytes)", e.Free))
}

// Is makes the error match device.ErrOutOfMemory.
func (e *OversubscribeError) Is(target error) bool { return target == device.ErrOutOfMemory }
