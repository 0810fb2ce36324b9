package p2p

import "github.com/gpuarr/gpuarr/device"

// Path is how a copy travels between two devices.
type Path uint8

const (
	// Local: both ends on one device (a device-to-device copy).
	Local Path = iota
	// Direct: peer access is enabled; one cuMemcpyPeerAsync (CopyDirect).
	Direct
	// Staged: no peer access (or different backends); through pinned host
	// buffers (CopyStaged).
	Staged
)

func (p Path) String() string {
	switch p {
	case Local:
		return "local"
	case Direct:
		return "direct"
	case Staged:
		return "staged"
	}
	return "Path(?)"
}

// Route picks the path from src's memory to dst's, enabling peer access
// when the hardware allows it (both directions are tried; dst reaching src
// is what decides).
func Route(dst, src *device.Device) Path {
	switch {
	case dst == src:
		return Local
	case dst.Backend() != src.Backend():
		return Staged
	case Enable(dst, src) == nil:
		_ = Enable(src, dst) // lets the copy engines of either side drive it
		return Direct
	}
	return Staged
}
