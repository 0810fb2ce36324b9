//go:build cgo

package cuda

/*
#include <stdlib.h>
#include "extlib.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// NVRTC is loaded on the first CompileCUDA. Compilations are serialized:
// they are rare, and older NVRTC releases did not promise thread safety.
var nvrtcLib struct {
	once  sync.Once
	path  string
	err   error
	archs []int // compute_XY values it supports, as XY; nil when it cannot say
	mu    sync.Mutex
}

func loadNvrtc(driverVersion int) error {
	nvrtcLib.once.Do(func() {
		cands := libCandidates("libnvrtc", EnvNvrtcLib, driverVersion)
		var first string
		for i, c := range cands {
			var builtins *C.char
			if c.dir != "" {
				builtins = C.CString(c.dir + "/libnvrtc-builtins.so.*")
			}
			path := C.CString(c.path)
			var buf [512]byte
			rc := C.gp_nvrtc_open(builtins, path, (*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
			C.free(unsafe.Pointer(path))
			C.free(unsafe.Pointer(builtins))
			if rc == 0 {
				nvrtcLib.path = c.path
				var archs [64]C.int
				if n := int(C.gp_nvrtc_archs(&archs[0], C.int(len(archs)))); n > 0 {
					for _, a := range archs[:n] {
						nvrtcLib.archs = append(nvrtcLib.archs, int(a))
					}
				}
				return
			}
			if i == 0 {
				first = cstr(buf[:])
			}
		}
		nvrtcLib.err = loadError(driver.CompilerLibrary, EnvNvrtcLib, cands, first)
	})
	return nvrtcLib.err
}

// defaultArch is the --gpu-architecture for d: its own compute capability,
// or the newest one NVRTC supports below it. The driver JIT-compiles PTX
// of any compute_XY up to the device's, so this is the best it accepts.
func (d *device) defaultArch() string {
	sm := d.info.ComputeMajor*10 + d.info.ComputeMinor
	best := sm
	if len(nvrtcLib.archs) > 0 {
		best = 0
		for _, a := range nvrtcLib.archs {
			if a <= sm && a > best {
				best = a
			}
		}
		if best == 0 {
			best = nvrtcLib.archs[0]
		}
	}
	return fmt.Sprintf("--gpu-architecture=compute_%d", best)
}

func hasArchOption(opts []string) bool {
	for _, o := range opts {
		if strings.HasPrefix(o, "--gpu-architecture") || strings.HasPrefix(o, "-arch") {
			return true
		}
	}
	return false
}

// nvrtcResult values the errors distinguish (nvrtc.h).
const (
	nvrtcOutOfMemory      = 1
	nvrtcInvalidOption    = 5
	nvrtcCompilation      = 6
	nvrtcBuiltinOperation = 7
)

var nvrtcCallNames = [...]string{"nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetPTX", "nvrtcGetProgramLog"}

// CompileCUDA compiles src with NVRTC for this device; see driver.Compiler.
func (d *device) CompileCUDA(src, name string, opts []string) (ptx, log string, err error) {
	if libHides.nvrtc.Load() > 0 {
		return "", "", hiddenLibError(driver.CompilerLibrary, "libnvrtc")
	}
	if err := loadNvrtc(d.info.DriverVersion); err != nil {
		return "", "", err
	}
	if !hasArchOption(opts) {
		opts = append([]string{d.defaultArch()}, opts...)
	}
	csrc, cname := C.CString(src), C.CString(name)
	defer C.free(unsafe.Pointer(csrc))
	defer C.free(unsafe.Pointer(cname))
	// The option array is C memory: cgo may not pass Go memory that
	// holds pointers (here, to the C strings).
	copts := unsafe.Slice((**C.char)(C.malloc(C.size_t(len(opts)+1)*C.size_t(unsafe.Sizeof(uintptr(0))))), len(opts)+1)
	for i, o := range opts {
		copts[i] = C.CString(o)
	}
	copts[len(opts)] = nil
	defer func() {
		for _, p := range copts[:len(opts)] {
			C.free(unsafe.Pointer(p))
		}
		C.free(unsafe.Pointer(&copts[0]))
	}()

	nvrtcLib.mu.Lock()
	r := C.gp_nvrtc_compile(csrc, cname, C.int(len(opts)), &copts[0])
	nvrtcLib.mu.Unlock()
	if r.log != nil {
		log = strings.TrimRight(C.GoStringN(r.log, C.int(r.loglen)), "\x00\n ")
		C.free(unsafe.Pointer(r.log))
	}
	if r.ptx != nil {
		ptx = C.GoStringN(r.ptx, C.int(r.ptxlen))
		C.free(unsafe.Pointer(r.ptx))
	}
	if r.rc == 0 {
		return ptx, log, nil
	}
	return "", log, nvrtcError(int(r.rc), int(r.which), name, opts, log)
}

func nvrtcError(rc, which int, name string, opts []string, log string) error {
	call := "nvrtc"
	if which >= 0 && which < len(nvrtcCallNames) {
		call = nvrtcCallNames[which]
	}
	text := fmt.Sprintf("nvrtcResult(%d)", rc)
	if s := C.gp_nvrtc_error_string(C.int(rc)); s != nil {
		text = C.GoString(s)
	}
	code := driver.Unknown
	switch rc {
	case nvrtcCompilation, nvrtcInvalidOption:
		code = driver.CompileFailed
	case nvrtcOutOfMemory:
		code = driver.OutOfMemory
	case nvrtcBuiltinOperation:
		code = driver.NotSupported
		text += " (NVRTC could not load its builtins library, libnvrtc-builtins.so, from beside " + nvrtcLib.path + ")"
	}
	detail := fmt.Sprintf("%s: %s with options %q", text, name, opts)
	if log != "" {
		detail += "\n" + log
	}
	return &driver.Error{Call: call, Code: code, Detail: detail}
}
