package host

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Kernel is a host kernel: a Go function that does the work of a whole
// launch (every block and thread), usually with a loop over its elements.
// It runs on the stream's goroutine; an error it returns, or a panic, is
// the stream's asynchronous error.
type Kernel func(l *Launch) error

var registry struct {
	mu      sync.RWMutex
	kernels map[string]Kernel
}

// RegisterKernel makes k the host implementation of the PTX entry point
// name; modules whose PTX declares that entry run k. Call it from init.
// Registering a name twice panics: two packages claiming one entry point
// is a programming error.
func RegisterKernel(name string, k Kernel) {
	if name == "" || k == nil {
		panic("host.RegisterKernel: empty name or nil kernel")
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if _, dup := registry.kernels[name]; dup {
		panic("host.RegisterKernel: kernel " + name + " registered twice")
	}
	if registry.kernels == nil {
		registry.kernels = map[string]Kernel{}
	}
	registry.kernels[name] = k
}

// EnsureKernel registers k for name unless a kernel already has that name,
// and reports whether it registered k. It is for generated kernels whose
// entry name is derived from their content (package gpuarr's fused
// expressions), so that one name always means the same kernel and a
// second registration is redundant rather than a conflict.
func EnsureKernel(name string, k Kernel) bool {
	if name == "" || k == nil {
		panic("host.EnsureKernel: empty name or nil kernel")
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if _, dup := registry.kernels[name]; dup {
		return false
	}
	if registry.kernels == nil {
		registry.kernels = map[string]Kernel{}
	}
	registry.kernels[name] = k
	return true
}

func lookupKernel(name string) (Kernel, bool) {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	k, ok := registry.kernels[name]
	return k, ok
}

// Launch is what a kernel sees of its launch. Memory comes through Bytes
// and View, which check that the addresses are live and reachable from the
// launching device. The slices they return are valid until the kernel
// returns; a kernel must not keep them.
type Launch struct {
	Grid, Block driver.Dim3
	SharedBytes uint32
	// Args is the launch's own copy of the arguments.
	Args driver.Args

	name string
	dev  *device

	mu       sync.Mutex
	pins     []*allocation
	finished bool // the kernel returned: its views are gone
}

// Name is the kernel's entry point.
func (l *Launch) Name() string { return l.name }

// Device is the device the kernel runs on.
func (l *Launch) Device() driver.Device { return l.dev }

// Threads is the launch's total thread count (grid × block).
func (l *Launch) Threads() uint64 { return l.Grid.Count() * l.Block.Count() }

// Bytes returns the n bytes of device memory at p. Memory of another device
// needs peer access enabled from the launching device (EnablePeerAccess);
// without it, or outside live allocations, the result is an IllegalAddress
// error, as the kernel would fault on a GPU.
func (l *Launch) Bytes(p driver.Ptr, n uint64) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	a, b, why := index.pin(p, n)
	if a == nil {
		return nil, illegal("cuLaunchKernel", fmt.Sprintf("kernel %s on %s: %s", l.name, l.dev, why))
	}
	if !l.dev.peerOK(a.dev) {
		a.unpin()
		return nil, illegal("cuLaunchKernel", fmt.Sprintf("kernel %s on %s touched %v, memory of %s, without peer access (EnablePeerAccess from %s to %s)",
			l.name, l.dev, p, a.dev, l.dev, a.dev))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.finished {
		// A goroutine the kernel left behind: an unpinned view could
		// outlive the mapping, so refuse.
		a.unpin()
		return nil, illegal("cuLaunchKernel", fmt.Sprintf("kernel %s on %s: memory accessed after the kernel returned", l.name, l.dev))
	}
	l.pins = append(l.pins, a)
	return b, nil
}

// View returns n elements of type T at p (see Bytes). T must hold no Go
// pointers: device memory is outside the heap the GC scans. p must be
// aligned for T.
func View[T any](l *Launch, p driver.Ptr, n uint64) ([]T, error) {
	var zero T
	size, align := uint64(unsafe.Sizeof(zero)), uint64(unsafe.Alignof(zero))
	if n == 0 || size == 0 {
		return nil, nil
	}
	if uint64(p)%align != 0 {
		return nil, driver.Errorf("cuLaunchKernel", driver.MisalignedAddress, "kernel %s on %s: %v is not %d-byte aligned for %T",
			l.name, l.dev, p, align, zero)
	}
	if n > ^uint64(0)/size {
		return nil, illegal("cuLaunchKernel", fmt.Sprintf("kernel %s on %s: %d elements of %T overflow", l.name, l.dev, n, zero))
	}
	b, err := l.Bytes(p, n*size)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n), nil
}

// parallelGrain is the fewest elements worth a goroutine of their own.
const parallelGrain = 1 << 15

// ParallelFor runs body over [0, n) split into contiguous chunks on up to
// GOMAXPROCS goroutines (the device's "multiprocessors") and returns when
// all are done. A panic in body is re-raised in the kernel.
func (l *Launch) ParallelFor(n uint64, body func(lo, hi uint64)) {
	workers := min(uint64(runtime.GOMAXPROCS(0)), (n+parallelGrain-1)/parallelGrain)
	if workers <= 1 {
		if n > 0 {
			body(0, n)
		}
		return
	}
	chunk := (n + workers - 1) / workers
	var (
		wg       sync.WaitGroup
		panicked sync.Once
		reason   any
	)
	for lo := uint64(0); lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					panicked.Do(func() { reason = r })
				}
			}()
			body(lo, hi)
		})
	}
	wg.Wait()
	if reason != nil {
		panic(reason)
	}
}

// run executes the kernel, turning a panic into LaunchFailed, and unpins
// the memory it used.
func (l *Launch) run(k Kernel) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = driver.Errorf("cuLaunchKernel", driver.LaunchFailed, "kernel %s on %s panicked: %v\n%s", l.name, l.dev, r, debug.Stack())
		}
		l.mu.Lock()
		for _, a := range l.pins {
			a.unpin()
		}
		l.pins, l.finished = nil, true
		l.mu.Unlock()
	}()
	err = k(l)
	var de *driver.Error
	if err != nil && !errors.As(err, &de) {
		err = driver.Errorf("cuLaunchKernel", driver.LaunchFailed, "kernel %s on %s: %v", l.name, l.dev, err)
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
		return driver.Errorf(call, driver.InvalidHandle, "%T is not a host kernel", f)
	}
	if fn.mod.dev != s.dev {
		return driver.Errorf(call, driver.InvalidHandle, "kernel %s was loaded on %s, stream is on %s", fn.name, fn.mod.dev, s.dev)
	}
	if fn.mod.closed.Load() {
		return driver.Errorf(call, driver.Closed, "kernel %s of an unloaded module", fn.name)
	}
	grid, block = grid.Norm(), block.Norm()
	switch {
	case block.Count() > maxBlockThreads || block.X > maxBlockThreads || block.Y > maxBlockThreads || block.Z > maxBlockZ:
		return driver.Errorf(call, driver.InvalidValue, "kernel %s: block %dx%dx%d exceeds %d threads (z ≤ %d)",
			fn.name, block.X, block.Y, block.Z, maxBlockThreads, maxBlockZ)
	case grid.X > 1<<31-1 || grid.Y > maxGridYZ || grid.Z > maxGridYZ:
		return driver.Errorf(call, driver.InvalidValue, "kernel %s: grid %dx%dx%d out of range", fn.name, grid.X, grid.Y, grid.Z)
	case sharedBytes > maxSharedBytes:
		return driver.Errorf(call, driver.InvalidValue, "kernel %s: %d bytes of shared memory, at most %d", fn.name, sharedBytes, maxSharedBytes)
	}
	var a driver.Args
	if args != nil {
		a = *args
	}
	// Each run gets a fresh Launch, so a captured launch can be replayed.
	return s.enqueue(call, func() error {
		l := &Launch{Grid: grid, Block: block, SharedBytes: sharedBytes, Args: a, name: fn.name, dev: s.dev}
		return l.run(fn.kernel)
	})
}
