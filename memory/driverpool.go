package memory

import (
	"errors"
	"math"
	"sync"

	"github.com/gpuarr/gpuarr/device"
)

// DriverPoolOptions tune a DriverPool.
type DriverPoolOptions struct {
	// SoftLimit is the pool's release threshold: the cached bytes the
	// driver keeps at synchronizations. 0 keeps everything (as CUDA.jl
	// does; the driver's own default of 0 would release at every sync).
	SoftLimit uint64
}

// driverPool is the DriverPool resource.
type driverPool struct {
	dev    *device.Device
	pool   device.MemPool
	soft   uint64
	u      usage
	blocks sync.Pool

	mu     sync.Mutex // block states and uses, spare events
	events []*device.Event
}

// DriverPool allocates from a driver stream-ordered pool of its own
// (cuMemPoolCreate, cuMemAllocFromPoolAsync, cuMemFreeAsync) whose release
// threshold is the soft limit. Devices without memory pools give an error
// matching device.ErrNotSupported. It is the GPUARR_MEMORY_POOL=cuda choice
// and the baseline the caching pool is measured against.
func DriverPool(dev *device.Device, opts DriverPoolOptions) (Resource, error) {
	th := opts.SoftLimit
	if th == 0 {
		th = math.MaxUint64
	}
	pool, err := dev.NewMemPool(th)
	if err != nil {
		return nil, err
	}
	d := &driverPool{dev: dev, pool: pool, soft: opts.SoftLimit}
	d.blocks.New = func() any { return new(Block) }
	return d, nil
}

func (d *driverPool) Device() *device.Device { return d.dev }
func (d *driverPool) streamOrdered() bool    { return true }

func (d *driverPool) Alloc(s *device.Stream, n uint64) (*Block, error) {
	s, err := checkStream("DriverPool.Alloc", d.dev, s)
	if err != nil {
		return nil, err
	}
	size := max(n, 1)
	p, err := d.pool.AllocAsync(size, s.Driver())
	if err != nil {
		if isOOM(err) {
			d.u.ooms.Add(1)
		}
		return nil, err
	}
	d.u.alloc(size)
	b := d.blocks.Get().(*Block)
	b.ptr, b.size, b.class, b.req, b.stream, b.owner, b.state = p, size, size, n, s, d, stateAllocated
	return b, nil
}

func (d *driverPool) Free(b *Block) error {
	if b == nil || b.owner != d {
		return invalid("DriverPool.Free", "%v was not allocated by this resource", b)
	}
	d.mu.Lock()
	if b.state != stateAllocated {
		d.mu.Unlock()
		return invalid("DriverPool.Free", "%v is already freed", b)
	}
	b.state = stateFreeing
	d.mu.Unlock()
	s := b.stream
	// The free is ordered on b's stream: make it wait for the other users.
	for _, u := range b.uses {
		if err := d.order(s, u); err != nil {
			return err
		}
	}
	err := d.pool.FreeAsync(b.ptr, s.Driver())
	if errors.Is(err, device.ErrClosed) {
		// b's stream is gone, and with it every use it made of b.
		err = d.pool.FreeAsync(b.ptr, d.dev.DefaultStream().Driver())
	}
	if err != nil {
		return err
	}
	d.u.free(b.size)
	*b = Block{uses: b.uses[:0], tag: b.tag}
	d.blocks.Put(b)
	return nil
}

// order makes later work on s wait for the work issued so far on u.
func (d *driverPool) order(s, u *device.Stream) error {
	d.mu.Lock()
	var e *device.Event
	if n := len(d.events); n > 0 {
		e, d.events = d.events[n-1], d.events[:n-1]
	}
	d.mu.Unlock()
	if e == nil {
		var err error
		if e, err = d.dev.NewEvent(); err != nil {
			return err
		}
	}
	err := u.Record(e)
	if err == nil {
		err = s.Wait(e)
	} else if errors.Is(err, device.ErrClosed) {
		err = nil
	}
	d.mu.Lock()
	d.events = append(d.events, e) // a wait binds to the record at the call
	d.mu.Unlock()
	return err
}

func (d *driverPool) RecordUse(b *Block, s *device.Stream) error {
	return recordUse("DriverPool.RecordUse", d, d.dev, &d.mu, b, s)
}

func (d *driverPool) Stats() Stats {
	s := Stats{Kind: KindDriverPool, Device: d.dev.String(), SoftLimit: d.soft}
	d.u.fill(&s)
	if reserved, used, err := d.pool.Usage(); err == nil {
		s.ReservedBytes = Stat{Current: reserved, Peak: reserved}
		s.CachedBytes = reserved - min(used, reserved)
	}
	return s
}

func (d *driverPool) EmptyCache() error      { return d.Trim(0) }
func (d *driverPool) Trim(keep uint64) error { return d.pool.TrimTo(keep) }
