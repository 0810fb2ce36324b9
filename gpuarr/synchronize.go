package gpuarr

import "github.com/gpuarr/gpuarr/internal/tracking"

// Synchronize waits until the work issued so far on a stream is done (the
// default stream of device.Default(), or the one On or OnDevice names) and
// reports what that work left to report: the bad indices that checked
// operations found on the device (ErrIndex; see Take), and the device's
// asynchronous errors. Programs rarely need it, since host reads wait by
// themselves; it is the explicit check point for index errors before a
// result is read.
func Synchronize(opts ...Option) error {
	const call = "Synchronize"
	s, err := streamFor(call, opts, nil)
	if err != nil {
		return err
	}
	if err := refuseInCapture(call, s, "a capturing stream cannot be waited for"); err != nil {
		return err
	}
	return tracking.WaitStream(s)
}
