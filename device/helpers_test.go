package device_test

import "github.com/gpuarr/gpuarr/internal/testutil"

// The device under test is device.Default(), so the same test binary
// checks the host backend in CI and a GPU under GPUARR_DEVICE=cuda; the
// helpers are internal/testutil's.
var (
	testDevice = testutil.Device
	kernels    = testutil.Kernels
	newStream  = testutil.Stream
	alloc      = testutil.Alloc
	// download reads n uint32 words from p in s's order.
	download = testutil.Download[uint32]
)
