package gpuarr

import "errors"

// Sentinel errors, matched with errors.Is. Errors from the device layer
// (device.ErrOutOfMemory, device.ErrPeerAccessUnsupported, ...) pass
// through wrapped, so they match their own sentinels as well.
var (
	// ErrReleased: the array was released (Release) and used afterwards.
	ErrReleased = errors.New("array used after Release")
	// ErrShape: a negative extent, a size that overflows, or shapes or
	// lengths that do not match.
	ErrShape = errors.New("bad shape")
	// ErrArgument: an argument that is not usable (nil array, a stream of
	// the wrong device, an unwrapped array in Launch, ...).
	ErrArgument = errors.New("bad argument")
)
