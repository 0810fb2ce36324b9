package gpuarr

import "github.com/gpuarr/gpuarr/device"

// AddrRange is the device memory an array's buffer occupies, for tests
// that check graph memory never overlaps other work's.
func AddrRange[T Numeric](a *Array[T]) (lo, hi device.Ptr) {
	return a.c.buf.ptr, a.c.buf.ptr.Add(a.c.buf.size)
}
