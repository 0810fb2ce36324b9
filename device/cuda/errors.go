//go:build cgo

package cuda

import (
	"fmt"
	"strings"

	"github.com/gpuarr/gpuarr/device/driver"
)

// decode splits a shim result: the CUresult in the low 32 bits and, above
// them, the index of the entry point that returned it.
func decode(rc int64) (driver.Result, int) {
	return driver.Result(int32(uint32(rc))), int(uint64(rc) >> 32)
}

// newError turns a failed shim result into a *driver.Error naming the call.
func newError(rc int64, detail string) *driver.Error {
	code, sym := decode(rc)
	e := &driver.Error{Call: symName(sym), Code: code, Detail: detail}
	switch {
	case code == driver.SymbolMissing:
		e.Detail = joinDetail(detail, "libcuda.so.1 does not export "+e.Call+" (or a test hid it)")
	case strings.HasPrefix(code.Name(), "CUresult("):
		// A code the driver package does not name: let libcuda say what it is.
		e.Detail = joinDetail(libErrorText(code), detail)
	}
	return e
}

func joinDetail(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// lostError is what every call on a device returns once a sticky error
// made its context unusable: the original failure, named.
func lostError(call, device string, cause *driver.Error) *driver.Error {
	return &driver.Error{Call: call, Code: cause.Code,
		Detail: fmt.Sprintf("%s is unusable since %s; restart the process to use it again", device, cause.Error())}
}
