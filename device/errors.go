package device

import (
	"github.com/gpuarr/gpuarr/device/driver"
)

// Error is a failed driver call; see driver.Error.
type Error = driver.Error

// Sentinel errors, matched with errors.Is on every backend.
var (
	ErrNoDevice              = driver.ErrNoDevice
	ErrNoDriver              = driver.ErrNoDriver
	ErrOutOfMemory           = driver.ErrOutOfMemory
	ErrNotSupported          = driver.ErrNotSupported
	ErrSymbolMissing         = driver.ErrSymbolMissing
	ErrInvalidValue          = driver.ErrInvalidValue
	ErrInvalidHandle         = driver.ErrInvalidHandle
	ErrNotReady              = driver.ErrNotReady
	ErrInvalidPTX            = driver.ErrInvalidPTX
	ErrNotFound              = driver.ErrNotFound
	ErrPeerAccessUnsupported = driver.ErrPeerAccessUnsupported
	ErrIllegalAddress        = driver.ErrIllegalAddress
	ErrDeviceLost            = driver.ErrDeviceLost
	ErrClosed                = driver.ErrClosed
	// ErrStreamCapture matches the CUDA_ERROR_STREAM_CAPTURE_* results: an
	// operation a capturing stream (or a captured event) does not allow.
	ErrStreamCapture = driver.ErrStreamCapture
	// ErrCompile matches CUDA C that NVRTC refused (CompileCUDA, LoadCUDA);
	// the error carries the compiler's log.
	ErrCompile = driver.ErrCompile
	// ErrTimeout matches a communicator whose ranks did not all arrive
	// within the time JoinCommAt was given.
	ErrTimeout = driver.ErrTimeout
	// ErrBadConfig is matched by errors from malformed GPUARR_* variables.
	ErrBadConfig = driver.ErrBadConfig
)

// Result is a driver result code; see driver.Result.
type Result = driver.Result

// The results that layers above the device raise themselves (an
// allocator's limit, a bad argument, a pair of devices that cannot be
// peers), so that their errors match the same sentinels as the driver's.
const (
	InvalidValue          = driver.InvalidValue
	OutOfMemory           = driver.OutOfMemory
	PeerAccessUnsupported = driver.PeerAccessUnsupported
)

// Errorf makes the *Error of a failed call with result code: it matches
// the code's sentinel (errors.Is(err, ErrOutOfMemory) for OutOfMemory).
func Errorf(call string, code Result, format string, args ...any) *Error {
	return driver.Errorf(call, code, format, args...)
}

// ConfigError reports a malformed environment variable (backends report
// theirs, such as GPUARR_HOST_MEMORY, with the same type).
type ConfigError = driver.ConfigError

func closedError(what string) error {
	return &Error{Call: what, Code: driver.Closed, Plain: true}
}

func invalid(call, format string, args ...any) error {
	return driver.PlainErrorf(call, driver.InvalidValue, format, args...)
}
