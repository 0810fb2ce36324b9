package gpuarr

import (
	"errors"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/memory"
)

// blasWorkspace allocates the device workspace the BLAS of s asks a
// product to bring (device.Stream.BLASWorkspace), as an array from the
// pool of s's device on s: the library then allocates nothing of its own,
// and the workspace counts against the memory limits and the eager
// collection like any array. The product claims it as an operand written
// on s and releases it once queued, so the pool reuses it in s's order.
// It is device memory whatever the device's default memory (no CPU code
// reads it). Nil when the backend takes none. It takes 4 MiB, the size
// cuBLAS recommends before compute capability 9, instead of the
// recommended size when that is more than 1/16 of the device's hard memory
// limit (a workspace must not crowd out the arrays a small limit is for),
// or when the pool cannot give it (a full device); it fails only if 4 MiB
// fails too.
func blasWorkspace(call string, s *device.Stream) (*Array[uint8], error) {
	n := s.BLASWorkspace()
	if n == 0 {
		return nil, nil
	}
	n = workspaceSize(n, memory.DefaultHardLimit(s.Device()))
	a := new(Array[uint8])
	err := a.c.MakeScratch(call, s, []int{int(n)}, dtype.Uint8.Elem())
	if err != nil && n > smallWorkspace && errors.Is(err, device.ErrOutOfMemory) {
		err = a.c.MakeScratch(call, s, []int{smallWorkspace}, dtype.Uint8.Elem())
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// smallWorkspace is the BLAS workspace cuBLAS recommends before compute
// capability 9.
const smallWorkspace = 4 << 20

// workspaceSize is the workspace a product takes when the library
// recommends n bytes under a hard memory limit of hard bytes (0: none):
// n, or smallWorkspace when n is larger than both it and hard/16.
func workspaceSize(n, hard uint64) uint64 {
	if n > smallWorkspace && hard > 0 && n > hard/16 {
		return smallWorkspace
	}
	return n
}
