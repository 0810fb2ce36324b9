package memory

import (
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
)

// limited is the Limit adaptor.
type limited struct {
	upstream
	hard uint64
	used atomic.Uint64
}

// Limit caps the bytes allocated through it at hard. The bytes of a
// request are reserved with an atomic compare-and-swap before upstream is
// asked, so the cap holds however many goroutines allocate at once. A
// refusal is an error matching device.ErrOutOfMemory, which a caching pool
// above answers with its exhaustion ladder. Under a caching pool the limit
// counts segments, i.e. reserved memory: Caching(Limit(Direct(dev), hard)).
func Limit(up Resource, hard uint64) Resource { return &limited{upstream: upstream{up}, hard: hard} }

func (l *limited) Alloc(s *device.Stream, n uint64) (*Block, error) {
	for {
		u := l.used.Load()
		if n > l.hard-u {
			return nil, device.Errorf("memory.Limit", device.OutOfMemory,
				"%d bytes requested on %s with %d of the %d-byte hard limit in use",
				n, l.Device(), u, l.hard)
		}
		if l.used.CompareAndSwap(u, u+n) {
			break
		}
	}
	b, err := l.Resource.Alloc(s, n)
	if err != nil {
		l.used.Add(-n)
		return nil, err
	}
	return b, nil
}

func (l *limited) Free(b *Block) error {
	n := b.Size()
	if err := l.Resource.Free(b); err != nil {
		return err
	}
	l.used.Add(-n)
	return nil
}

func (l *limited) Stats() Stats {
	s := l.Resource.Stats()
	if s.HardLimit == 0 || l.hard < s.HardLimit {
		s.HardLimit = l.hard
	}
	return s
}

// Used is the number of bytes the limit currently counts.
func (l *limited) Used() uint64 { return l.used.Load() }
