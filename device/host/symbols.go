package host

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device/driver"
)

// The host device has no driver library, but each feature answers to the
// CUDA entry point it stands for, so that tests can hide one (HideSymbol)
// and prove that only that feature goes away, on either backend:
//
//	cuMemAlloc_v2, cuMemFree_v2, cuMemGetInfo_v2       Device.Alloc, Free, MemInfo
//	cuMemcpyHtoD_v2, cuMemcpyDtoH_v2, cuMemcpyDtoD_v2  Device copies
//	cuMemcpyHtoDAsync_v2, …DtoHAsync_v2, …DtoDAsync_v2 Stream copies
//	cuMemcpyPeerAsync, cuMemsetD8Async, cuMemsetD32Async
//	cuMemAllocAsync, cuMemFreeAsync                    Stream.AllocAsync, FreeAsync
//	cuMemAllocHost_v2, cuMemFreeHost                   Device.AllocHost, FreeHost
//	cuMemPoolCreate, cuMemAllocFromPoolAsync, cuMemPoolDestroy,
//	cuMemPoolTrimTo, cuMemPoolSetAttribute, cuMemPoolGetAttribute
//	cuStreamCreate, cuStreamSynchronize, cuStreamQuery, cuStreamWaitEvent,
//	cuCtxSynchronize
//	cuEventCreate, cuEventDestroy_v2, cuEventRecord, cuEventQuery,
//	cuEventSynchronize, cuEventElapsedTime
//	cuDeviceCanAccessPeer, cuCtxEnablePeerAccess
//	cuModuleLoadDataEx, cuModuleGetFunction, cuModuleUnload, cuLaunchKernel
//
// Names match with or without their "_v2" suffix.
type symbols struct {
	n      atomic.Int32 // hidden names; zero keeps the check to one load
	mu     sync.Mutex
	hidden map[string]int
}

func canonicalSymbol(name string) string { return strings.TrimSuffix(name, "_v2") }

// HideSymbol makes the named entry point look missing on this device until
// restore runs. Hiding nests: a name stays hidden until every restore ran.
func (d *device) HideSymbol(name string) (restore func()) {
	key := canonicalSymbol(name)
	d.syms.mu.Lock()
	if d.syms.hidden == nil {
		d.syms.hidden = map[string]int{}
	}
	d.syms.hidden[key]++
	d.syms.n.Add(1)
	d.syms.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			d.syms.mu.Lock()
			if d.syms.hidden[key]--; d.syms.hidden[key] == 0 {
				delete(d.syms.hidden, key)
			}
			d.syms.n.Add(-1)
			d.syms.mu.Unlock()
		})
	}
}

// symbol fails with SymbolMissing when call is hidden.
func (d *device) symbol(call string) error {
	if d.syms.n.Load() == 0 {
		return nil
	}
	d.syms.mu.Lock()
	hidden := d.syms.hidden[canonicalSymbol(call)] > 0
	d.syms.mu.Unlock()
	if hidden {
		return &driver.Error{Plain: true, Call: call, Code: driver.SymbolMissing, Detail: "hidden on " + d.String() + " by HideSymbol"}
	}
	return nil
}
