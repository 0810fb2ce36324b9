package host

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device/driver"
)

// device is one host device: a capacity, its live streams, and the
// entry points a test has hidden.
type device struct {
	sys      *system
	ordinal  int
	info     driver.Info
	capacity uint64
	used     atomic.Uint64 // bytes mapped for this device

	mu      sync.Mutex
	streams map[*stream]struct{}
	orphans []error // errors of streams closed before Device.Synchronize saw them

	syms symbols
}

func newDevice(sys *system, ordinal int) *device {
	procs := runtime.GOMAXPROCS(0)
	return &device{
		sys:      sys,
		ordinal:  ordinal,
		capacity: sys.cfg.memory,
		streams:  map[*stream]struct{}{},
		info: driver.Info{
			Backend:                 "host",
			Ordinal:                 ordinal,
			Name:                    fmt.Sprintf("gpuarr host device (%d cores)", procs),
			ComputeMajor:            9, // PTX headers then look like Hopper's
			ComputeMinor:            0,
			TotalMemory:             sys.cfg.memory,
			DriverVersion:           0,
			Multiprocessors:         procs,
			MemoryPools:             true,
			VirtualMemory:           false,
			ManagedMemory:           true,
			ConcurrentManagedAccess: true,
			UnifiedAddressing:       true,
		},
	}
}

func (d *device) String() string { return fmt.Sprintf("host:%d", d.ordinal) }

func (d *device) Info() driver.Info { return d.info }

// Synchronize waits for the work issued so far on every live stream of d,
// then reports the first asynchronous error none of its callers has seen
// yet (each such error is reported once here and once by its own stream).
func (d *device) Synchronize() error {
	if err := d.symbol("cuCtxSynchronize"); err != nil {
		return err
	}
	d.mu.Lock()
	live := make([]*stream, 0, len(d.streams))
	for s := range d.streams {
		live = append(live, s)
	}
	d.mu.Unlock()
	var first error
	for _, s := range live {
		if err := s.drain(true); err != nil && first == nil {
			first = err
		}
	}
	d.mu.Lock()
	if len(d.orphans) > 0 {
		if first == nil {
			first = d.orphans[0]
		}
		d.orphans = nil
	}
	d.mu.Unlock()
	return first
}

// NewStream starts a stream and its goroutine.
func (d *device) NewStream() (driver.Stream, error) {
	if err := d.symbol("cuStreamCreate"); err != nil {
		return nil, err
	}
	s := newStream(d)
	d.mu.Lock()
	d.streams[s] = struct{}{}
	d.mu.Unlock()
	return s, nil
}

// closed forgets s, keeping an error it has not reported to Device.Synchronize.
func (d *device) closed(s *stream, unseen error) {
	d.mu.Lock()
	delete(d.streams, s)
	if unseen != nil {
		d.orphans = append(d.orphans, unseen)
	}
	d.mu.Unlock()
}
