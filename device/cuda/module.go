//go:build cgo

package cuda

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// jitLogBytes bounds each JIT log; ptxas messages are a line per error.
const jitLogBytes = 16 << 10

type module struct {
	dev    *device
	h      C.gp_h
	closed atomic.Bool
}

// function is a CUfunction with the module that owns it, so a launch can
// refuse a function whose module was unloaded.
type function struct {
	mod  *module
	h    C.gp_h
	name string
}

func (f *function) Name() string { return f.name }

// LoadModule JIT-compiles PTX with cuModuleLoadDataEx; on failure the
// error's Detail is the JIT error log (and info log).
func (d *device) LoadModule(ptx string) (driver.Module, error) {
	if err := d.check("cuModuleLoadDataEx"); err != nil {
		return nil, err
	}
	img := C.CString(ptx)
	defer C.free(unsafe.Pointer(img))
	errLog := make([]byte, jitLogBytes)
	infoLog := make([]byte, jitLogBytes)
	r := C.gp_module_load(d.ctx, img,
		(*C.char)(unsafe.Pointer(&errLog[0])), C.uint(len(errLog)),
		(*C.char)(unsafe.Pointer(&infoLog[0])), C.uint(len(infoLog)))
	if r.rc != 0 {
		return nil, d.fail(int64(r.rc), "%s", joinDetail(cstr(errLog), cstr(infoLog)))
	}
	return &module{dev: d, h: C.gp_h(r.v)}, nil
}

func (m *module) check(call string) error {
	if m.closed.Load() {
		return closedError(call, "the module")
	}
	return m.dev.check(call)
}

// Function looks up a kernel; a missing one is a NotFound error naming it.
func (m *module) Function(name string) (driver.Function, error) {
	if err := m.check("cuModuleGetFunction"); err != nil {
		return nil, err
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	r := C.gp_module_function(m.dev.ctx, m.h, cname)
	if r.rc != 0 {
		return nil, m.dev.fail(int64(r.rc), "kernel %q", name)
	}
	return &function{mod: m, h: C.gp_h(r.v), name: name}, nil
}

func (m *module) Close() error {
	if !m.closed.CompareAndSwap(false, true) {
		return closedError("cuModuleUnload", "the module")
	}
	if err := m.dev.check("cuModuleUnload"); err != nil {
		return err
	}
	if rc := C.gp_module_unload(m.dev.ctx, m.h); rc != 0 {
		return m.dev.fail(int64(rc), "")
	}
	return nil
}
