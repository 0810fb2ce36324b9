package hostkernel

// Registry is an optional capability of a backend's driver.Device: the
// backend runs kernels written in Go, bound to PTX entry names, in place of
// the PTX. Package device exposes it as Device.RegisterHostKernel, which
// validates the name and kernel before a backend sees them.
//
// RegisterKernel binds k to the entry point name unless a kernel already
// has that name, and reports whether it bound k: the first binding wins,
// so one name must always mean one kernel (a package prefix, or a name
// derived from the kernel's content). Bindings are process-wide for the
// backend, shared by all its devices, and apply to modules loaded after
// the call.
type Registry interface {
	RegisterKernel(name string, k Kernel) bool
}
