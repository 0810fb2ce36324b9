package hostkernel

import (
	"fmt"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// View returns n elements of type T at p (see Launch.Bytes). T must hold no
// Go pointers: device memory is outside the heap the GC scans. p must be
// aligned for T, else the error is driver.MisalignedAddress.
func View[T any](l *Launch, p driver.Ptr, n uint64) ([]T, error) {
	var zero T
	size, align := uint64(unsafe.Sizeof(zero)), uint64(unsafe.Alignof(zero))
	if n == 0 || size == 0 {
		return nil, nil
	}
	if uint64(p)%align != 0 {
		return nil, launchError(driver.MisalignedAddress, "kernel %s on %s: %v is not %d-byte aligned for %T",
			l.name, l.dev, p, align, zero)
	}
	if n > ^uint64(0)/size {
		return nil, illegal(fmt.Sprintf("kernel %s on %s: %d elements of %T overflow", l.name, l.dev, n, zero))
	}
	b, err := l.Bytes(p, n*size)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n), nil
}
