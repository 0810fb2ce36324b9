//go:build cgo

package cuda

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device/driver"
)

// cuBLAS and NVRTC are loaded on first use, like libcuda, from the first
// of these that opens: the soname on the loader's path, then the CUDA
// toolkit's usual directories (a toolkit often sits outside the loader's
// path). A CUDA 13 library needs a CUDA 13 driver, so with an older driver
// only major 12 is tried. GPUARR_CUBLAS_LIB and GPUARR_NVRTC_LIB name the
// file to open instead (a path, or a soname for the loader to find).
const (
	EnvCublasLib = "GPUARR_CUBLAS_LIB"
	EnvNvrtcLib  = "GPUARR_NVRTC_LIB"
)

var toolkitDirs = []string{"/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/cuda/lib64"}

// libCandidate is one file to dlopen, with its directory ("" for a soname
// the loader resolves) and major version.
type libCandidate struct {
	path, dir string
	major     int
}

// libCandidates lists what to try for lib ("libcublas") given the
// driver's version (CUDA encoding) and the override variable.
func libCandidates(lib, env string, driverVersion int) []libCandidate {
	majors := []int{13, 12}
	if driverVersion > 0 && driverVersion < 13000 {
		majors = []int{12}
	}
	return libCandidatesFor(lib, env, majors)
}

// libCandidatesFor lists what to try for lib with these soname majors,
// in order, and the override variable.
func libCandidatesFor(lib, env string, majors []int) []libCandidate {
	if v := strings.TrimSpace(os.Getenv(env)); v != "" {
		dir := ""
		if strings.Contains(v, "/") {
			dir = filepath.Dir(v)
		}
		return []libCandidate{{path: v, dir: dir}}
	}
	var out []libCandidate
	for _, m := range majors {
		so := fmt.Sprintf("%s.so.%d", lib, m)
		out = append(out, libCandidate{path: so, major: m})
		for _, d := range toolkitDirs {
			out = append(out, libCandidate{path: filepath.Join(d, so), dir: d, major: m})
		}
	}
	return out
}

// loadError is the error for a library none of whose candidates opened:
// NotSupported, naming the library, what was tried and why the first
// failed (later ones mostly fail the same way).
func loadError(library, env string, tried []libCandidate, first string) error {
	paths := make([]string, len(tried))
	for i, c := range tried {
		paths[i] = c.path
	}
	detail := fmt.Sprintf("tried %s: %s", strings.Join(paths, ", "), first)
	if os.Getenv(env) != "" {
		detail += " (" + env + " chose the file)"
	}
	return &driver.Error{Call: "dlopen " + library, Code: driver.NotSupported, Detail: detail}
}

// Tests hide a whole library with HideSymbol("libcublas"),
// HideSymbol("libcusolver"), HideSymbol("libcufft"), HideSymbol("libnvrtc") or
// HideSymbol("libnccl"):
// it then looks missing whether or not it loaded.
var libHides struct{ cublas, cusolver, cufft, nvrtc, nccl atomic.Int32 }

func libHideCounter(name string) *atomic.Int32 {
	switch name {
	case "libcublas":
		return &libHides.cublas
	case "libcusolver":
		return &libHides.cusolver
	case "libcufft":
		return &libHides.cufft
	case "libnvrtc":
		return &libHides.nvrtc
	case "libnccl":
		return &libHides.nccl
	}
	return nil
}

func hiddenLibError(library, name string) error {
	return &driver.Error{Call: "dlopen " + library, Code: driver.NotSupported,
		Detail: "hidden by HideSymbol(\"" + name + "\")"}
}
