package hostkernel

import "github.com/gpuarr/gpuarr/device/driver"

// The kernel ABI's value types, named here so that kernels written in Go
// need no import of the backend contract: a device address, the marshalled
// arguments a Launch carries, and their kinds.
type (
	Ptr     = driver.Ptr
	Args    = driver.Args
	ArgKind = driver.ArgKind
)

// The argument kinds.
const (
	ArgPtr = driver.ArgPtr
	ArgI32 = driver.ArgI32
	ArgU32 = driver.ArgU32
	ArgI64 = driver.ArgI64
	ArgU64 = driver.ArgU64
	ArgF32 = driver.ArgF32
	ArgF64 = driver.ArgF64
)
