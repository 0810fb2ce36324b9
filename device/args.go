package device

import "github.com/gpuarr/gpuarr/device/driver"

// Args is a kernel's arguments marshalled into one flat buffer, for
// LaunchArgs and Graph.UpdateLaunch: code that launches often builds them
// without boxing each value in an interface. See driver.Args.
type Args = driver.Args

// ArgKind is the type of one marshalled argument.
type ArgKind = driver.ArgKind

// The argument kinds (their sizes are their PTX .param sizes).
const (
	ArgPtr = driver.ArgPtr
	ArgI32 = driver.ArgI32
	ArgU32 = driver.ArgU32
	ArgI64 = driver.ArgI64
	ArgU64 = driver.ArgU64
	ArgF32 = driver.ArgF32
	ArgF64 = driver.ArgF64
)
