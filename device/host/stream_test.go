package host

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Under checking mode every operation may start late, yet a stream's
// operations must still run strictly in issue order: kernels, memsets and
// copies interleaved.
func TestStreamRunsInOrderUnderCheckMode(t *testing.T) {
	d := testSystem(t, withCheck(true)).devs[0]
	k := testKernels(t, d)
	s := newTestStream(t, d)
	p, scratch := newTestAlloc(t, d, 8), newTestAlloc(t, d, 8)
	require.NoError(t, s.Memset32(p, 0, 2))
	const n = 2000
	for i := range n {
		launch(t, s, k["step"], p, uint32(i))
		if i%100 == 0 {
			// Round trips through other memory must not disturb the order.
			require.NoError(t, s.CopyDtoD(scratch, p, 8))
			require.NoError(t, s.CopyDtoD(p, scratch, 8))
		}
	}
	got := download[uint32](t, s, p, 2)
	assert.Equal(t, []uint32{n, 0}, got, "counter and out-of-order flag")
}

// Calls return before their work runs, and Synchronize/Query follow it.
func TestStreamIsAsynchronous(t *testing.T) {
	d := testSystem(t).devs[0]
	k := testKernels(t, d)
	s := newTestStream(t, d)
	x := newTestAlloc(t, d, 4)
	start := time.Now()
	launch(t, s, k["spin_write"], x, uint32(9), 60*time.Millisecond)
	require.NoError(t, s.Memset32(x, 5, 1))
	assert.Less(t, time.Since(start), 40*time.Millisecond, "queueing blocked")
	done, err := s.Query()
	require.NoError(t, err)
	assert.False(t, done)

	require.NoError(t, s.Synchronize())
	assert.GreaterOrEqual(t, time.Since(start), 60*time.Millisecond)
	done, err = s.Query()
	require.NoError(t, err)
	assert.True(t, done)
	assert.Equal(t, []uint32{5}, download[uint32](t, s, x, 1), "the memset ran after the kernel")
}

// An upload snapshots its source at the call, even while the stream is
// busy, so the caller may reuse the buffer at once.
func TestUploadSnapshotsSource(t *testing.T) {
	d := testSystem(t).devs[0]
	k := testKernels(t, d)
	s := newTestStream(t, d)
	x := newTestAlloc(t, d, 16)
	launch(t, s, k["spin_write"], x, uint32(0), 20*time.Millisecond)
	src := []uint32{1, 2, 3, 4}
	upload(t, s, x, src)
	copy(src, []uint32{9, 9, 9, 9})
	assert.Equal(t, []uint32{1, 2, 3, 4}, download[uint32](t, s, x, 4))
}

// Close drains the stream; Device.Synchronize waits for every live stream.
func TestCloseDrainsAndDeviceSynchronizeWaits(t *testing.T) {
	d := testSystem(t).devs[0]
	k := testKernels(t, d)
	x, y := newTestAlloc(t, d, 4), newTestAlloc(t, d, 4)
	s1, s2 := newTestStream(t, d), newTestStream(t, d)
	launch(t, s1, k["spin_write"], x, uint32(1), 30*time.Millisecond)
	launch(t, s2, k["spin_write"], y, uint32(2), 20*time.Millisecond)
	require.NoError(t, d.Synchronize())
	for _, s := range []*stream{s1, s2} {
		done, err := s.Query()
		require.NoError(t, err)
		assert.True(t, done)
	}

	s3 := newTestStream(t, d)
	launch(t, s3, k["spin_write"], x, uint32(3), 20*time.Millisecond)
	require.NoError(t, s3.Close())
	var got [1]uint32
	require.NoError(t, d.CopyDtoH(ptrOf(&got), x, 4))
	assert.Equal(t, uint32(3), got[0], "Close waited for the kernel")
	assert.Equal(t, driver.Closed, code(t, s3.Close()))
	assert.Equal(t, driver.Closed, code(t, s3.Memset8(x, 0, 1)))
	assert.NotEqual(t, s1.Handle(), s2.Handle())
}

// An asynchronous error is reported once to the stream and once to the
// device, and the device stays usable (unlike CUDA).
func TestStickyErrorsReportedToStreamAndDevice(t *testing.T) {
	cases := []struct {
		kernel string
		want   driver.Result
		text   string
	}{
		{"fail", driver.LaunchFailed, "deliberate failure"},
		{"panic", driver.LaunchFailed, "deliberate panic"},
		{"touch", driver.IllegalAddress, "not inside any live allocation"},
	}
	for _, c := range cases {
		t.Run(c.kernel, func(t *testing.T) {
			d := testSystem(t).devs[0]
			k := testKernels(t, d)
			s := newTestStream(t, d)
			x := newTestAlloc(t, d, 4)
			launch(t, s, k[c.kernel], driver.Ptr(0x10), uint64(4))
			require.NoError(t, s.Memset32(x, 77, 1), "work after the failure is accepted")

			err := s.Synchronize()
			require.Error(t, err)
			assert.Equal(t, c.want, code(t, err))
			assert.Contains(t, err.Error(), c.text)
			assert.Contains(t, err.Error(), "hosttest_"+c.kernel, "names the kernel")
			assert.NoError(t, s.Synchronize(), "reported once to the stream")

			err = d.Synchronize()
			assert.Equal(t, c.want, code(t, err), "and once to the device")
			assert.NoError(t, d.Synchronize())

			assert.Equal(t, []uint32{77}, download[uint32](t, s, x, 1), "later work ran")
		})
	}
}

// A download reports an earlier failure on its stream; Close hands an
// error the device has not seen over to Device.Synchronize.
func TestDownloadAndCloseReportErrors(t *testing.T) {
	d := testSystem(t).devs[0]
	k := testKernels(t, d)
	x := newTestAlloc(t, d, 4)

	s := newTestStream(t, d)
	launch(t, s, k["fail"])
	var got [1]uint32
	err := s.CopyDtoH(ptrOf(&got), x, 4)
	assert.Equal(t, driver.LaunchFailed, code(t, err))
	assert.NoError(t, s.Synchronize())
	assert.Error(t, d.Synchronize())

	s2, err := d.NewStream()
	require.NoError(t, err)
	launch(t, s2.(*stream), k["fail"])
	assert.Equal(t, driver.LaunchFailed, code(t, s2.Close()))
	assert.Equal(t, driver.LaunchFailed, code(t, d.Synchronize()))
	assert.NoError(t, d.Synchronize())
}
