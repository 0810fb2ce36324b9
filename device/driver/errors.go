package driver

import (
	"errors"
	"fmt"
	"strings"
)

// Result is a CUDA driver result code (CUresult). The host backend reports
// its failures with the same codes so callers see one error model.
type Result int

// The CUresult values the project names. Values as in cuda.h.
const (
	Success                  Result = 0
	InvalidValue             Result = 1
	OutOfMemory              Result = 2
	NotInitialized           Result = 3
	Deinitialized            Result = 4
	NoDevice                 Result = 100
	InvalidDevice            Result = 101
	InvalidImage             Result = 200
	InvalidContext           Result = 201
	PeerAccessUnsupported    Result = 217
	InvalidPTX               Result = 218
	InvalidSource            Result = 300
	FileNotFound             Result = 301
	InvalidHandle            Result = 400
	NotFound                 Result = 500
	NotReady                 Result = 600
	IllegalAddress           Result = 700
	LaunchOutOfResources     Result = 701
	LaunchTimeout            Result = 702
	PeerAccessAlreadyEnabled Result = 704
	PeerAccessNotEnabled     Result = 705
	ContextIsDestroyed       Result = 709
	Assert                   Result = 710
	IllegalInstruction       Result = 715
	MisalignedAddress        Result = 716
	InvalidAddressSpace      Result = 717
	InvalidPC                Result = 718
	LaunchFailed             Result = 719
	NotPermitted             Result = 800
	NotSupported             Result = 801
	StreamCaptureUnsupported Result = 900
	StreamCaptureInvalidated Result = 901
	StreamCaptureIsolation   Result = 906
	CapturedEvent            Result = 907
	StreamCaptureWrongThread Result = 908
	Unknown                  Result = 999
	SymbolMissing            Result = -1 // not a CUresult: the driver library lacks an entry point
	LibraryMissing           Result = -2 // not a CUresult: the driver library could not be loaded
	Closed                   Result = -3 // not a CUresult: the object was closed or freed
	CompileFailed            Result = -4 // not a CUresult: CUDA C source did not compile (NVRTC)
	TimedOut                 Result = -5 // not a CUresult: other parties (a communicator's ranks) did not arrive in time
)

var resultNames = map[Result]string{
	Success: "CUDA_SUCCESS", InvalidValue: "CUDA_ERROR_INVALID_VALUE",
	OutOfMemory: "CUDA_ERROR_OUT_OF_MEMORY", NotInitialized: "CUDA_ERROR_NOT_INITIALIZED",
	Deinitialized: "CUDA_ERROR_DEINITIALIZED", NoDevice: "CUDA_ERROR_NO_DEVICE",
	InvalidDevice: "CUDA_ERROR_INVALID_DEVICE", InvalidImage: "CUDA_ERROR_INVALID_IMAGE",
	InvalidContext: "CUDA_ERROR_INVALID_CONTEXT", PeerAccessUnsupported: "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
	InvalidPTX: "CUDA_ERROR_INVALID_PTX", InvalidSource: "CUDA_ERROR_INVALID_SOURCE",
	FileNotFound: "CUDA_ERROR_FILE_NOT_FOUND", InvalidHandle: "CUDA_ERROR_INVALID_HANDLE",
	NotFound: "CUDA_ERROR_NOT_FOUND", NotReady: "CUDA_ERROR_NOT_READY",
	IllegalAddress: "CUDA_ERROR_ILLEGAL_ADDRESS", LaunchOutOfResources: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	LaunchTimeout: "CUDA_ERROR_LAUNCH_TIMEOUT", PeerAccessAlreadyEnabled: "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
	PeerAccessNotEnabled: "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", ContextIsDestroyed: "CUDA_ERROR_CONTEXT_IS_DESTROYED",
	Assert: "CUDA_ERROR_ASSERT", IllegalInstruction: "CUDA_ERROR_ILLEGAL_INSTRUCTION",
	MisalignedAddress: "CUDA_ERROR_MISALIGNED_ADDRESS", InvalidAddressSpace: "CUDA_ERROR_INVALID_ADDRESS_SPACE",
	InvalidPC: "CUDA_ERROR_INVALID_PC", LaunchFailed: "CUDA_ERROR_LAUNCH_FAILED",
	NotPermitted: "CUDA_ERROR_NOT_PERMITTED", NotSupported: "CUDA_ERROR_NOT_SUPPORTED",
	StreamCaptureUnsupported: "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", StreamCaptureInvalidated: "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
	StreamCaptureIsolation:   "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
	StreamCaptureWrongThread: "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", Unknown: "CUDA_ERROR_UNKNOWN",
	SymbolMissing: "GPUARR_SYMBOL_MISSING", LibraryMissing: "GPUARR_LIBRARY_MISSING", Closed: "GPUARR_CLOSED",
	CompileFailed: "GPUARR_COMPILE_FAILED", TimedOut: "GPUARR_TIMED_OUT",
}

// Name is the result's cuda.h name, or "CUresult(N)" for codes the project
// does not list.
func (r Result) Name() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return fmt.Sprintf("CUresult(%d)", int(r))
}

// Sticky reports whether the result leaves the CUDA context unusable: after
// one of these the process must restart to use that device again.
func (r Result) Sticky() bool {
	switch r {
	case IllegalAddress, LaunchFailed, Assert, IllegalInstruction, MisalignedAddress,
		InvalidAddressSpace, InvalidPC, LaunchTimeout:
		return true
	}
	return false
}

// Sentinel errors. Match them with errors.Is; every *Error from any backend
// matches the sentinel of its result code.
var (
	ErrNoDevice              = errors.New("no usable device")
	ErrNoDriver              = errors.New("driver library not available")
	ErrOutOfMemory           = errors.New("out of device memory")
	ErrNotSupported          = errors.New("operation not supported")
	ErrSymbolMissing         = errors.New("driver entry point missing")
	ErrInvalidValue          = errors.New("invalid value")
	ErrInvalidHandle         = errors.New("invalid handle or pointer")
	ErrNotReady              = errors.New("not ready")
	ErrInvalidPTX            = errors.New("PTX failed to compile")
	ErrNotFound              = errors.New("not found")
	ErrPeerAccessUnsupported = errors.New("peer access unsupported")
	ErrIllegalAddress        = errors.New("illegal memory access")
	ErrDeviceLost            = errors.New("device context is unusable after a sticky error")
	ErrClosed                = errors.New("use of a closed or freed object")
	ErrStreamCapture         = errors.New("operation not permitted while a stream is capturing")
	ErrCompile               = errors.New("CUDA C failed to compile")
	ErrTimeout               = errors.New("timed out waiting for other ranks")
)

// Error is a failed driver call: the call that failed, its result code and,
// when there is one, a detail such as the PTX JIT log.
type Error struct {
	Call   string // driver call or operation, e.g. "cuMemAlloc_v2"
	Code   Result
	Detail string // extra context: JIT log, sizes, device name
	// Plain words the message without CUDA's call and result names
	// ("device memory allocation: out of memory: ..."): set for errors of
	// the host backend, where those names mean nothing, and of package
	// device's own checks, which are not driver calls. Call and Code keep
	// the names for code that inspects the error.
	Plain bool
}

func (e *Error) Error() string {
	if e.Plain {
		return e.plain()
	}
	msg := e.Call + ": " + e.Code.Name()
	if d, ok := resultText[e.Code]; ok {
		msg += " (" + d + ")"
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// plain is the message without CUDA's names: the operation in words, the
// result's text and the detail. A missing entry point keeps its name,
// which is what the message is about.
func (e *Error) plain() string {
	op := e.Call
	if e.Code != SymbolMissing {
		op = PlainCall(e.Call)
	}
	text, ok := resultText[e.Code]
	if !ok {
		text = strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(e.Code.Name(), "CUDA_ERROR_"), "_", " "))
	}
	msg := op + ": " + text
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// PlainCall names a driver call in words ("cuMemAlloc_v2": "device memory
// allocation"), for messages of backends other than CUDA; a name it does
// not know, such as a Go method's, comes back unchanged.
func PlainCall(call string) string {
	if w, ok := plainCalls[call]; ok {
		return w
	}
	if kind, ok := strings.CutPrefix(call, "nccl"); ok && kind != "" {
		return "collective " + kind
	}
	return call
}

var plainCalls = map[string]string{
	"cuLaunchKernel": "kernel launch", "cuMemAlloc_v2": "device memory allocation",
	"cuMemAllocAsync": "stream-ordered allocation", "cuMemAllocFromPoolAsync": "allocation from a memory pool",
	"cuMemAllocManaged": "managed memory allocation", "cuMemAllocHost_v2": "pinned host memory allocation",
	"cuMemFree_v2": "freeing device memory", "cuMemFreeAsync": "stream-ordered free", "cuMemFreeHost": "freeing pinned host memory",
	"cuMemcpyHtoD_v2": "copy to the device", "cuMemcpyHtoDAsync_v2": "copy to the device",
	"cuMemcpyDtoH_v2": "copy to the host", "cuMemcpyDtoHAsync_v2": "copy to the host",
	"cuMemcpyDtoD_v2": "copy within the device", "cuMemcpyDtoDAsync_v2": "copy within the device",
	"cuMemcpyPeerAsync": "copy between devices", "cuMemsetD8Async": "memset", "cuMemsetD32Async": "memset",
	"cuMemPrefetchAsync": "prefetch", "cuMemAdvise": "memory advice",
	"cuMemPoolCreate": "creating a memory pool", "cuMemPoolDestroy": "destroying a memory pool",
	"cuMemAddressReserve": "reserving addresses", "cuMemAddressFree": "freeing an address reservation",
	"cuMemCreate": "creating physical memory", "cuMemRelease": "releasing physical memory",
	"cuMemMap": "mapping memory", "cuMemUnmap": "unmapping memory",
	"cuModuleLoadDataEx": "loading PTX", "cuModuleGetFunction": "looking up a kernel", "cuModuleUnload": "unloading a module",
	"cuStreamSynchronize": "stream synchronization", "cuStreamWaitEvent": "stream wait", "cuStreamQuery": "stream query",
	"cuStreamDestroy_v2": "closing a stream", "cuStreamBeginCapture_v2": "beginning a stream capture",
	"cuStreamEndCapture": "ending a stream capture", "cuStreamGetCaptureInfo_v3": "reading a stream capture",
	"cuEventRecord": "event record", "cuEventSynchronize": "event synchronization", "cuEventQuery": "event query",
	"cuEventElapsedTime": "event timing", "cuEventDestroy_v2": "closing an event",
	"cuGraphLaunch": "graph launch", "cuGraphExecDestroy": "closing a graph",
	"cuGraphExecKernelNodeSetParams_v2": "graph kernel node update",
	"cuCtxEnablePeerAccess":             "enabling peer access", "cuDeviceCanAccessPeer": "peer access",
	"nvrtcCompileProgram": "CUDA C compilation", "ncclGetUniqueId": "collective id",
	"ncclCommInitAll": "communicator setup", "ncclCommInitRank": "communicator setup",
	"ncclCommDestroy": "closing a communicator",
}

var resultText = map[Result]string{
	InvalidValue: "invalid value", OutOfMemory: "out of memory", NoDevice: "no CUDA-capable device",
	InvalidPTX: "PTX JIT compilation failed", InvalidHandle: "invalid handle",
	NotReady: "not ready", IllegalAddress: "illegal memory access; the context is unusable",
	LaunchFailed:          "kernel launch failed; the context is unusable",
	PeerAccessUnsupported: "peer access is not supported between these devices",
	NotSupported:          "not supported", SymbolMissing: "the driver library lacks this entry point",
	LibraryMissing: "the driver library could not be loaded", Closed: "the object was closed or freed",
	CompileFailed: "CUDA C compilation failed", TimedOut: "timed out", InvalidDevice: "no such device",
	InvalidImage: "invalid module image", NotFound: "not found", MisalignedAddress: "misaligned address",
	StreamCaptureUnsupported: "not permitted while a stream is capturing",
	StreamCaptureInvalidated: "the stream capture was invalidated",
	StreamCaptureIsolation:   "would join another stream's work into a capture",
	CapturedEvent:            "the event was recorded in a capture", Unknown: "failed",
}

// Is matches the sentinel that corresponds to the error's result code.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrOutOfMemory:
		return e.Code == OutOfMemory
	case ErrNoDevice:
		return e.Code == NoDevice || e.Code == InvalidDevice
	case ErrNoDriver:
		return e.Code == LibraryMissing
	case ErrNotSupported:
		return e.Code == NotSupported || e.Code == SymbolMissing || e.Code == LibraryMissing
	case ErrSymbolMissing:
		return e.Code == SymbolMissing
	case ErrInvalidValue:
		return e.Code == InvalidValue
	case ErrInvalidHandle:
		return e.Code == InvalidHandle
	case ErrNotReady:
		return e.Code == NotReady
	case ErrInvalidPTX:
		return e.Code == InvalidPTX || e.Code == InvalidImage
	case ErrNotFound:
		return e.Code == NotFound
	case ErrPeerAccessUnsupported:
		return e.Code == PeerAccessUnsupported
	case ErrIllegalAddress:
		return e.Code == IllegalAddress
	case ErrDeviceLost:
		return e.Code.Sticky()
	case ErrClosed:
		return e.Code == Closed
	case ErrStreamCapture:
		return e.Code >= StreamCaptureUnsupported && e.Code <= StreamCaptureWrongThread
	case ErrCompile:
		return e.Code == CompileFailed
	case ErrTimeout:
		return e.Code == TimedOut
	}
	return false
}

// Errorf builds an *Error for call with code and a formatted detail.
func Errorf(call string, code Result, format string, args ...any) *Error {
	return &Error{Call: call, Code: code, Detail: fmt.Sprintf(format, args...)}
}

// PlainErrorf is Errorf for an error worded without CUDA's names (Plain).
func PlainErrorf(call string, code Result, format string, args ...any) *Error {
	e := Errorf(call, code, format, args...)
	e.Plain = true
	return e
}
