package host

import (
	"bytes"
	"encoding/binary"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// A stream is a FIFO of operations served by its own goroutine: every call
// queues and returns at once, and the goroutine runs the operations one at
// a time in issue order, as a GPU runs a CUDA stream.

// op is one queued operation. An error it returns is the stream's
// asynchronous (sticky) error.
type op func() error

// handles numbers streams; a handle is never reused, so it stays unique
// among live streams of every device.
var handles atomic.Uintptr

type stream struct {
	dev    *device
	handle uintptr

	mu      sync.Mutex
	work    sync.Cond // the goroutine waits here for operations
	idle    sync.Cond // synchronizers wait here for done to catch up
	waiters int
	queue   []op
	head    int
	issued  uint64
	done    uint64
	closing bool
	exited  chan struct{}

	// capture, when not nil, receives the operations issued on the stream
	// instead of the queue (capture.go).
	capture *capture

	// The first asynchronous error not yet reported: once to whoever
	// synchronizes the stream, once to Device.Synchronize.
	errStream, errDevice error
}

func newStream(d *device) *stream {
	s := &stream{dev: d, handle: handles.Add(1), exited: make(chan struct{})}
	s.work.L, s.idle.L = &s.mu, &s.mu
	go s.run()
	return s
}

func (s *stream) Handle() uintptr { return s.handle }

// enqueue appends fn, or adds it to the capture while the stream captures;
// it fails only on a closed stream.
func (s *stream) enqueue(call string, fn op) error { return s.enqueueNode(call, fn, nil) }

// enqueueNode is enqueue for an operation a captured graph can later
// resize in place (nd says how); outside a capture nd is unused.
func (s *stream) enqueueNode(call string, fn op, nd *node) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return errorf(call, driver.Closed, "stream %d of %s is closed", s.handle, s.dev)
	}
	if c := s.capture; c != nil {
		c.ops = append(c.ops, fn)
		c.nodes = append(c.nodes, nd)
		s.mu.Unlock()
		return nil
	}
	s.queue = append(s.queue, fn)
	s.issued++
	s.mu.Unlock()
	s.work.Signal()
	return nil
}

// enqueueLive is enqueue for operations that cannot be captured and
// replayed (frees): during a capture it fails with StreamCaptureUnsupported.
func (s *stream) enqueueLive(call string, fn op) error {
	if err := s.refuseCapture(call, false); err != nil {
		return err
	}
	return s.enqueue(call, fn)
}

// run is the stream's goroutine.
func (s *stream) run() {
	defer close(s.exited)
	for {
		s.mu.Lock()
		for s.head == len(s.queue) && !s.closing {
			s.work.Wait()
		}
		if s.head == len(s.queue) {
			s.mu.Unlock()
			return
		}
		fn := s.queue[s.head]
		s.queue[s.head] = nil
		s.head++
		switch {
		case s.head == len(s.queue):
			s.queue, s.head = s.queue[:0], 0
		case s.head >= 1024 && s.head*2 >= len(s.queue):
			// A stream that never drains would grow forever: compact.
			n := copy(s.queue, s.queue[s.head:])
			clear(s.queue[n:])
			s.queue, s.head = s.queue[:n], 0
		}
		s.mu.Unlock()

		s.dev.sys.delay()
		err := fn()

		s.mu.Lock()
		s.failLocked(err)
		s.done++
		if s.waiters > 0 {
			s.idle.Broadcast()
		}
		s.mu.Unlock()
	}
}

func (s *stream) failLocked(err error) {
	if err == nil {
		return
	}
	if s.errStream == nil {
		s.errStream = err
	}
	if s.errDevice == nil {
		s.errDevice = err
	}
}

// fail records an asynchronous error from inside an operation.
func (s *stream) fail(err error) {
	s.mu.Lock()
	s.failLocked(err)
	s.mu.Unlock()
}

// drain waits until the work issued before the call is done and takes the
// pending error of one observer: the device's or the stream's own.
func (s *stream) drain(forDevice bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for target := s.issued; s.done < target; {
		s.waiters++
		s.idle.Wait()
		s.waiters--
	}
	return s.takeLocked(forDevice)
}

func (s *stream) takeLocked(forDevice bool) error {
	var err error
	if forDevice {
		err, s.errDevice = s.errDevice, nil
	} else {
		err, s.errStream = s.errStream, nil
	}
	return err
}

// Synchronize waits for the work issued so far; it returns the stream's
// first asynchronous error since the last report.
func (s *stream) Synchronize() error {
	const call = "cuStreamSynchronize"
	if err := s.dev.symbol(call); err != nil {
		return err
	}
	if err := s.refuseCapture(call, true); err != nil {
		return err
	}
	return s.drain(false)
}

// Query reports whether the work issued so far is done, and the stream's
// pending asynchronous error, if any.
func (s *stream) Query() (bool, error) {
	const call = "cuStreamQuery"
	if err := s.dev.symbol(call); err != nil {
		return false, err
	}
	if err := s.refuseCapture(call, true); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done == s.issued, s.takeLocked(false)
}

// Close drains the stream and stops its goroutine. It returns the stream's
// unreported error; Device.Synchronize still reports it once. It ignores
// HideSymbol: the caller has let go of the stream, and failing here would
// leak its goroutine.
func (s *stream) Close() error {
	const call = "cuStreamDestroy_v2"
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return errorf(call, driver.Closed, "stream %d of %s closed twice", s.handle, s.dev)
	}
	s.closing = true
	s.mu.Unlock()
	s.work.Signal()
	<-s.exited
	s.mu.Lock()
	errStream, errDevice := s.takeLocked(false), s.takeLocked(true)
	s.mu.Unlock()
	s.dev.closed(s, errDevice)
	return errStream
}

// CopyHtoD snapshots src now, so the caller may reuse it at once (CUDA's
// pageable-copy rule), and queues the write; from pinned memory it reads
// src when the copy runs (CUDA's pinned-copy rule: fully asynchronous).
func (s *stream) CopyHtoD(dst driver.Ptr, src unsafe.Pointer, n uint64) error {
	const call = "cuMemcpyHtoDAsync_v2"
	if err := s.dev.symbol(call); err != nil {
		return err
	}
	if err := span(call, dst, n); err != nil {
		return err
	}
	if pinnedSpan(src, n) {
		// A caller that reuses pinned memory too early gets what a GPU
		// would give it.
		return s.enqueue(call, func() error {
			pinned.Lock()
			defer pinned.Unlock()
			if !pinnedSpanLocked(src, n) {
				return illegal(call, "the pinned source was freed before the copy ran")
			}
			return toDevice(call, dst, hostBytes(src, n))
		})
	}
	data := bytes.Clone(hostBytes(src, n))
	return s.enqueueNode(call, func() error { return toDevice(call, dst, data) }, &node{
		// A resized replay copies the first m bytes of the same snapshot.
		copyBytes: func(m uint64) (op, error) {
			if m > n {
				return nil, errorf(call, driver.InvalidValue, "%d bytes from a captured upload of %d", m, n)
			}
			return func() error { return toDevice(call, dst, data[:m]) }, nil
		},
	})
}

// CopyDtoH queues the read and blocks until it ran (pageable semantics).
// A stream error that came before it is reported here, as a
// synchronization would: the bytes read may depend on the failed work.
func (s *stream) CopyDtoH(dst unsafe.Pointer, src driver.Ptr, n uint64) error {
	const call = "cuMemcpyDtoHAsync_v2"
	if err := s.dev.symbol(call); err != nil {
		return err
	}
	if err := span(call, src, n); err != nil {
		return err
	}
	if err := s.refuseCapture(call, true); err != nil {
		return err
	}
	ran := make(chan struct{})
	err := s.enqueue(call, func() error {
		defer close(ran)
		if err := fromDevice(call, hostBytes(dst, n), src); err != nil {
			s.fail(err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	<-ran
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.takeLocked(false)
}

// CopyDtoD queues a copy between device addresses.
func (s *stream) CopyDtoD(dst, src driver.Ptr, n uint64) error {
	const call = "cuMemcpyDtoDAsync_v2"
	if err := s.dev.symbol(call); err != nil {
		return err
	}
	if err := span(call, src, n); err != nil {
		return err
	}
	if err := span(call, dst, n); err != nil {
		return err
	}
	return s.enqueueNode(call, func() error { return copyMem(call, dst, src, n) }, copyNode(call, dst, src))
}

// CopyPeer queues a copy from srcDev's memory to dstDev's. It needs no
// peer access: on a GPU the driver stages it through the host when it must.
func (s *stream) CopyPeer(dst driver.Ptr, dstDev driver.Device, src driver.Ptr, srcDev driver.Device, n uint64) error {
	const call = "cuMemcpyPeerAsync"
	if err := s.dev.symbol(call); err != nil {
		return err
	}
	for _, c := range []struct {
		what string
		p    driver.Ptr
		dev  driver.Device
	}{{"source", src, srcDev}, {"destination", dst, dstDev}} {
		want, ok := c.dev.(*device)
		if !ok {
			return errorf(call, driver.InvalidValue, "%s device %v is not a host device", c.what, c.dev)
		}
		a := index.lookup(c.p)
		if a == nil {
			return illegal(call, c.what+" "+c.p.String()+" is not inside any live allocation")
		}
		if a.dev != want {
			return errorf(call, driver.InvalidValue, "%s %v is memory of %s, not of %s", c.what, c.p, a.dev, want)
		}
		if err := span(call, c.p, n); err != nil {
			return err
		}
	}
	return s.enqueueNode(call, func() error { return copyMem(call, dst, src, n) }, copyNode(call, dst, src))
}

// Memset8 queues setting n bytes at dst to v.
func (s *stream) Memset8(dst driver.Ptr, v uint8, n uint64) error {
	const call = "cuMemsetD8Async"
	if err := s.dev.symbol(call); err != nil {
		return err
	}
	return s.memset(call, dst, []byte{v}, n)
}

// Memset32 queues setting n 32-bit words at dst to v.
func (s *stream) Memset32(dst driver.Ptr, v uint32, n uint64) error {
	const call = "cuMemsetD32Async"
	if err := s.dev.symbol(call); err != nil {
		return err
	}
	if dst%4 != 0 {
		return errorf(call, driver.InvalidValue, "destination %v is not 4-byte aligned", dst)
	}
	if n > math.MaxUint64/4 {
		return errorf(call, driver.InvalidValue, "%d words overflow", n)
	}
	return s.memset(call, dst, binary.LittleEndian.AppendUint32(nil, v), n*4)
}

func (s *stream) memset(call string, dst driver.Ptr, pattern []byte, n uint64) error {
	if err := span(call, dst, n); err != nil {
		return err
	}
	set := func(n uint64) op {
		return func() error {
			a, b, why := index.pin(dst, n)
			if a == nil {
				return illegal(call, "destination "+why)
			}
			fill(b, pattern)
			a.unpin()
			return nil
		}
	}
	return s.enqueueNode(call, set(n), &node{
		memsetBytes: func(m uint64) (op, error) {
			if m%uint64(len(pattern)) != 0 {
				return nil, errorf(call, driver.InvalidValue, "%d bytes is not a whole number of %d-byte elements", m, len(pattern))
			}
			if err := span(call, dst, m); err != nil {
				return nil, err
			}
			return set(m), nil
		},
	})
}

// fill repeats pattern over b (len(b) is a multiple of len(pattern)).
func fill(b, pattern []byte) {
	if len(b) == 0 {
		return
	}
	n := copy(b, pattern)
	for n < len(b) {
		n += copy(b[n:], b[:n])
	}
}

// AllocAsync allocates now (so the pointer is valid for work issued after
// the call) from the device's raw memory.
func (s *stream) AllocAsync(n uint64) (driver.Ptr, error) {
	const call = "cuMemAllocAsync"
	if err := s.dev.symbol(call); err != nil {
		return 0, err
	}
	if err := s.refuseCapture(call, false); err != nil {
		return 0, err
	}
	a, err := s.dev.allocate(call, n, nil)
	if err != nil {
		return 0, err
	}
	return driver.Ptr(a.base), nil
}

// FreeAsync queues the free, so it happens after the work issued before it.
// Memory of a MemPool goes back to its pool, as with cuMemFreeAsync.
func (s *stream) FreeAsync(p driver.Ptr) error {
	const call = "cuMemFreeAsync"
	if err := s.dev.symbol(call); err != nil {
		return err
	}
	a, err := liveBase(call, p)
	if err != nil {
		return err
	}
	if a.pool != nil {
		return a.pool.free(call, a, s)
	}
	if err := s.refuseCapture(call, false); err != nil {
		return err
	}
	if !a.freeQueued.CompareAndSwap(false, true) {
		return errorf(call, driver.InvalidValue, "%v is already being freed", p)
	}
	err = s.enqueue(call, func() error {
		a.release()
		return nil
	})
	if err != nil {
		a.freeQueued.Store(false)
	}
	return err
}

// copyNode is a captured copy from src to dst that a graph update can
// resize: the new size is checked against both allocations as the
// original was.
func copyNode(call string, dst, src driver.Ptr) *node {
	return &node{
		copyBytes: func(m uint64) (op, error) {
			if err := span(call, src, m); err != nil {
				return nil, err
			}
			if err := span(call, dst, m); err != nil {
				return nil, err
			}
			return func() error { return copyMem(call, dst, src, m) }, nil
		},
	}
}
