package unified

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/units"
)

// OversubscribeError refuses a managed allocation that the free memory of
// its device cannot hold beside the managed memory allocated there earlier
// and not yet resident (which needs device memory once it migrates).
// Oversubscribed managed memory makes the driver page between host and
// device; on a GPU shared with others it can stall the device for
// everyone. It is returned after the reclaim ladder freed what it could.
// It matches device.ErrOutOfMemory.
type OversubscribeError struct {
	Device    *device.Device
	Requested uint64 // bytes asked for
	Free      uint64 // bytes free on the device when asked
	Pending   uint64 // managed bytes allocated earlier and not resident on the device
}

func (e *OversubscribeError) Error() string {
	pending := ""
	if e.Pending > 0 {
		pending = fmt.Sprintf(", %s of it needed by managed memory allocated earlier", units.FormatBytes(e.Pending))
	}
	return fmt.Sprintf("unified: %s of managed memory requested on %s with only %s free%s: refused, since oversubscribing "+
		"managed memory can stall the GPU; allocate less, free memory first, or pass unified.AllowOversubscribe() "+
		"if this system pages managed memory well",
		units.FormatBytes(e.Requested)+fmt.Sprintf(" (%d bytes)", e.Requested), e.Device,
		units.FormatBytes(e.Free)+fmt.Sprintf(" (%d bytes)", e.Free), pending)
}

// Is makes the error match device.ErrOutOfMemory.
func (e *OversubscribeError) Is(target error) bool { return target == device.ErrOutOfMemory }
