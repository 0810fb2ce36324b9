package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/indexcheck"
	"github.com/gpuarr/gpuarr/internal/lifetime"
)

// Sentinel errors, matched with errors.Is. Errors from the device layer
// (device.ErrOutOfMemory, device.ErrPeerAccessUnsupported, ...) pass
// through wrapped, so they match their own sentinels as well.
var (
	// ErrReleased: the array was released (Release) and used afterwards.
	ErrReleased = arg.ErrReleased
	// ErrShape: a negative extent, a size that overflows, or shapes or
	// lengths that do not match.
	ErrShape = arg.ErrShape
	// ErrArgument: an argument that is not usable (nil array, a stream of
	// the wrong device, an unwrapped array in Launch, ...).
	ErrArgument = arg.ErrArgument
	// ErrIndex: an index out of the range of the axis it indexes. Bad
	// indices that only the device sees are reported by the first host
	// wait after the operation ran (see Take).
	ErrIndex = indexcheck.ErrIndex
)

var (
	errNilArray      = fmt.Errorf("nil array in an expression: %w", ErrArgument)
	errZeroArrayExpr = fmt.Errorf("%s in an expression: %w", arg.ZeroArray, ErrArgument)
	errNilRNG        = fmt.Errorf("nil *RNG: %w", ErrArgument)
)

// stridedError refuses a strided view where contiguous memory is needed.
func stridedError(call string, h *lifetime.Handle) error {
	return arg.Strided(call, h.Describe())
}
