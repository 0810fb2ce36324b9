package arg

import (
	"errors"
	"fmt"
)

// The sentinel errors of the array API, matched with errors.Is. Package
// gpuarr exports them (gpuarr.ErrReleased, ...); every layer under it and
// every package beside it wraps these same values.
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

// ZeroArray names the zero Array in messages.
const ZeroArray = "zero Array (make arrays with a constructor such as Zeros or FromSlice)"

// The usual argument errors.
var (
	ErrNilArray  = fmt.Errorf("nil array: %w", ErrArgument)
	ErrZeroArray = fmt.Errorf("%s: %w", ZeroArray, ErrArgument)
)

// Shapef is call's error for a bad shape: "gpuarr.call: what: bad shape".
func Shapef(call, format string, args ...any) error {
	return fmt.Errorf("gpuarr.%s: %s: %w", call, fmt.Sprintf(format, args...), ErrShape)
}

// Strided is call's error for a strided view (named by what) where
// contiguous memory is needed.
func Strided(call, what string) error {
	return fmt.Errorf("gpuarr.%s: %s is a strided view (Transpose, Permute, Step); "+
		"make a contiguous copy with Clone first: %w", call, what, ErrArgument)
}

// Wrapped is an error whose message says what its cause says in fewer
// words; the cause stays reachable through Unwrap.
type Wrapped struct {
	Msg string
	Err error
}

func (w *Wrapped) Error() string { return w.Msg }
func (w *Wrapped) Unwrap() error { return w.Err }
