//go:build cgo && gpuarrbench

package cuda

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
)

func BenchmarkCtxGetCurrent(b *testing.B) {
	d := gpu(b)
	for b.Loop() {
		if _, err := d.CtxGetCurrent(); err != nil {
			b.Fatal(err)
		}
	}
}

// The C hand-off round orders the consumer's launch after the producer's,
// with events and with stream memory operations: the producer's "fill"
// spins before it stores 7, the consumer's stores 9 at once, so only a
// consumer that waited leaves 9.
func TestBenchHandoffCOrdersTheConsumer(t *testing.T) {
	d := gpu(t)
	k := loadKernels(t, d)
	prod, cons := newStream(t, d), newStream(t, d)
	x := alloc(t, d, 4)
	spinArgs := args(x, uint32(7), uint64((20 * time.Millisecond).Nanoseconds()))
	storeArgs := args(x, uint32(9), uint64(1))
	for _, o := range []driver.HandoffOrdering{driver.HandoffOneStream, driver.HandoffEvents, driver.HandoffStreamMemOps} {
		ns, err := prod.BenchHandoffC(k.spin, spinArgs, k.fill, storeArgs, one, one, 0, cons, o, 1)
		require.NoError(t, err, "ordering %d", o)
		require.Positive(t, ns)
		require.NoError(t, prod.Synchronize())
		require.NoError(t, cons.Synchronize())
		require.Equal(t, []uint32{9}, download(t, prod, x, 1), "ordering %d", o)
	}
	_, err := prod.BenchHandoffC(k.spin, spinArgs, k.fill, storeArgs, one, one, 0, nil, driver.HandoffEvents, 1)
	require.ErrorContains(t, err, "is not a CUDA stream")
	_, err = prod.BenchHandoffC(k.spin, spinArgs, k.fill, storeArgs, one, one, 0, cons, driver.HandoffStreamMemOps+1, 1)
	require.ErrorContains(t, err, "unknown hand-off ordering")
}
