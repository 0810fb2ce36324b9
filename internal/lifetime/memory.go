package lifetime

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/memory"
)

// Which memory the door gives arrays: each device has a default memory,
// the device's own (memory.Default) or managed memory
// (memory.DefaultManaged), from GPUARR_DEFAULT_MEMORY until
// SetDefaultMemory names one. Every array allocated through Make comes from
// it: constructors, results, copies and clones, and the arrays library
// functions allocate for their users. Scratch memory (Temp) and a
// capture's private pool are device memory whatever the default.

// EnvDefaultMemory names the variable that sets every device's default
// memory: "device" (the default) or "unified".
const EnvDefaultMemory = "GPUARR_DEFAULT_MEMORY"

// Memory is which memory an array's elements live in.
type Memory uint32

// The memories.
const (
	DeviceMemory  Memory = iota + 1 // the device's own memory (memory.Default)
	UnifiedMemory                   // managed memory, addressed by the CPU too (memory.DefaultManaged)
)

// String is "device" or "unified", the variable's values.
func (m Memory) String() string {
	switch m {
	case DeviceMemory:
		return "device"
	case UnifiedMemory:
		return "unified"
	}
	return fmt.Sprintf("Memory(%d)", uint32(m))
}

// ParseMemory reads a value of GPUARR_DEFAULT_MEMORY: "device" or "unified"
// (any case, spaces around ignored; empty is "device"). Anything else is a
// *device.ConfigError naming the variable (matching device.ErrBadConfig).
func ParseMemory(v string) (Memory, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "device":
		return DeviceMemory, nil
	case "unified":
		return UnifiedMemory, nil
	}
	return 0, &device.ConfigError{Var: EnvDefaultMemory, Value: v, Reason: "want device or unified"}
}

// envMemory is GPUARR_DEFAULT_MEMORY, read once.
var envMemory = sync.OnceValues(func() (Memory, error) { return ParseMemory(os.Getenv(EnvDefaultMemory)) })

// memState is a device's default memory: mem is the Memory, or 0 when
// GPUARR_DEFAULT_MEMORY is malformed and SetDefaultMemory was not called
// (err says why); managed is the device's managed resource once built.
type memState struct {
	mem     atomic.Uint32
	err     error // set before the state is shared
	once    sync.Once
	managed atomic.Pointer[managedResource]
	mErr    error
}

type managedResource struct{ r memory.Resource }

func (m *memState) init() {
	mem, err := envMemory()
	m.mem.Store(uint32(mem))
	m.err = err
}

// SetDefaultMemory makes m the memory arrays allocated on dev from now on
// get (arrays allocated before keep theirs). UnifiedMemory on a device
// without managed memory is an error matching device.ErrNotSupported; a
// nil dev or an unknown m is one matching arg.ErrArgument.
func SetDefaultMemory(dev *device.Device, m Memory) error {
	switch {
	case dev == nil:
		return fmt.Errorf("gpuarr.SetDefaultMemory: nil device: %w", arg.ErrArgument)
	case m != DeviceMemory && m != UnifiedMemory:
		return fmt.Errorf("gpuarr.SetDefaultMemory: %v is not a memory (want gpuarr.DeviceMemory or gpuarr.UnifiedMemory): %w", m, arg.ErrArgument)
	case m == UnifiedMemory && !dev.Info().ManagedMemory:
		return fmt.Errorf("gpuarr.SetDefaultMemory: %s has no managed memory: %w", dev, device.ErrNotSupported)
	}
	stateOf(dev).mem.mem.Store(uint32(m))
	return nil
}

// DefaultMemory is the memory arrays allocated on dev get now, or the
// error of a malformed GPUARR_DEFAULT_MEMORY (when SetDefaultMemory was
// not called for dev).
func DefaultMemory(dev *device.Device) (Memory, error) {
	m := &stateOf(dev).mem
	if v := Memory(m.mem.Load()); v != 0 {
		return v, nil
	}
	return 0, m.err
}

// arrayResource is the resource arrays allocated on st's device get when
// its default memory is not DeviceMemory: the managed resource, or the
// error of a malformed variable or of a device without managed memory.
func (st *devState) arrayResource() (memory.Resource, error) {
	m := &st.mem
	if Memory(m.mem.Load()) != UnifiedMemory {
		if _, err := DefaultMemory(st.dev); err != nil {
			return nil, err
		}
		return st.resource()
	}
	if r := m.managed.Load(); r != nil {
		return r.r, nil
	}
	m.once.Do(func() {
		if !st.dev.Info().ManagedMemory {
			m.mErr = fmt.Errorf("%s=unified: %s has no managed memory: %w", EnvDefaultMemory, st.dev, device.ErrNotSupported)
			return
		}
		r, err := ManagedResource(st.dev, false)
		if err != nil {
			m.mErr = err
			return
		}
		m.managed.Store(&managedResource{r})
	})
	if r := m.managed.Load(); r != nil {
		return r.r, nil
	}
	return nil, m.mErr
}

// ManagedResource is dev's managed memory for arrays: memory.DefaultManaged,
// or, with oversubscribe, memory.DefaultManagedOversubscribing. Package
// gcpressure is installed first, with its host-memory account, which the
// resources charge.
func ManagedResource(dev *device.Device, oversubscribe bool) (memory.Resource, error) {
	if err := installHooks(); err != nil {
		return nil, err
	}
	if oversubscribe {
		return memory.DefaultManagedOversubscribing(dev)
	}
	return memory.DefaultManaged(dev)
}

// installHooks installs package gcpressure (its eager collection and
// reclaim ladder) and its host-memory account into package memory, and
// returns gcpressure's error for a malformed variable.
func installHooks() error {
	hostAccountOnce.Do(func() { memory.SetHostAccount(hostAccount{}) })
	return gcpressure.Install()
}

var hostAccountOnce sync.Once

// hostAccount is gcpressure's host-memory account as memory.HostAccount.
type hostAccount struct{}

func (hostAccount) Charge(n uint64) error { return gcpressure.ChargeHost(n) }
func (hostAccount) Release(n uint64)      { gcpressure.ReleaseHost(n) }

// managedBuffer reports whether b's memory is managed memory (a device's
// default managed memory, through the door or package unified).
func (b *Buffer) managedBuffer() bool {
	return b.res != nil && memory.IsDefaultManaged(b.st.dev, b.res)
}

// Memory is the memory b's elements live in.
func (b *Buffer) Memory() Memory {
	if b.managedBuffer() {
		return UnifiedMemory
	}
	return DeviceMemory
}
