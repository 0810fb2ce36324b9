package device_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// 64 goroutines, each with its own stream, allocate, upload, launch, order
// work through events and check their results; run under -race.
func TestSixtyFourGoroutinesOnOwnStreams(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	const workers, rounds, n = 64, 8, 4096
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { errs <- worker(dev, ks.VAdd, ks.Copy, w, rounds, n) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func worker(dev *device.Device, vadd, cp *device.Kernel, w, rounds, n int) (err error) {
	s, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer func() { err = errorsJoin(err, s.Close()) }()
	side, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer func() { err = errorsJoin(err, side.Close()) }()
	ev, err := dev.NewEvent()
	if err != nil {
		return err
	}
	defer func() { err = errorsJoin(err, ev.Close()) }()

	bytes := uint64(4 * n)
	a, b, c, d := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for r := range rounds {
		for i := range a {
			a[i], b[i] = float32(rand.IntN(1000)), float32(w*r+i)
		}
		ptrs := make([]device.Ptr, 4)
		for i := range ptrs {
			if ptrs[i], err = dev.Alloc(bytes); err != nil {
				return err
			}
		}
		pa, pb, pc, pd := ptrs[0], ptrs[1], ptrs[2], ptrs[3]
		steps := []error{
			device.Upload(s, pa, a), device.Upload(s, pb, b),
			s.Launch(vadd, device.Linear(uint64(n), 128), pa, pb, pc, uint64(n)),
			s.Record(ev), side.Wait(ev),
			side.Launch(cp, device.Linear(uint64(n), 128), pd, pc, uint64(n)),
			device.Download(side, d, pd), device.Download(s, c, pc),
		}
		for _, e := range steps {
			if e != nil {
				return e
			}
		}
		for i := range c {
			if c[i] != a[i]+b[i] || d[i] != c[i] {
				return fmt.Errorf("worker %d round %d element %d: c=%v d=%v want %v", w, r, i, c[i], d[i], a[i]+b[i])
			}
		}
		for _, p := range ptrs {
			if err := dev.Free(p); err != nil {
				return err
			}
		}
	}
	return nil
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
