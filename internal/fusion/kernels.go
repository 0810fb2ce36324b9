package fusion

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/cowmap"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/fusion/hosteval"
	"github.com/gpuarr/gpuarr/internal/fusion/ptxgen"
)

// devState is what the expression layer keeps per device: the fused
// kernels and the plans that find them.
type devState struct {
	dev     *device.Device
	kernels kernelCache
	plans   planCache
}

// states holds each device's state.
var states cowmap.PerKey[*device.Device, *devState]

func stateOf(dev *device.Device) *devState { return states.Get(dev, newDevState) }

func newDevState(dev *device.Device) *devState { return &devState{dev: dev} }

// kernelCache maps program keys to loaded kernels, per device. Lookups
// take no lock (a copy-on-write map); a miss compiles under the map's
// lock, so each program compiles once per device however many goroutines
// ask.
type kernelCache struct {
	m cowmap.Map[string, *kernelEntry]
	// recent remembers the last kernels found, indexed by a cheap mix of
	// their keys' bytes, so that the usual lookup (a loop running the
	// same few expressions) is one comparison of the key instead of
	// hashing it for the map. A slot holds an immutable entry; a race
	// between two writers only costs one of them its slot; entries are the
	// map's own, so refilling a slot allocates nothing.
	recent [recentKernels]atomic.Pointer[kernelEntry]
}

// recentKernels is the size of the lookaside in front of the map.
const recentKernels = 8

type kernelEntry struct {
	key string
	k   *device.Kernel
}

// recentSlot picks a lookaside slot for key: a multiplicative fold of its
// 8-byte words (a few dozen instructions for a usual key, where hashing
// it for the map costs several times that).
func recentSlot(key []byte) int {
	h := uint64(len(key))
	for len(key) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(key)) * 0x9e3779b97f4a7c15
		key = key[8:]
	}
	for _, c := range key {
		h = (h ^ uint64(c)) * 0x9e3779b97f4a7c15
	}
	return int(h >> 61)
}

var kernelStats struct {
	compiles    atomic.Uint64
	hits        atomic.Uint64
	compileNano atomic.Int64
}

// Stats reports the fused kernels compiled (each program once per
// device), the materializations that found theirs in the caches, and the
// total time spent generating and JIT-compiling, process-wide.
func Stats() (compiles, hits uint64, compileTime time.Duration) {
	return kernelStats.compiles.Load(), kernelStats.hits.Load(), time.Duration(kernelStats.compileNano.Load())
}

// kernel returns the device's kernel for p, compiling it on first use.
// key is p's key (callers build it in a reused buffer; indexing the
// snapshot with string(key) does not copy it).
func (st *devState) kernel(p *expr.Program, key []byte) (*device.Kernel, error) {
	slot := &st.kernels.recent[recentSlot(key)]
	if e := slot.Load(); e != nil && e.key == string(key) {
		kernelStats.hits.Add(1)
		return e.k, nil
	}
	if e := st.kernels.m.Snapshot()[string(key)]; e != nil {
		kernelStats.hits.Add(1)
		slot.Store(e)
		return e.k, nil
	}
	e, err := st.compileOnce(key, func() (*device.Kernel, error) {
		// The program lives in a pooled buffer: the kernel (the host's
		// keeps its program) gets a copy of its own.
		return compile(st.dev, cloneProgram(p))
	})
	if err != nil {
		return nil, err
	}
	slot.Store(e)
	return e.k, nil
}

// compileOnce returns key's entry in the device's cache, made by build
// once per key (callers that find it being built wait for it), counting
// the compile and its time, or a hit for a caller that waited.
func (st *devState) compileOnce(key []byte, build func() (*device.Kernel, error)) (*kernelEntry, error) {
	e, compiled, err := st.kernels.m.LoadOrCreate(string(key), func() (*kernelEntry, error) {
		start := time.Now()
		k, err := build()
		if err != nil {
			return nil, err
		}
		kernelStats.compiles.Add(1)
		kernelStats.compileNano.Add(int64(time.Since(start)))
		return &kernelEntry{key: string(key), k: k}, nil
	})
	if err != nil {
		return nil, err
	}
	if !compiled {
		kernelStats.hits.Add(1)
	}
	return e, nil
}

// compile generates p's PTX and loads it. A device that runs kernels
// written in Go (the host backend) checks the PTX like a JIT and runs
// package hosteval's evaluation of the same program, bound to the PTX's
// entry name first. The name is derived from the program, so a name bound
// already is bound to this same program.
func compile(dev *device.Device, p *expr.Program) (*device.Kernel, error) {
	src, err := ptxgen.Generate(p, dev.PTXHeader())
	if err != nil {
		return nil, fmt.Errorf("generating the kernel: %w\n%s", err, p)
	}
	name := p.EntryName()
	if dev.RunsHostKernels() {
		if _, err := dev.RegisterHostKernel(name, hosteval.Kernel(p)); err != nil {
			return nil, fmt.Errorf("binding kernel %s on %s: %w", name, dev, err)
		}
	}
	mod, err := dev.LoadPTX(src)
	if err != nil {
		return nil, fmt.Errorf("loading kernel %s on %s: %w", name, dev, err)
	}
	return mod.Kernel(name)
}

func cloneProgram(p *expr.Program) *expr.Program {
	c := *p
	c.Code = append([]expr.Instr(nil), p.Code...)
	c.Inputs = append([]expr.Input(nil), p.Inputs...)
	c.Scalars = append([]dtype.DType(nil), p.Scalars...)
	return &c
}
