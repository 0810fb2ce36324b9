package driver

import "unsafe"

// Backend enumerates the devices of one kind.
type Backend interface {
	// Name is "cuda" or "host".
	Name() string
	// Devices opens every usable device. A backend with no usable device
	// returns an error matching ErrNoDevice or ErrNoDriver.
	Devices() ([]Device, error)
}

// Device is one device with its context (CUDA: the primary context).
type Device interface {
	Info() Info
	// MemInfo reports free and total device memory now.
	MemInfo() (free, total uint64, err error)
	// CanAccessPeer reports whether this device can map peer's memory.
	CanAccessPeer(peer Device) (bool, error)
	// EnablePeerAccess lets kernels on this device access peer's memory.
	// Enabling twice is not an error.
	EnablePeerAccess(peer Device) error

	NewStream() (Stream, error)
	NewEvent(timing bool) (Event, error)

	// Alloc and Free are the synchronous allocator (cuMemAlloc/cuMemFree).
	// Free of a pointer Alloc did not return fails with InvalidValue.
	Alloc(n uint64) (Ptr, error)
	Free(p Ptr) error
	// NewMemPool creates a stream-ordered pool (cuMemPoolCreate) whose
	// release threshold is the bytes it keeps cached at synchronizations.
	NewMemPool(releaseThreshold uint64) (MemPool, error)

	// AllocHost allocates n bytes of page-locked host memory
	// (cuMemAllocHost_v2): asynchronous copies to and from it do not wait
	// for the CPU. FreeHost releases it (cuMemFreeHost); a pointer AllocHost
	// did not return fails with InvalidValue.
	AllocHost(n uint64) (unsafe.Pointer, error)
	FreeHost(p unsafe.Pointer) error

	// Synchronous copies (cuMemcpy*_v2). They return when the copy is done but
	// are not ordered with work queued on streams: synchronize those first.
	CopyHtoD(dst Ptr, src unsafe.Pointer, n uint64) error
	CopyDtoH(dst unsafe.Pointer, src Ptr, n uint64) error
	CopyDtoD(dst, src Ptr, n uint64) error

	// Synchronize waits until all work on all of the device's streams is done.
	Synchronize() error

	// LoadModule JIT-compiles PTX text. A failure carries the JIT log in the
	// Error's Detail.
	LoadModule(ptx string) (Module, error)

	// HideSymbol makes the named driver entry point look missing until the
	// returned restore function runs (tests use it to prove that a missing
	// symbol disables only its feature).
	HideSymbol(name string) (restore func())
}

// Stream is an in-order queue of asynchronous work on one device.
// RecordWaiter is a Stream that records an event and makes another stream
// wait for that record in one call into the driver: a cross-stream
// hand-off then costs one crossing from Go instead of two. Backends
// without it get Record then Wait.
type RecordWaiter interface {
	RecordWait(e Event, waiter Stream) error
}

// Handoff is a point of stream From that a launch waits for: Event is
// recorded on From, and the launching stream waits for that record. The
// zero Handoff is none.
type Handoff struct {
	From  Stream
	Event Event
}

// HandoffLauncher is a Stream that launches a kernel after up to two
// hand-offs from other streams of its device in one call into the driver:
// for each non-zero h in order, record h.Event on h.From and make the
// stream wait for it; then Launch. A tracked cross-stream hand-off then
// rides along with the launch that needs it instead of costing a crossing
// of its own. done is how many of the non-zero hand-offs, in order, were
// recorded and awaited; when only the launch failed it is all of them. Backends without it get
// RecordWait for each hand-off, then Launch.
type HandoffLauncher interface {
	LaunchAfter(h0, h1 Handoff, f Function, grid, block Dim3, sharedBytes uint32, args *Args) (done int, err error)
}

type Stream interface {
	// AllocAsync and FreeAsync use the device's default stream-ordered pool
	// (cuMemAllocAsync / cuMemFreeAsync).
	AllocAsync(n uint64) (Ptr, error)
	FreeAsync(p Ptr) error

	CopyHtoD(dst Ptr, src unsafe.Pointer, n uint64) error
	CopyDtoH(dst unsafe.Pointer, src Ptr, n uint64) error
	CopyDtoD(dst, src Ptr, n uint64) error
	// CopyPeer copies n bytes from src on device srcDev to dst on device dstDev.
	CopyPeer(dst Ptr, dstDev Device, src Ptr, srcDev Device, n uint64) error
	// Memset8 sets n bytes; Memset32 sets n 32-bit words.
	Memset8(dst Ptr, v uint8, n uint64) error
	Memset32(dst Ptr, v uint32, n uint64) error

	Launch(f Function, grid, block Dim3, sharedBytes uint32, args *Args) error

	// Record marks e as reached when the stream gets to this point; Wait
	// makes later work on this stream wait (device-side) for e's last record.
	Record(e Event) error
	Wait(e Event) error

	Synchronize() error
	// Query reports whether all work issued so far is done.
	Query() (bool, error)

	// BeginCapture starts capturing (cuStreamBeginCapture_v2, RELAXED
	// mode): work issued on the stream from then on is recorded into a
	// graph instead of running. While it captures, Synchronize, Query,
	// synchronous downloads and a Synchronize of an event recorded in the
	// capture fail with StreamCaptureUnsupported.
	BeginCapture() error
	// EndCapture ends the capture and instantiates the graph it recorded
	// (cuStreamEndCapture + cuGraphInstantiateWithFlags).
	EndCapture() (Graph, error)
	// Capturing asks the driver whether the stream captures now
	// (cuStreamIsCapturing reports ACTIVE).
	Capturing() (bool, error)

	// Handle is a value unique among the device's live streams, for keys
	// and logs (CUstream address on CUDA).
	Handle() uintptr
	Close() error
}

// Graph is an instantiated graph of captured work (a CUgraphExec and its
// CUgraph). Each Launch runs the whole graph once, in the order of s.
type Graph interface {
	Launch(s Stream) error
	Close() error
}

// JoinedLauncher is a Graph that launches on stream on in the order of
// stream caller in one call into the driver: before is recorded on caller
// and awaited by on, the graph launched on on, after recorded on on and
// awaited by caller. Backends without it get those four calls one by one.
type JoinedLauncher interface {
	LaunchJoined(on, caller Stream, before, after Event) error
}

// Event marks a point in a stream.
type Event interface {
	Synchronize() error
	// Query reports whether the last record has been reached. An event never
	// recorded counts as reached.
	Query() (bool, error)
	// ElapsedSince is the time in milliseconds from start to this event;
	// both must be timing events that have completed.
	ElapsedSince(start Event) (float32, error)
	Close() error
}

// Module is loaded device code.
type Module interface {
	Function(name string) (Function, error)
	Close() error
}

// Function is one kernel entry point of a Module.
type Function interface {
	Name() string
}

// MemPool is a driver stream-ordered memory pool (cuMemPool*).
type MemPool interface {
	AllocAsync(n uint64, s Stream) (Ptr, error)
	FreeAsync(p Ptr, s Stream) error
	SetReleaseThreshold(n uint64) error
	// TrimTo releases cached memory until at most keep bytes stay reserved.
	TrimTo(keep uint64) error
	// Usage reports reserved and used bytes (RESERVED_MEM_CURRENT, USED_MEM_CURRENT).
	Usage() (reserved, used uint64, err error)
	Close() error
}
