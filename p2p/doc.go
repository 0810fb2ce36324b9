// Package p2p owns how devices reach each other's memory: the peer-access
// matrix and the paths a copy between two devices takes.
//
// # Peer access
//
// Enable(from, to) lets kernels running on from read and write memory
// owned by to (cuDeviceCanAccessPeer, then cuCtxEnablePeerAccess). It asks
// the driver once per ordered pair and remembers success, so the check is
// a map lookup afterwards; "already enabled" counts as success. When the
// hardware (or the host backend's GPUARR_HOST_PEERS matrix) says no, the
// *AccessError names both devices and matches
// device.ErrPeerAccessUnsupported. Failures are not remembered: they are
// the slow path, and asking again lets a test change the host backend's
// matrix (device.Device.SetPeerLink) and see the new answer; Reset forgets
// successes too, for tests that revoke access.
//
// # Copies between devices
//
// Route says how bytes travel from one device to another: Local (one
// device), Direct (peer access could be enabled: CopyDirect, one
// cuMemcpyPeerAsync) or Staged (CopyStaged: through page-locked host
// buffers, a chunk at a time, double-buffered). A staged copy reads each
// chunk into a pinned buffer on a stream of the source device, hands it to
// a stream of the destination device through an event, and writes it from
// there; a second event fences the buffer before it is filled again, so
// the upload of one chunk overlaps the download of the next. The device
// layer's downloads return once the bytes are on the host (both backends
// wait for the source stream), so the CPU follows the source side chunk
// by chunk; the uploads and everything after them stay asynchronous. The
// pinned buffers are kept (a few per pair of devices) because allocating
// pinned memory is slow. Devices of different backends are staged too;
// their events cannot order each other's streams, which the returning
// download makes unnecessary.
//
// # Boundaries
//
// This package works on devices, streams and device pointers. It sits
// below package gpuarr, which calls it when an operation touches another
// device's array and for Copy between devices; it must not import gpuarr,
// allocate device memory, or know about arrays, their tracking or the GC.
// Collectives (NCCL) will live here too and keep to the same boundary.
package p2p
