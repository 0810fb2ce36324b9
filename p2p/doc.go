// Package p2p owns how devices reach each other's memory: the peer-access
// matrix and the paths a copy between two devices takes. Example copies
// through the staged path.
//
// # Peer access
//
// Enable(from, to) lets kernels running on from read and write memory
// owned by to (cuDeviceCanAccessPeer, then cuCtxEnablePeerAccess). The
// driver is asked once per ordered pair and success is remembered, so the
// check is a map lookup afterwards; "already enabled" counts as success.
// When the hardware (or the host backend's GPUARR_HOST_PEERS matrix) says
// no, the *AccessError names both devices and matches
// device.ErrPeerAccessUnsupported. Failures are not remembered, so a test
// that changes the host backend's matrix (device.Device.SetPeerLink) sees
// the new answer; Reset forgets successes too.
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
// the upload of one chunk overlaps the download of the next. Each download
// returns once its chunk is on the host, so the call returns after the
// source stream has run the copy's reads; the uploads stay asynchronous.
// A few pinned buffers are kept per pair of devices. Devices of different
// backends are staged too. Stats counts the copies by path.
//
// # Boundaries
//
// This package works on devices, streams and device pointers. Package
// gpuarr calls it when an operation touches another device's array and
// for Copy between devices; it must not import gpuarr, allocate device
// memory, or know about arrays, their tracking or the GC.
package p2p
