package collective_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// allDevices is every device of the selected backend: the ranks of the
// one-process communicator (one rank on a one-GPU machine).
var allDevices = testutil.Devices

// newComm makes a communicator over every device, or skips naming why
// (no NCCL on a CUDA machine).
func newComm(t *testing.T) (*collective.Comm, []*device.Device) {
	t.Helper()
	devs := allDevices(t)
	c, err := collective.NewComm(devs)
	if err != nil && devs[0].Backend() == "cuda" && errorsIsNotSupported(err) {
		t.Skipf("no NCCL on this machine: %v", err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c, devs
}

// newUniqueID makes an id on dev, or skips naming why (no NCCL).
func newUniqueID(t *testing.T, dev *device.Device) collective.ID {
	t.Helper()
	id, err := collective.NewUniqueID(dev)
	if err != nil && errorsIsNotSupported(err) {
		t.Skipf("no NCCL: %v", err)
	}
	require.NoError(t, err)
	return id
}

// joinAll joins rank r of id on devs[r] for every r, each rank from its
// own goroutine as separate processes would (JoinComm waits for them all).
func joinAll(t *testing.T, id collective.ID, devs []*device.Device) []*collective.Comm {
	t.Helper()
	n := len(devs)
	comms := make([]*collective.Comm, n)
	errs := make(chan error, n)
	for r := range n {
		go func() {
			c, err := collective.JoinComm(id, n, r, devs[r])
			comms[r] = c
			errs <- err
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	return comms
}

// fromHost puts data on dev.
func fromHost[T gpuarr.Element](t *testing.T, data []T, dev *device.Device) *gpuarr.Array[T] {
	t.Helper()
	a, err := gpuarr.FromSlice(data, gpuarr.Shape{len(data)}, gpuarr.OnDevice(dev))
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Release() })
	return a
}

func empty[T gpuarr.Element](t *testing.T, n int, dev *device.Device) *gpuarr.Array[T] {
	t.Helper()
	a, err := gpuarr.Zeros[T](gpuarr.Shape{n}, gpuarr.OnDevice(dev))
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Release() })
	return a
}

func toHost[T gpuarr.Element](t *testing.T, a *gpuarr.Array[T]) []T {
	t.Helper()
	v, err := a.ToSlice()
	require.NoError(t, err)
	return v
}

// values are small, so products of a few ranks neither overflow int8 in a
// way that differs between backends (wrapping is the same) nor lose float
// precision.
func values[T gpuarr.Numeric](r *rand.Rand, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = T(1 + r.IntN(3))
	}
	return out
}

// reduce is the reference: element-wise over ranks in rank order.
func reduce[T gpuarr.Numeric](op collective.Op, srcs [][]T) []T {
	out := append([]T(nil), srcs[0]...)
	for _, s := range srcs[1:] {
		for i, v := range s {
			switch op {
			case collective.Sum, collective.Avg:
				out[i] += v
			case collective.Prod:
				out[i] *= v
			case collective.Max:
				out[i] = max(out[i], v)
			case collective.Min:
				out[i] = min(out[i], v)
			}
		}
	}
	if op == collective.Avg {
		for i := range out {
			out[i] /= T(len(srcs))
		}
	}
	return out
}

func isFloat[T gpuarr.Numeric]() bool {
	var z T
	switch any(z).(type) {
	case float32, float64:
		return true
	}
	return false
}

// equal is exact for integers and within a relative 1e-5 for floats
// (NCCL may sum in another order, or pre-multiply for Avg).
func equal[T gpuarr.Numeric](t *testing.T, want, got []T, msg string) {
	t.Helper()
	require.Len(t, got, len(want), msg)
	if !isFloat[T]() {
		require.Equal(t, want, got, msg)
		return
	}
	for i := range want {
		w, g := float64(want[i]), float64(got[i])
		require.InDelta(t, w, g, 1e-5*max(1, abs(w)), "%s: element %d", msg, i)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func errorsJoin(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
