package gpuarr

import "github.com/gpuarr/gpuarr/device"

// blasWorkspace allocates the device workspace the BLAS of s asks a
// product to bring (device.Stream.BLASWorkspace), as an array from the
// pool of s's device on s: the library then allocates nothing of its own,
// and the workspace counts against the memory limits and the eager
// collection like any array. The product claims it as an operand written
// on s and releases it once queued, so the pool reuses it in s's order.
// Nil when the backend takes none.
func blasWorkspace(call string, s *device.Stream) (*Array[uint8], error) {
	n := s.BLASWorkspace()
	if n == 0 {
		return nil, nil
	}
	return newArray[uint8](call, Shape{int(n)}, s)
}
