package cuda

/*
#cgo LDFLAGS: -ldl
#cgo CFLAGS: -O2 -std=gnu11

// Functions that receive Go memory keep no pointer after they return and
// never call back into Go: tell cgo, so the memory is not forced to the heap.
#cgo noescape gp_launch
#cgo nocallback gp_launch
#cgo noescape gp_launch_after
#cgo nocallback gp_launch_after
#cgo noescape gp_memcpy_htod
#cgo nocallback gp_memcpy_htod
#cgo noescape gp_memcpy_dtoh
#cgo nocallback gp_memcpy_dtoh
#cgo noescape gp_memcpy_htod_async
#cgo nocallback gp_memcpy_htod_async
#cgo noescape gp_memcpy_dtoh_async
#cgo nocallback gp_memcpy_dtoh_async
#cgo noescape gp_module_load
#cgo nocallback gp_module_load
#cgo noescape gp_device_name
#cgo nocallback gp_device_name
#cgo noescape gp_load
#cgo nocallback gp_load

#include "shim.h"
*/
import "C"

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// The library is opened on first use (Devices), never at import.
var lib struct {
	once sync.Once
	err  error
}

func load() error {
	lib.once.Do(func() {
		var buf [512]byte
		if C.gp_load((*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf))) != 0 {
			lib.err = &driver.Error{Call: "dlopen libcuda.so.1", Code: driver.LibraryMissing, Detail: cstr(buf[:])}
		}
	})
	return lib.err
}

// symbols maps every export name an entry point may have, and its API name
// without "_v2" ("cuMemAlloc" as well as "cuMemAlloc_v2"), to its index.
var symbols = sync.OnceValue(func() (t struct{ index map[string]int }) {
	n := int(C.gp_nsym())
	t.index = make(map[string]int, 3*n)
	for i := range n {
		for k := range 2 {
			s := C.gp_sym_candidate(C.int(i), C.int(k))
			if s == nil {
				continue
			}
			name := C.GoString(s)
			t.index[name] = i
			if base, ok := strings.CutSuffix(name, "_v2"); ok {
				if _, taken := t.index[base]; !taken {
					t.index[base] = i
				}
			}
		}
	}
	return t
})

// symName is the export name of entry point i as error messages give it:
// the one resolved, or the first tried when none was.
func symName(i int) string {
	if s := C.gp_sym_name(C.int(i)); s != nil {
		return C.GoString(s)
	}
	return "libcuda"
}

// hideSymbol makes a driver entry point look missing until restore runs.
// The table is shared by every device of the process, so the symbol is
// hidden for all of them. Hides nest; unknown names hide nothing.
// "libcublas" and "libnvrtc" hide those whole libraries (extlib.go).
func hideSymbol(name string) (restore func()) {
	if n := libHideCounter(name); n != nil {
		n.Add(1)
		var once sync.Once
		return func() { once.Do(func() { n.Add(-1) }) }
	}
	i, ok := symbols().index[name]
	if !ok {
		return func() {}
	}
	C.gp_sym_hide(C.int(i), 1)
	var once sync.Once
	return func() { once.Do(func() { C.gp_sym_hide(C.int(i), -1) }) }
}

// hiddenCount is how many hides of entry point i are in force.
func hiddenCount(i int) int { return int(C.gp_sym_hidden(C.int(i))) }

// symbolPresent reports whether the library exports the entry point (and no
// test hides it).
func symbolPresent(name string) bool {
	i, ok := symbols().index[name]
	return ok && C.gp_sym_present(C.int(i)) != 0
}

// libErrorText is libcuda's own name and description of a result, for codes
// the driver package does not list.
func libErrorText(r driver.Result) string {
	var parts []string
	if s := C.gp_error_name(C.CUresult(r)); s != nil {
		parts = append(parts, C.GoString(s))
	}
	if s := C.gp_error_string(C.CUresult(r)); s != nil {
		parts = append(parts, C.GoString(s))
	}
	return strings.Join(parts, ": ")
}

// cstr is the NUL-terminated string at the start of b.
func cstr(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}
