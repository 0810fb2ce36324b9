package p2p

import (
	"sync"

	"github.com/gpuarr/gpuarr/device"
)

type pair struct{ from, to *device.Device }

// matrix remembers the ordered pairs whose peer access is enabled.
var matrix struct {
	mu      sync.RWMutex
	enabled map[pair]bool
}

// Enable lets kernels on from access memory of to. A device always reaches
// its own memory. The driver is asked once per pair; afterwards this is a
// map lookup. Two goroutines enabling the same pair at once both succeed.
func Enable(from, to *device.Device) error {
	if from == to {
		return nil
	}
	k := pair{from, to}
	matrix.mu.RLock()
	ok := matrix.enabled[k]
	matrix.mu.RUnlock()
	if ok {
		return nil
	}
	can, err := from.CanAccessPeer(to)
	if err != nil {
		return &AccessError{From: from, To: to, Err: err}
	}
	if !can {
		return &AccessError{From: from, To: to, Err: noPeerPath(from)}
	}
	if err := from.EnablePeerAccess(to); err != nil { // already enabled is success there
		return &AccessError{From: from, To: to, Err: err}
	}
	matrix.mu.Lock()
	if matrix.enabled == nil {
		matrix.enabled = make(map[pair]bool)
	}
	matrix.enabled[k] = true
	matrix.mu.Unlock()
	return nil
}

// Enabled reports whether Enable(from, to) has succeeded (and Reset has
// not run since); it asks no device.
func Enabled(from, to *device.Device) bool {
	if from == to {
		return true
	}
	matrix.mu.RLock()
	defer matrix.mu.RUnlock()
	return matrix.enabled[pair{from, to}]
}

// Reset forgets every enabled pair, so the next Enable asks the driver
// again. It exists for tests that revoke peer access on the host backend
// (device.Device.SetPeerLink(peer, false)); real hardware never changes its mind.
func Reset() {
	matrix.mu.Lock()
	clear(matrix.enabled)
	matrix.mu.Unlock()
}

// noPeerPath is the error for a pair the driver reports no peer path for;
// AccessError names the devices. On the host backend it is worded without
// CUDA's names.
func noPeerPath(from *device.Device) error {
	e := device.Errorf("cuDeviceCanAccessPeer", device.PeerAccessUnsupported, "the driver reports no peer path")
	e.Plain = from.Backend() == "host"
	return e
}
