package lifetime_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/testutil"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

var one = device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}

// spunArray is a one-element uint32 array on s that a kernel on s writes
// v into after a 50 ms spin: work on another stream that is not ordered
// after s reads the old value.
func spunArray(t *testing.T, s *device.Stream, v uint32) *lifetime.Handle {
	t.Helper()
	ks := testutil.Kernels(t, s.Device())
	h := new(lifetime.Handle)
	require.NoError(t, h.Make("Test", s, []int{1}, dtype.ElemOf[uint32]()))
	t.Cleanup(func() { _ = h.Release() })
	require.NoError(t, h.Issue("Test", s, tracking.Write, false, func() error {
		if err := s.Memset32(h.Ptr(), 0, 1); err != nil {
			return err
		}
		return s.Launch(ks.SpinWrite, one, h.Ptr(), v, uint64(50*time.Millisecond))
	}))
	return h
}

// A claim begun with BeginLaunch issues its hand-off with the launch: no
// record or wait before it, one of each with it, and the launch sees the
// other stream's write.
func TestBeginLaunchIssuesTheHandoffWithTheLaunch(t *testing.T) {
	dev := testutil.Device(t)
	ks := testutil.Kernels(t, dev)
	ss := testutil.Streams(t, dev, 2)
	x := spunArray(t, ss[0], 7)
	y := testutil.Alloc(t, dev, 4)

	o := lifetime.Claim{Call: "Test"}
	o.Add(x, tracking.Read, ss[1])
	_, waits0, records0 := tracking.Counts()
	require.NoError(t, o.BeginLaunch())
	_, waits1, records1 := tracking.Counts()
	assert.Equal(t, records0, records1, "no record before the launch")
	assert.Equal(t, waits0, waits1, "no wait before the launch")
	err := o.Launch(ss[1], ks.Copy, one, y, x.Ptr(), uint64(1))
	o.End()
	require.NoError(t, err)
	_, waits2, records2 := tracking.Counts()
	assert.GreaterOrEqual(t, records2-records1, uint64(1), "the record came with the launch")
	assert.GreaterOrEqual(t, waits2-waits1, uint64(1), "the wait came with the launch")
	assert.Equal(t, []uint32{7}, testutil.Download[uint32](t, ss[1], y, 1), "the launch waited for the write")
}

// A claim begun with BeginLaunch whose launch never comes issues its
// hand-offs in End: work issued on the stream afterwards, untracked, is
// still ordered after the other stream's write.
func TestClaimEndIssuesHandoffsTheLaunchDidNot(t *testing.T) {
	dev := testutil.Device(t)
	ks := testutil.Kernels(t, dev)
	ss := testutil.Streams(t, dev, 2)
	x := spunArray(t, ss[0], 9)
	y := testutil.Alloc(t, dev, 4)

	o := lifetime.Claim{Call: "Test"}
	o.Add(x, tracking.Read, ss[1])
	require.NoError(t, o.BeginLaunch())
	_, waits0, _ := tracking.Counts()
	o.End()
	_, waits1, _ := tracking.Counts()
	assert.GreaterOrEqual(t, waits1-waits0, uint64(1), "End issued the wait")
	require.NoError(t, ss[1].Launch(ks.Copy, one, y, x.Ptr(), uint64(1)))
	assert.Equal(t, []uint32{9}, testutil.Download[uint32](t, ss[1], y, 1), "the stream waits for the write")
}

// When the driver fails before a held hand-off is issued, the launch's
// error comes back and the host waits for the recording stream instead,
// so the tracking, which already counts the stream as ordered, stays true.
func TestHeldHandoffNotIssuedWaitsOnTheHost(t *testing.T) {
	dev := testutil.Device(t)
	ks := testutil.Kernels(t, dev)
	ss := testutil.Streams(t, dev, 2)
	x := spunArray(t, ss[0], 7)
	y := testutil.Alloc(t, dev, 4)

	o := lifetime.Claim{Call: "Test"}
	o.Add(x, tracking.Read, ss[1])
	require.NoError(t, o.BeginLaunch())
	restore := dev.HideSymbol("cuEventRecord")
	syncs0, _, _ := tracking.Counts()
	err := o.Launch(ss[1], ks.Copy, one, y, x.Ptr(), uint64(1))
	syncs1, _, _ := tracking.Counts()
	done, qerr := ss[0].Query()
	restore()
	o.End()
	require.ErrorIs(t, err, device.ErrNotSupported, "the hidden record's error")
	assert.Equal(t, syncs0+1, syncs1, "one host wait for the recording stream")
	require.NoError(t, qerr)
	assert.True(t, done, "the recording stream's work is done")
}

// A held hand-off whose recording stream is closed before the launch is
// dropped, as an unheld one is: Close waited for that stream's work, so
// the launch has nothing to wait for and succeeds.
func TestHeldHandoffFromAClosedStreamIsDropped(t *testing.T) {
	dev := testutil.Device(t)
	ks := testutil.Kernels(t, dev)
	prod, err := dev.NewStream()
	require.NoError(t, err)
	cons := testutil.Stream(t, dev)
	x := spunArray(t, prod, 5)
	y := testutil.Alloc(t, dev, 4)

	o := lifetime.Claim{Call: "Test"}
	o.Add(x, tracking.Read, cons)
	require.NoError(t, o.BeginLaunch())
	require.NoError(t, prod.Close())
	err = o.Launch(cons, ks.Copy, one, y, x.Ptr(), uint64(1))
	o.End()
	require.NoError(t, err)
	assert.Equal(t, []uint32{5}, testutil.Download[uint32](t, cons, y, 1))
}
