package device

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Module is device code loaded from PTX.
type Module struct {
	dev    *Device
	drv    driver.Module
	closed atomic.Bool
}

// Kernel is one entry point of a Module.
type Kernel struct {
	mod *Module
	drv driver.Function
}

// Kernel looks up an entry point by name.
func (m *Module) Kernel(name string) (*Kernel, error) {
	if m.closed.Load() {
		return nil, closedError("Module.Kernel on a closed module")
	}
	f, err := m.drv.Function(name)
	if err != nil {
		return nil, err
	}
	return &Kernel{mod: m, drv: f}, nil
}

// Close unloads the module; its kernels must not be launched afterwards.
func (m *Module) Close() error {
	if !m.closed.CompareAndSwap(false, true) {
		return closedError("Module.Close twice")
	}
	return m.drv.Close()
}

// Name is the kernel's entry name.
func (k *Kernel) Name() string { return k.drv.Name() }

// LaunchConfig is a kernel's grid, block and dynamic shared memory.
type LaunchConfig struct {
	Grid, Block Dim3
	SharedBytes uint32
}

// Linear returns a 1-D configuration covering n threads in blocks of
// blockSize (grid capped at 2³¹-1 blocks; kernels use grid-stride loops).
func Linear(n uint64, blockSize uint32) LaunchConfig {
	blocks := (n + uint64(blockSize) - 1) / uint64(blockSize)
	blocks = max(1, min(blocks, 1<<31-1))
	return LaunchConfig{Grid: Dim3{X: uint32(blocks)}, Block: Dim3{X: blockSize}}
}

// PtrArg is a Launch argument that stands for a device address, which
// Launch reads (LaunchPtr) when it marshals the arguments. A Ptr in an
// `any` costs an allocation; a PtrArg that is a pointer (to the object
// that owns the memory, say) costs none.
type PtrArg interface {
	LaunchPtr() Ptr
}

// Launch queues kernel k on s. Arguments must match the kernel's .param
// list in order; accepted types are Ptr, PtrArg, int32, uint32, int64,
// uint64, float32 and float64 (plain int is refused: its PTX width is
// ambiguous).
func (s *Stream) Launch(k *Kernel, cfg LaunchConfig, args ...any) error {
	if err := s.check("Stream.Launch"); err != nil {
		return err
	}
	if k.mod.closed.Load() {
		return closedError("Stream.Launch of " + k.Name() + " from a closed module")
	}
	if k.mod.dev != s.dev {
		return invalid("Stream.Launch", "kernel %s was loaded on %s, stream is on %s", k.Name(), k.mod.dev, s.dev)
	}
	// One spare buffer per stream, taken with an atomic swap: cheaper than a
	// sync.Pool on the launch path, and concurrent launches on one stream
	// simply allocate another.
	a := s.spareArgs.Swap(nil)
	if a == nil {
		a = new(driver.Args)
	}
	defer s.spareArgs.Store(a)
	if err := marshalArgs(a, k.Name(), args); err != nil {
		return err
	}
	return s.drv.Launch(k.drv, cfg.Grid.Norm(), cfg.Block.Norm(), cfg.SharedBytes, a)
}

// LaunchArgs is Launch with arguments already marshalled (by code that
// builds them without boxing each in an interface, such as package
// gpuarr's fused kernels). a must match the kernel's .param list; the
// caller may reuse it once LaunchArgs returns.
func (s *Stream) LaunchArgs(k *Kernel, cfg LaunchConfig, a *Args) error {
	if err := s.check("Stream.LaunchArgs"); err != nil {
		return err
	}
	if k.mod.closed.Load() {
		return closedError("Stream.LaunchArgs of " + k.Name() + " from a closed module")
	}
	if k.mod.dev != s.dev {
		return invalid("Stream.LaunchArgs", "kernel %s was loaded on %s, stream is on %s", k.Name(), k.mod.dev, s.dev)
	}
	return s.drv.Launch(k.drv, cfg.Grid.Norm(), cfg.Block.Norm(), cfg.SharedBytes, a)
}

func marshalArgs(a *driver.Args, kernel string, args []any) error {
	a.Reset()
	for i, v := range args {
		var ok bool
		switch x := v.(type) {
		case Ptr:
			ok = a.Append(driver.ArgPtr, uint64(x))
		case PtrArg:
			ok = a.Append(driver.ArgPtr, uint64(x.LaunchPtr()))
		case int32:
			ok = a.Append(driver.ArgI32, uint64(uint32(x)))
		case uint32:
			ok = a.Append(driver.ArgU32, uint64(x))
		case int64:
			ok = a.Append(driver.ArgI64, uint64(x))
		case uint64:
			ok = a.Append(driver.ArgU64, x)
		case float32:
			ok = a.Append(driver.ArgF32, uint64(math.Float32bits(x)))
		case float64:
			ok = a.Append(driver.ArgF64, math.Float64bits(x))
		default:
			return invalid("Stream.Launch", "kernel %s argument %d has type %T; want Ptr, a PtrArg, int32, uint32, int64, uint64, float32 or float64", kernel, i, v)
		}
		if !ok {
			return invalid("Stream.Launch", "kernel %s: more than %d arguments or %d bytes", kernel, driver.MaxArgs, driver.MaxArgBytes)
		}
	}
	return nil
}

// String is "kernel vadd".
func (k *Kernel) String() string { return fmt.Sprintf("kernel %s", k.Name()) }
