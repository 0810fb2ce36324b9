package indexcheck

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
)

// SlotSize is the bytes of one slot (see the package doc's Protocol).
const SlotSize = 32

// None is a slot's position word when no bad index was found.
const None = ^uint64(0)

// chunkSlots is how many slots one allocation holds.
const chunkSlots = 2048

// slotRef names one slot.
type slotRef struct {
	chunk, i int
	ptr      device.Ptr
}

// slotStore holds a device's slots: managed memory the CPU reads in
// place, or, on a device whose CPU may not touch managed memory while
// kernels run, device memory read with a copy.
type slotStore struct {
	dev     *device.Device
	managed bool
	chunks  []chunk
	free    []slotRef
}

type chunk struct {
	base device.Ptr
	host unsafe.Pointer // managed only
}

func newSlotStore(dev *device.Device) *slotStore {
	return &slotStore{dev: dev, managed: dev.ConcurrentManagedAccess()}
}

// take returns a slot reading None.
func (s *slotStore) take() (slotRef, error) {
	if len(s.free) == 0 {
		if err := s.grow(); err != nil {
			return slotRef{}, err
		}
	}
	r := s.free[len(s.free)-1]
	s.free = s.free[:len(s.free)-1]
	return r, nil
}

// give returns a slot, which must read None.
func (s *slotStore) give(r slotRef) { s.free = append(s.free, r) }

func (s *slotStore) grow() error {
	n := uint64(chunkSlots * SlotSize)
	var c chunk
	var err error
	if s.managed {
		if c.base, err = s.dev.AllocManaged(n); err != nil {
			return err
		}
		if c.host = s.dev.HostPointer(c.base); c.host == nil {
			return fmt.Errorf("managed memory at %v has no CPU address", c.base)
		}
	} else if c.base, err = s.dev.Alloc(n); err != nil {
		return err
	}
	init := make([]byte, n)
	for i := 0; i < chunkSlots; i++ {
		binary.LittleEndian.PutUint64(init[i*SlotSize:], None)
	}
	if s.managed {
		copy(unsafe.Slice((*byte)(c.host), n), init)
	} else if err := s.dev.CopyHtoD(c.base, unsafe.Pointer(&init[0]), n); err != nil {
		_ = s.dev.Free(c.base)
		return err
	}
	k := len(s.chunks)
	s.chunks = append(s.chunks, c)
	for i := chunkSlots - 1; i >= 0; i-- {
		s.free = append(s.free, slotRef{chunk: k, i: i, ptr: c.base.Add(uint64(i * SlotSize))})
	}
	return nil
}

// read returns the error a completed check's slot holds, if any, and
// resets the slot to None.
func (s *slotStore) read(r slotRef, site Site) error {
	var pos, idx uint64
	if s.managed {
		p := unsafe.Add(s.chunks[r.chunk].host, r.i*SlotSize)
		pos = atomic.LoadUint64((*uint64)(p))
		if pos == None {
			return nil
		}
		idx = atomic.LoadUint64((*uint64)(unsafe.Add(p, 8)))
		atomic.StoreUint64((*uint64)(unsafe.Add(p, 8)), 0)
		atomic.StoreUint32((*uint32)(unsafe.Add(p, 16)), 0)
		atomic.StoreUint64((*uint64)(p), None)
	} else {
		var b [SlotSize]byte
		if err := s.dev.CopyDtoH(unsafe.Pointer(&b[0]), r.ptr, SlotSize); err != nil {
			return fmt.Errorf("gpuarr.%s: reading the index check: %w", site.Call, err)
		}
		pos = binary.LittleEndian.Uint64(b[:])
		if pos == None {
			return nil
		}
		idx = binary.LittleEndian.Uint64(b[8:])
		var clean [SlotSize]byte
		binary.LittleEndian.PutUint64(clean[:], None)
		if err := s.dev.CopyHtoD(r.ptr, unsafe.Pointer(&clean[0]), SlotSize); err != nil {
			return fmt.Errorf("gpuarr.%s: resetting the index check: %w", site.Call, err)
		}
	}
	return &Error{Site: site, Pos: int64(pos), Index: int64(idx)}
}
