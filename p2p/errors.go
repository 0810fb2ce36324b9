package p2p

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
)

// AccessError says that kernels on From cannot reach memory of To. It
// unwraps to the driver's answer, so errors.Is(err,
// device.ErrPeerAccessUnsupported) holds when the hardware said no.
type AccessError struct {
	From, To *device.Device
	Err      error
}

func (e *AccessError) Error() string {
	return fmt.Sprintf("p2p: %s cannot access memory of %s: %v", e.From, e.To, e.Err)
}

func (e *AccessError) Unwrap() error { return e.Err }
