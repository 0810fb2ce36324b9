package host

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
)

// 64 goroutines, each with its own streams, upload, add, hand the result
// over through an event, copy it across devices, download and check, while
// allocating and freeing synchronously, asynchronously and from a shared
// pool. Run under -race (and GPUARR_HOST_CHECK=1) this is the backend's
// concurrency test.
func TestSixtyFourGoroutines(t *testing.T) {
	sys := testSystem(t, withDevices(2), withMemory(256<<20))
	kernels := []map[string]driver.Function{testKernels(t, sys.devs[0]), testKernels(t, sys.devs[1])}
	pool, err := sys.devs[0].NewMemPool(4 << 20)
	require.NoError(t, err)
	const workers, rounds, n = 64, 6, 2048
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { errs <- stressWorker(sys, kernels, pool, w, rounds, n) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	for _, d := range sys.devs {
		require.NoError(t, d.Synchronize())
		free, total, err := d.MemInfo()
		require.NoError(t, err)
		if d == sys.devs[0] {
			reserved, used, err := pool.Usage()
			require.NoError(t, err)
			require.Zero(t, used)
			free += reserved
		}
		require.Equal(t, total, free, "%s leaked memory", d)
	}
	require.NoError(t, pool.Close())
}

func stressWorker(sys *system, kernels []map[string]driver.Function, pool driver.MemPool, w, rounds, n int) (err error) {
	d, peer := sys.devs[w%2], sys.devs[(w+1)%2]
	k := kernels[w%2]
	newStream := func(d *device) *stream {
		s, _ := d.NewStream()
		return s.(*stream)
	}
	s, side, far := newStream(d), newStream(d), newStream(peer)
	defer func() { err = errors.Join(err, s.Close(), side.Close(), far.Close()) }()
	ev, err := d.NewEvent(w%3 == 0)
	if err != nil {
		return err
	}
	bytes := uint64(4 * n)
	a, b, c := make([]uint32, n), make([]uint32, n), make([]uint32, n)
	for r := range rounds {
		for i := range a {
			a[i], b[i] = rand.Uint32N(1<<20), uint32(w*r+i)
		}
		pa, err := d.Alloc(bytes)
		if err != nil {
			return err
		}
		pb, err := s.AllocAsync(bytes)
		if err != nil {
			return err
		}
		pc, err := d.Alloc(bytes)
		if err != nil {
			return err
		}
		var pd driver.Ptr
		if d == sys.devs[0] {
			pd, err = pool.AllocAsync(bytes, side)
		} else {
			pd, err = side.AllocAsync(bytes)
		}
		if err != nil {
			return err
		}
		pf, err := peer.Alloc(bytes)
		if err != nil {
			return err
		}
		steps := []error{
			s.CopyHtoD(pa, unsafe.Pointer(&a[0]), bytes),
			s.CopyHtoD(pb, unsafe.Pointer(&b[0]), bytes),
			s.Launch(k["add"], driver.Dim3{X: 8}, driver.Dim3{X: 256}, 0, args(pc, pa, pb, uint64(n))),
			s.FreeAsync(pb),
			s.Record(ev),
			side.Wait(ev),
			side.CopyDtoD(pd, pc, bytes),
			far.Wait(ev),
			far.CopyPeer(pf, peer, pc, d, bytes),
			side.CopyDtoH(unsafe.Pointer(&c[0]), pd, bytes),
		}
		if err := errors.Join(steps...); err != nil {
			return err
		}
		for i := range c {
			if c[i] != a[i]+b[i] {
				return fmt.Errorf("worker %d round %d: c[%d] = %d, want %d", w, r, i, c[i], a[i]+b[i])
			}
		}
		clear(c)
		if err := far.CopyDtoH(unsafe.Pointer(&c[0]), pf, bytes); err != nil {
			return err
		}
		for i := range c {
			if c[i] != a[i]+b[i] {
				return fmt.Errorf("worker %d round %d: peer copy [%d] = %d, want %d", w, r, i, c[i], a[i]+b[i])
			}
		}
		if err := side.FreeAsync(pd); err != nil {
			return err
		}
		if err := errors.Join(s.Synchronize(), side.Synchronize(), d.Free(pa), d.Free(pc), peer.Free(pf)); err != nil {
			return err
		}
	}
	return ev.Close()
}
