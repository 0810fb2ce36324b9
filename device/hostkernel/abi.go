package hostkernel

import "github.com/gpuarr/gpuarr/device/driver"

// The kernel ABI's value types, named here so that kernels written in Go
// need no import of the backend contract: a device address, the marshalled
// arguments a Launch carries, and their kinds (ArgKind.Carries says which
// parameter types a kind passes).
type (
	Ptr     = driver.Ptr
	Args    = driver.Args
	ArgKind = driver.ArgKind
)
