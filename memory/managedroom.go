package memory

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
)

// The refusal to oversubscribe. Managed memory the device's memory cannot
// hold makes the driver page between host and device; on a GPU shared with
// others that can stall the device for everyone. So a device's default
// managed memory (DefaultManaged) obtains a new segment only when the
// device's free memory holds it beside the managed memory obtained earlier
// and not yet resident there (which needs device memory once it
// migrates). Blocks its cache hands out again need no check: that memory
// is obtained already.

// OversubscribeError refuses managed memory that the free memory of its
// device cannot hold beside the managed memory obtained there earlier and
// not yet resident. It matches device.ErrOutOfMemory. Package unified
// names it unified.OversubscribeError.
type OversubscribeError struct {
	Device    *device.Device
	Requested uint64 // bytes asked of the driver (a whole segment of the managed pool)
	Free      uint64 // bytes free on the device when asked
	Pending   uint64 // managed bytes obtained earlier and not resident on the device
}

func (e *OversubscribeError) Error() string {
	pending := ""
	if e.Pending > 0 {
		pending = fmt.Sprintf(", %s of it needed by managed memory allocated earlier", FormatBytes(e.Pending))
	}
	return fmt.Sprintf("unified: %s (%d bytes) of managed memory requested on %s with only %s (%d bytes) free%s: refused, since oversubscribing "+
		"managed memory can stall the GPU; allocate less, free memory first, or pass unified.AllowOversubscribe() "+
		"to unified's constructors if this system pages managed memory well",
		FormatBytes(e.Requested), e.Requested, e.Device, FormatBytes(e.Free), e.Free, pending)
}

// Is makes the error match device.ErrOutOfMemory.
func (e *OversubscribeError) Is(target error) bool { return target == device.ErrOutOfMemory }

// makeRoom checks that md's device holds n more bytes of managed memory:
// n fits in its free memory beside the managed bytes not yet resident.
// When they do not, the default resource gives its idle segments back (the
// driver counts them as used) and the check runs again; then the answer is
// nil, or an *OversubscribeError. It costs one driver call (cuMemGetInfo)
// when there is room.
func makeRoom(md *managedDefault, n uint64) error {
	dev := md.dev
	var free, pending uint64
	check := func() (bool, error) {
		f, total, err := dev.MemInfo()
		if err != nil {
			return false, fmt.Errorf("reading the free memory of %s: %w", dev, err)
		}
		u := md.usage(f, total)
		free, pending = f, u.Reserved-u.Resident
		return n <= free && pending <= free-n, nil
	}
	ok, err := check()
	if err == nil && !ok {
		if def, derr := Default(dev); derr == nil {
			_ = def.EmptyCache() // a failure leaves the memory where it was; the check says what came of it
			ok, err = check()
		}
	}
	switch {
	case err != nil:
		return err
	case !ok:
		return &OversubscribeError{Device: dev, Requested: n, Free: free, Pending: pending}
	}
	return nil
}
