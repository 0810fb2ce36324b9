package gpuarr

import (
	"errors"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// blasWorkspace allocates the device workspace the BLAS of s asks a
// product to bring (device.Stream.BLASWorkspace), as an array from the
// pool of s's device on s: the library then allocates nothing of its own,
// and the workspace counts against the memory limits and the eager
// collection like any array. The product claims it as an operand written
// on s and releases it once queued, so the pool reuses it in s's order.
// It is device memory whatever the device's default memory (no CPU code
// reads it). Nil when the backend takes none. When the pool cannot give
// the recommended size (a memory limit, a full device), it takes 4 MiB,
// the size cuBLAS recommends before compute capability 9, and fails only
// if that fails too.
func blasWorkspace(call string, s *device.Stream) (*Array[uint8], error) {
	n := s.BLASWorkspace()
	if n == 0 {
		return nil, nil
	}
	const small = 4 << 20
	a := new(Array[uint8])
	err := a.c.MakeScratch(call, s, []int{int(n)}, dtype.Uint8.Elem())
	if err != nil && n > small && errors.Is(err, device.ErrOutOfMemory) {
		err = a.c.MakeScratch(call, s, []int{small}, dtype.Uint8.Elem())
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}
