package device

import "unsafe"

// AllocHost allocates n bytes of page-locked ("pinned") host memory
// (cuMemAllocHost). Asynchronous copies between it and the device do not
// wait for the CPU, so it is what staged transfers go through; it is slow
// to allocate (keep and reuse it) and outside the Go heap. The slice is
// valid until FreeHost; it must not hold Go pointers.
func (d *Device) AllocHost(n uint64) ([]byte, error) {
	if n == 0 {
		return nil, invalid("Device.AllocHost", "size 0")
	}
	p, err := d.drv.AllocHost(n)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(p), n), nil
}

// FreeHost releases memory from AllocHost; b must be the whole slice
// AllocHost returned (or start where it does). Anything else, or freeing
// twice, is an error matching ErrInvalidValue.
func (d *Device) FreeHost(b []byte) error {
	if len(b) == 0 {
		return invalid("Device.FreeHost", "empty slice: not an allocation from AllocHost")
	}
	return d.drv.FreeHost(unsafe.Pointer(unsafe.SliceData(b)))
}
