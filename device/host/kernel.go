package host

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/hostkernel"
)

// The kernel registry: Go functions standing for PTX entry points, shared
// by every host device of the process (see hostkernel.Registry).
var registry struct {
	mu      sync.RWMutex
	kernels map[string]hostkernel.Kernel
}

// registerKernel binds k to name unless a kernel already has that name,
// and reports whether it bound k. An empty name or nil kernel is a
// programming error here: package device refuses them before.
func registerKernel(name string, k hostkernel.Kernel) bool {
	if name == "" || k == nil {
		panic("host: registering an empty kernel name or a nil kernel")
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if _, dup := registry.kernels[name]; dup {
		return false
	}
	if registry.kernels == nil {
		registry.kernels = map[string]hostkernel.Kernel{}
	}
	registry.kernels[name] = k
	return true
}

// RegisterKernel implements hostkernel.Registry for every host device: the
// registry is the process's.
func (d *device) RegisterKernel(name string, k hostkernel.Kernel) bool {
	return registerKernel(name, k)
}

func lookupKernel(name string) (hostkernel.Kernel, bool) {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	k, ok := registry.kernels[name]
	return k, ok
}

// launchMemory is one launch's way into device memory (hostkernel.Memory):
// it pins each allocation the kernel views until the kernel returns, so a
// racing free waits instead of unmapping memory under it.
type launchMemory struct {
	name string
	dev  *device

	mu       sync.Mutex
	pins     []*allocation
	finished bool // the kernel returned: its views are gone
}

// Bytes resolves [p, p+n) to a live allocation the launching device may
// touch (its own, or a peer's with peer access enabled) and pins it.
func (m *launchMemory) Bytes(p driver.Ptr, n uint64) ([]byte, error) {
	a, b, why := index.pin(p, n)
	if a == nil {
		return nil, illegal("cuLaunchKernel", fmt.Sprintf("kernel %s on %s: %s", m.name, m.dev, why))
	}
	if !m.dev.peerOK(a.dev) {
		a.unpin()
		return nil, illegal("cuLaunchKernel", fmt.Sprintf("kernel %s on %s touched %v, memory of %s, without peer access (EnablePeerAccess from %s to %s)",
			m.name, m.dev, p, a.dev, m.dev, a.dev))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.finished {
		// A goroutine the kernel left behind: an unpinned view could
		// outlive the mapping, so refuse.
		a.unpin()
		return nil, illegal("cuLaunchKernel", fmt.Sprintf("kernel %s on %s: memory accessed after the kernel returned", m.name, m.dev))
	}
	m.pins = append(m.pins, a)
	return b, nil
}

// run executes k on l (whose memory is m), turning a panic into
// LaunchFailed, and unpins the memory it used.
func (m *launchMemory) run(k hostkernel.Kernel, l *hostkernel.Launch) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errorf("cuLaunchKernel", driver.LaunchFailed, "kernel %s on %s panicked: %v\n%s", m.name, m.dev, r, debug.Stack())
		}
		m.mu.Lock()
		for _, a := range m.pins {
			a.unpin()
		}
		m.pins, m.finished = nil, true
		m.mu.Unlock()
	}()
	err = k(l)
	var de *driver.Error
	if err != nil && !errors.As(err, &de) {
		err = errorf("cuLaunchKernel", driver.LaunchFailed, "kernel %s on %s: %v", m.name, m.dev, err)
	}
	return err
}

// Launch limits, as on sm_90.
const (
	maxBlockThreads = 1024
	maxBlockZ       = 64
	maxGridYZ       = 65535
	maxSharedBytes  = 227 << 10
)

// Launch queues f with a private copy of args.
func (s *stream) Launch(f driver.Function, grid, block driver.Dim3, sharedBytes uint32, args *driver.Args) error {
	const call = "cuLaunchKernel"
	if err := s.dev.symbol(call); err != nil {
		return err
	}
	fn, ok := f.(*function)
	if !ok {
		return errorf(call, driver.InvalidHandle, "%T is not a host kernel", f)
	}
	if fn.mod.dev != s.dev {
		return errorf(call, driver.InvalidHandle, "kernel %s was loaded on %s, stream is on %s", fn.name, fn.mod.dev, s.dev)
	}
	if fn.mod.closed.Load() {
		return errorf(call, driver.Closed, "kernel %s of an unloaded module", fn.name)
	}
	grid, block = grid.Norm(), block.Norm()
	if err := checkLaunch(call, fn, grid, block, sharedBytes); err != nil {
		return err
	}
	var a driver.Args
	if args != nil {
		a = *args
	}
	// Each run gets a fresh Launch, so a captured launch can be replayed.
	return s.enqueueNode(call, launchOp(s.dev, fn, grid, block, sharedBytes, a), &node{kernel: fn})
}

// launchOp is one launch of fn, run afresh each time (so that a captured
// launch can be replayed).
func launchOp(dev *device, fn *function, grid, block driver.Dim3, sharedBytes uint32, a driver.Args) op {
	return func() error {
		m := &launchMemory{name: fn.name, dev: dev}
		l := hostkernel.NewLaunch(fn.name, dev, m)
		l.Grid, l.Block, l.SharedBytes, l.Args = grid, block, sharedBytes, a
		return m.run(fn.kernel, l)
	}
}

// checkLaunch checks a launch's shape against the device's limits.
func checkLaunch(call string, fn *function, grid, block driver.Dim3, sharedBytes uint32) error {
	switch {
	case block.Count() > maxBlockThreads || block.X > maxBlockThreads || block.Y > maxBlockThreads || block.Z > maxBlockZ:
		return errorf(call, driver.InvalidValue, "kernel %s: block %dx%dx%d exceeds %d threads (z ≤ %d)",
			fn.name, block.X, block.Y, block.Z, maxBlockThreads, maxBlockZ)
	case grid.X > 1<<31-1 || grid.Y > maxGridYZ || grid.Z > maxGridYZ:
		return errorf(call, driver.InvalidValue, "kernel %s: grid %dx%dx%d out of range", fn.name, grid.X, grid.Y, grid.Z)
	case sharedBytes > maxSharedBytes:
		return errorf(call, driver.InvalidValue, "kernel %s: %d bytes of shared memory, at most %d", fn.name, sharedBytes, maxSharedBytes)
	}
	return nil
}
