package collective

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// Errors. Match them with errors.Is.
var (
	// ErrArgument: arrays that do not fit the collective (a count, length,
	// shape or device that differs from what the rank needs, an element
	// type NCCL lacks, a root out of range). Nothing was launched.
	ErrArgument = gpuarr.ErrArgument
	// ErrClosed: the communicator was closed.
	ErrClosed = device.ErrClosed
	// ErrNotSupported: the backend cannot run collectives (no NCCL
	// library: the error names it).
	ErrNotSupported = device.ErrNotSupported
	// ErrTimeout: Init gave up waiting for the job's other ranks.
	ErrTimeout = device.ErrTimeout
)
