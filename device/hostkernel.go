package device

import (
	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/hostkernel"
)

// RunsHostKernels reports whether d runs kernels written in Go (package
// device/hostkernel) in place of the PTX entry points they are bound to:
// true on the host backend, false on CUDA.
func (d *Device) RunsHostKernels() bool {
	_, ok := d.drv.(hostkernel.Registry)
	return ok
}

// RegisterHostKernel binds k, a kernel written in Go, to the PTX entry
// point name on a backend that runs such kernels (RunsHostKernels): a
// module loaded afterwards whose PTX declares that entry runs k there, and
// its PTX on a GPU. It reports whether k was bound. Bindings are
// process-wide, shared by every device of the backend, and the first
// binding of a name wins, so one name must always mean one kernel: prefix
// names with the package's, or derive them from the kernel's content.
//
// On a backend that runs only PTX the error matches ErrNotSupported; an
// empty or malformed name (not a PTX identifier) or a nil kernel matches
// ErrInvalidValue.
func (d *Device) RegisterHostKernel(name string, k hostkernel.Kernel) (bool, error) {
	const call = "Device.RegisterHostKernel"
	r, ok := d.drv.(hostkernel.Registry)
	if !ok {
		return false, driver.PlainErrorf(call, driver.NotSupported, "the %s backend runs PTX, not kernels written in Go", d.Backend())
	}
	if !ptxIdentifier(name) {
		return false, invalid(call, "entry name %q is not a PTX identifier (a letter, _ or $, then letters, digits, _ or $)", name)
	}
	if k == nil {
		return false, invalid(call, "nil kernel for entry %s", name)
	}
	return r.RegisterKernel(name, k), nil
}

// ptxIdentifier reports whether name can be a PTX entry point's name.
func ptxIdentifier(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
