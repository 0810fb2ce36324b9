package driver_test

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/device/driver"
)

// The two things every backend speaks: kernel arguments marshalled into
// Args (as package device does before a backend sees a launch), and
// errors that carry a CUDA result code, so that errors.Is matches the
// same sentinels whichever backend failed.
func Example() {
	var a driver.Args
	a.Append(driver.ArgPtr, 0x7f0000001000)
	a.Append(driver.ArgF32, 0x40200000) // 2.5
	a.Append(driver.ArgU64, 4)
	// 24 bytes: the u64 is aligned to 8, as kernel parameters are laid out.
	fmt.Println(a.N, a.Size, a.Ptr(0), a.F32(1), a.U64(2))

	err := driver.Errorf("cuMemAlloc", driver.OutOfMemory, "asked for %d bytes", 1<<40)
	fmt.Println(errors.Is(err, driver.ErrOutOfMemory), errors.Is(err, driver.ErrInvalidValue))
	// Output:
	// 3 24 0x7f0000001000 2.5 4
	// true false
}
