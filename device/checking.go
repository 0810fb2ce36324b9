package device

import "github.com/gpuarr/gpuarr/device/driver"

// Checking reports whether d's backend runs in a checking mode (the host
// backend with GPUARR_HOST_CHECK=1; never CUDA), in which allocators should
// poison the memory they recycle, and the byte to poison it with. The byte
// is valid when on is false too, for allocators asked to poison anyway.
func (d *Device) Checking() (poison byte, on bool) {
	if c, ok := d.drv.(driver.Checker); ok {
		return c.PoisonByte(), c.CheckingMode()
	}
	return driver.PoisonByte, false
}
