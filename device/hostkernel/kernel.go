package hostkernel

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Kernel is a kernel written in Go: a function that does the work of a
// whole launch. It runs on the stream's goroutine; an error it returns, or
// a panic, is the stream's asynchronous error.
type Kernel func(l *Launch) error

// Memory is a backend's side of one launch: the checked way from device
// addresses to bytes. Bytes is called with n > 0; it returns the n bytes at
// p, valid until the kernel returns, or an error (driver.IllegalAddress for
// memory the kernel may not touch).
type Memory interface {
	Bytes(p driver.Ptr, n uint64) ([]byte, error)
}

// Launch is what a kernel sees of its launch. Memory comes through Bytes
// and View; the slices they return are valid until the kernel returns, and
// a kernel must not keep them.
type Launch struct {
	Grid, Block driver.Dim3
	SharedBytes uint32
	// Args is the launch's own copy of the arguments.
	Args driver.Args

	name string
	dev  driver.Device
	mem  Memory
}

// NewLaunch is for backends: the launch of entry name on dev, reaching
// device memory through mem. The backend sets the geometry and arguments.
func NewLaunch(name string, dev driver.Device, mem Memory) *Launch {
	return &Launch{name: name, dev: dev, mem: mem}
}

// Name is the kernel's entry point.
func (l *Launch) Name() string { return l.name }

// Device is the device the kernel runs on.
func (l *Launch) Device() driver.Device { return l.dev }

// Threads is the launch's total thread count (grid × block).
func (l *Launch) Threads() uint64 { return l.Grid.Count() * l.Block.Count() }

// Bytes returns the n bytes of device memory at p. Memory of another device
// needs peer access enabled from the launching device; without it, or
// outside live allocations, the result is an IllegalAddress error, as the
// kernel would fault on a GPU.
func (l *Launch) Bytes(p driver.Ptr, n uint64) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	if l.mem == nil {
		return nil, illegal(fmt.Sprintf("kernel %s: the launch has no device memory behind it (made without NewLaunch)", l.name))
	}
	return l.mem.Bytes(p, n)
}

// illegal is the error of a kernel touching memory it may not.
func illegal(why string) error {
	return launchError(driver.IllegalAddress, "%s", why)
}

// launchError is a failed launch on the host backend, which runs these
// kernels: its message is worded without CUDA's names.
func launchError(code driver.Result, format string, args ...any) error {
	return driver.PlainErrorf("cuLaunchKernel", code, format, args...)
}
