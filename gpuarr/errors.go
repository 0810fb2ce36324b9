package gpuarr

import (
	"errors"
	"fmt"
)

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

// zeroArray names the zero Array in messages.
const zeroArray = "zero Array (make arrays with a constructor such as Zeros or FromSlice)"

var (
	errNilArray      = fmt.Errorf("nil array in an expression: %w", ErrArgument)
	errZeroArrayExpr = fmt.Errorf("%s in an expression: %w", zeroArray, ErrArgument)
	errNilArrayArg   = fmt.Errorf("nil array: %w", ErrArgument)
	errZeroArray     = fmt.Errorf("%s: %w", zeroArray, ErrArgument)
	errNilExpr       = fmt.Errorf("zero Expr or Mask (build one from arrays with the expression functions): %w", ErrArgument)
)

var errNilRNG = fmt.Errorf("nil *RNG: %w", ErrArgument)

// stridedError refuses a strided view where contiguous memory is needed.
func stridedError(call string, c *core) error {
	return fmt.Errorf("gpuarr.%s: %s is a strided view (Transpose, Permute, Step); "+
		"make a contiguous copy with Clone first: %w", call, c.describe(), ErrArgument)
}
