package kernels

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/cowmap"
)

// kind names a kernel generator.
type kind uint8

// variant is one kernel: its generator and the generator's parameters
// (element types, sizes, modes, algorithm constants). It is the cache's
// key and determines the PTX entry name.
type variant struct {
	kind             kind
	a, b, c, d, e, f int32
}

// generator writes a kernel's PTX and its Go twin, the kernel a host
// device runs for it: the same launch (geometry, parameters) with the
// same effect on memory.
type generator struct {
	name string
	ptx  func(v variant, entry, header string) string
	host func(v variant) hostkernel.Kernel
}

// generators is filled by each kernel's file (init), by kind.
var generators [numKinds]generator

// entry is v's PTX entry point: gpuarr_<generator>_<hash of v>.
func (v variant) entry() string {
	var b [28]byte
	b[0] = byte(v.kind)
	for i, x := range []int32{v.a, v.b, v.c, v.d, v.e, v.f} {
		binary.LittleEndian.PutUint32(b[4+4*i:], uint32(x))
	}
	h := fnv.New64a()
	h.Write(b[:])
	return fmt.Sprintf("gpuarr_%s_%016x", generators[v.kind].name, h.Sum64())
}

// Source is v's PTX module, for tests and the PTX interpreter.
func (v variant) source(header string) string {
	return generators[v.kind].ptx(v, v.entry(), header)
}

// cache is one device's compiled kernels.
type cache struct {
	dev *device.Device
	m   cowmap.Map[variant, *device.Kernel]
}

var caches cowmap.PerKey[*device.Device, *cache]

var compiles atomic.Uint64

// HostKernelHook, when set (by tests, before any kernel is compiled),
// chooses what a host device runs for each kernel: given the entry, its
// PTX and its Go twin, the kernel to bind. The PTX interpreter's tests
// bind the PTX itself (internal/ptxsim).
var HostKernelHook func(entry, ptx string, twin hostkernel.Kernel) hostkernel.Kernel

// kernel returns dev's kernel for v, compiling it on first use: on a host
// device its Go twin (or HostKernelHook's choice) is bound to the entry
// name first, then the PTX is loaded like on a GPU.
func kernel(dev *device.Device, v variant) (*device.Kernel, error) {
	c := caches.Get(dev, func(dev *device.Device) *cache { return &cache{dev: dev} })
	if k, ok := c.m.Load(v); ok {
		return k, nil
	}
	k, _, err := c.m.LoadOrCreate(v, func() (*device.Kernel, error) {
		g := generators[v.kind]
		name := v.entry()
		src := g.ptx(v, name, dev.PTXHeader())
		if dev.RunsHostKernels() {
			k := g.host(v)
			if HostKernelHook != nil {
				k = HostKernelHook(name, src, k)
			}
			if _, err := dev.RegisterHostKernel(name, k); err != nil {
				return nil, fmt.Errorf("binding kernel %s on %s: %w", name, dev, err)
			}
		}
		mod, err := dev.LoadPTX(src)
		if err != nil {
			return nil, fmt.Errorf("loading kernel %s on %s: %w", name, dev, err)
		}
		compiles.Add(1)
		return mod.Kernel(name)
	})
	return k, err
}

// Compiles is the number of kernels this package has compiled, process
// wide (each variant once per device).
func Compiles() uint64 { return compiles.Load() }
