package collective_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

func TestBadInputs(t *testing.T) {
	c, devs := newComm(t)
	n := c.Size()
	mk := func(l int) []*gpuarr.Array[float32] {
		out := make([]*gpuarr.Array[float32], n)
		for i := range n {
			out[i] = empty[float32](t, l, devs[i])
		}
		return out
	}
	other, err := device.Open("host:0")
	require.NoError(t, err)

	cases := []struct {
		name string
		run  func(t *testing.T) error
		msg  string
	}{
		{"too few arrays", func(t *testing.T) error { return collective.AllReduce(c, mk(4)[:n-1], nil, collective.Sum) }, "local ranks"},
		{"too many arrays", func(t *testing.T) error {
			return collective.AllReduce(c, append(mk(4), empty[float32](t, 4, devs[0])), nil, collective.Sum)
		}, "local ranks"},
		{"nil array", func(t *testing.T) error {
			a := mk(4)
			a[n-1] = nil
			return collective.AllReduce(c, a, nil, collective.Sum)
		}, "nil send"},
		{"lengths differ across ranks", func(t *testing.T) error {
			if n < 2 {
				a := mk(4)
				return collective.AllReduce(c, a, mk(5), collective.Sum)
			}
			a := mk(4)
			a[n-1] = empty[float32](t, 5, devs[n-1])
			return collective.AllReduce(c, a, nil, collective.Sum)
		}, "elements"},
		{"shapes differ across ranks", func(t *testing.T) error {
			if n < 2 {
				t.Skip("one rank: no other rank to differ from")
			}
			a := mk(4)
			b, err := gpuarr.Zeros[float32](gpuarr.Shape{2, 2}, gpuarr.OnDevice(devs[n-1]))
			require.NoError(t, err)
			defer b.Release()
			a[n-1] = b
			return collective.AllReduce(c, a, nil, collective.Sum)
		}, "shape"},
		{"receive length", func(t *testing.T) error { return collective.AllReduce(c, mk(4), mk(3), collective.Sum) }, "receive array has 3 elements"},
		{"all-gather receive too short", func(t *testing.T) error { return collective.AllGather(c, mk(4), mk(4*n-1)) }, "receive array"},
		{"reduce-scatter not a multiple", func(t *testing.T) error {
			if n < 2 {
				t.Skip("one rank: every length is a multiple of 1")
			}
			return collective.ReduceScatter(c, mk(4*n+1), mk(4), collective.Sum)
		}, "multiple"},
		{"all-gather nil receive", func(t *testing.T) error { return collective.AllGather(c, mk(4), nil) }, "nil receive"},
		{"root out of range", func(t *testing.T) error { return collective.Broadcast(c, mk(4), nil, n) }, "root"},
		{"negative root", func(t *testing.T) error { return collective.Reduce(c, mk(4), nil, collective.Sum, -1) }, "root"},
		{"unknown op", func(t *testing.T) error { return collective.AllReduce(c, mk(4), nil, collective.Op(9)) }, "reduction"},
		{"wrong stream count", func(t *testing.T) error {
			return collective.AllReduce(c, mk(4), nil, collective.Sum, collective.On(make([]*device.Stream, n+1)...))
		}, "streams"},
		{"released array", func(t *testing.T) error {
			a := mk(4)
			require.NoError(t, a[0].Release())
			return collective.AllReduce(c, a, nil, collective.Sum)
		}, "released"},
	}
	if other != nil && other.Backend() != devs[0].Backend() || n > 1 {
		cases = append(cases, struct {
			name string
			run  func(t *testing.T) error
			msg  string
		}{"array on the wrong device", func(t *testing.T) error {
			a := mk(4)
			wrong := devs[0]
			if n > 1 {
				wrong = devs[1]
			} else {
				wrong = other
			}
			a[0] = empty[float32](t, 4, wrong)
			return collective.AllReduce(c, a, nil, collective.Sum)
		}, "but the rank is on"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run(t)
			require.ErrorIs(t, err, collective.ErrArgument)
			require.ErrorContains(t, err, tc.msg)
		})
	}

	t.Run("zero array", func(t *testing.T) {
		a := mk(4)
		a[0] = &gpuarr.Array[float32]{}
		var err error
		require.NotPanics(t, func() { err = collective.AllReduce(c, a, nil, collective.Sum) })
		require.ErrorIs(t, err, collective.ErrArgument)
		require.ErrorContains(t, err, "zero Array")
	})

	t.Run("int16 has no NCCL type", func(t *testing.T) {
		a := make([]*gpuarr.Array[int16], n)
		for i := range n {
			a[i] = empty[int16](t, 4, devs[i])
		}
		err := collective.AllReduce(c, a, nil, collective.Sum)
		require.ErrorIs(t, err, collective.ErrArgument)
		require.ErrorContains(t, err, "int16")
	})
}

func TestNewCommErrors(t *testing.T) {
	devs := allDevices(t)
	_, err := collective.NewComm(nil)
	require.ErrorIs(t, err, device.ErrInvalidValue)
	_, err = collective.NewComm([]*device.Device{devs[0], devs[0]})
	require.ErrorIs(t, err, device.ErrInvalidValue)
	require.ErrorContains(t, err, "twice")
	_, err = collective.NewComm([]*device.Device{nil})
	require.ErrorIs(t, err, device.ErrInvalidValue)
}

func TestUseAfterClose(t *testing.T) {
	devs := allDevices(t)
	c, err := collective.NewComm(devs)
	if err != nil && errorsIsNotSupported(err) {
		t.Skipf("no NCCL: %v", err)
	}
	require.NoError(t, err)
	a := make([]*gpuarr.Array[float64], c.Size())
	for i := range a {
		a[i] = empty[float64](t, 3, devs[i])
	}
	require.NoError(t, c.Close())
	require.ErrorIs(t, c.Close(), collective.ErrClosed)
	require.ErrorIs(t, collective.AllReduce(c, a, nil, collective.Sum), collective.ErrClosed)
	require.ErrorIs(t, collective.Broadcast(c, a, nil, 0), collective.ErrClosed)
	require.ErrorIs(t, c.Group(func() error { return nil }), collective.ErrClosed)
}

func TestUniqueIDText(t *testing.T) {
	devs := allDevices(t)
	id := newUniqueID(t, devs[0])
	back, err := collective.ParseID(id.String())
	require.NoError(t, err)
	require.Equal(t, id, back)
	_, err = collective.ParseID("abc")
	require.ErrorIs(t, err, device.ErrInvalidValue)
}

// JoinComm with one rank per goroutine: the multi-process path's calls,
// in one process (NCCL allows one rank in a process; with several GPUs
// each goroutine takes its own).
func TestJoinComm(t *testing.T) {
	devs := allDevices(t)
	id := newUniqueID(t, devs[0])
	n := len(devs)
	comms := joinAll(t, id, devs)
	arrs := make([]*gpuarr.Array[int32], n)
	for r := range n {
		arrs[r] = fromHost(t, []int32{int32(r + 1)}, devs[r])
		require.Equal(t, r, comms[r].Rank(0))
		require.Equal(t, n, comms[r].Size())
		require.Equal(t, 1, comms[r].Local())
	}
	// Each rank issues from its own goroutine, as separate processes would.
	errs := make(chan error, n)
	for r := range n {
		go func() { errs <- collective.AllReduce(comms[r], arrs[r:r+1], nil, collective.Sum) }()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	for r := range n {
		require.Equal(t, []int32{int32(n * (n + 1) / 2)}, toHost(t, arrs[r]))
		require.NoError(t, comms[r].Close())
	}
	_, err := collective.JoinComm(id, 0, 0, devs[0])
	require.ErrorIs(t, err, device.ErrInvalidValue)
}

// A rank that never reaches a collective fails the others' streams after
// the timeout instead of hanging them (host backend: NCCL itself waits).
func TestHostRankNeverArrives(t *testing.T) {
	devs := allDevices(t)
	if devs[0].Backend() != "host" {
		t.Skip("NCCL has no timeout: a missing rank hangs the others on a GPU")
	}
	t.Setenv("GPUARR_HOST_COLLECTIVE_TIMEOUT", "100ms")
	id, err := collective.NewUniqueID(devs[0])
	require.NoError(t, err)
	comms := joinAll(t, id, []*device.Device{devs[0], devs[0]})
	s := testutil.Stream(t, devs[0])
	a := empty[float32](t, 4, devs[0])
	require.NoError(t, collective.AllReduce(comms[0], []*gpuarr.Array[float32]{a}, nil, collective.Sum, collective.On(s)))
	err = s.Synchronize()
	require.ErrorContains(t, err, "timed out")
	require.ErrorContains(t, err, "ranks [1]")
	require.ErrorContains(t, err, "GPUARR_HOST_COLLECTIVE_TIMEOUT")
	// The late rank fails at once rather than waiting in turn.
	s1 := testutil.Stream(t, devs[0])
	b := empty[float32](t, 4, devs[0])
	require.NoError(t, collective.AllReduce(comms[1], []*gpuarr.Array[float32]{b}, nil, collective.Sum, collective.On(s1)))
	require.ErrorContains(t, s1.Synchronize(), "timed out")

	// A join that never completes times out too.
	id2, err := collective.NewUniqueID(devs[0])
	require.NoError(t, err)
	_, err = collective.JoinComm(id2, 2, 0, devs[0])
	require.ErrorContains(t, err, "joined")
}

// Ranks that issue different collectives at the same point fail with an
// error naming both (host backend; NCCL does not check).
func TestHostMismatchedCollectives(t *testing.T) {
	devs := allDevices(t)
	if devs[0].Backend() != "host" {
		t.Skip("NCCL does not check that ranks issue the same collective")
	}
	id, err := collective.NewUniqueID(devs[0])
	require.NoError(t, err)
	comms := joinAll(t, id, []*device.Device{devs[0], devs[0]})
	streams := testutil.Streams(t, devs[0], 2)
	a := empty[float32](t, 4, devs[0])
	b := empty[float32](t, 5, devs[0])
	require.NoError(t, collective.AllReduce(comms[0], []*gpuarr.Array[float32]{a}, nil, collective.Sum, collective.On(streams[0])))
	require.NoError(t, collective.AllReduce(comms[1], []*gpuarr.Array[float32]{b}, nil, collective.Sum, collective.On(streams[1])))
	e0, e1 := streams[0].Synchronize(), streams[1].Synchronize()
	require.ErrorContains(t, errorsJoin(e0, e1), "same collectives in the same order")
}

// A missing NCCL fails the collectives only, with an error naming the
// library; HideSymbol("libnccl") plays the missing library on both
// backends.
func TestMissingNCCL(t *testing.T) {
	devs := allDevices(t)
	restore := devs[0].HideSymbol("libnccl")
	_, err := collective.NewComm(devs[:1])
	require.ErrorIs(t, err, collective.ErrNotSupported)
	require.ErrorContains(t, err, "libnccl.so.2")
	_, err = collective.NewUniqueID(devs[0])
	require.ErrorIs(t, err, collective.ErrNotSupported)
	// Everything else still works.
	a := empty[float32](t, 4, devs[0])
	require.Equal(t, []float32{0, 0, 0, 0}, toHost(t, a))
	restore()
	c, err := collective.NewComm(devs[:1])
	if err != nil && devs[0].Backend() == "cuda" && errorsIsNotSupported(err) {
		t.Skipf("no NCCL on this machine: %v", err)
	}
	require.NoError(t, err)
	require.NoError(t, c.Close())
}

// An error from the library itself carries its text: a root out of range
// at the device layer (the collective package refuses it before NCCL).
func TestLibraryError(t *testing.T) {
	_, all := newComm(t)
	// One rank: a group that fails part-way cannot leave other ranks waiting.
	devs := all[:1]
	comms, err := device.NewComms(devs)
	require.NoError(t, err)
	defer func() {
		for _, x := range comms {
			_ = x.Close()
		}
	}()
	a := empty[float32](t, 4, devs[0])
	calls := make([]device.Coll, len(devs))
	for i := range devs {
		calls[i] = device.Coll{Comm: comms[i], Kind: device.Broadcast, Count: 4, Type: dtype.Float32, Root: len(devs) + 5, Stream: devs[i].DefaultStream()}
	}
	err = arrayhook.Track("test", []arrayhook.Use{arrayhook.ReadsWrites(a, devs[0].DefaultStream())}, func() error {
		for i := range calls {
			calls[i].Send = arrayhook.DevicePtr(a)
			calls[i].Recv = arrayhook.DevicePtr(a)
		}
		return device.RunColls(calls)
	})
	require.ErrorIs(t, err, device.ErrInvalidValue)
	require.ErrorContains(t, err, "invalid")
	if devs[0].Backend() == "cuda" {
		require.ErrorContains(t, err, "ncclResult_t 4")
	}
}

// Rank and Device of an index that is not a local rank panic with a
// message that names the method, the index and the valid range, not
// Go's bare index error.
func TestLocalRankOutOfRange(t *testing.T) {
	c, _ := newComm(t)
	n := c.Local()
	ranks := fmt.Sprintf("%d local ranks (0 to %d)", n, n-1)
	if n == 1 {
		ranks = "1 local rank (0)"
	}
	for _, i := range []int{-1, n, n + 5} {
		want := fmt.Sprintf("collective: Comm.Device(%d): local rank out of range: the communicator has %s of %d in all", i, ranks, c.Size())
		assert.PanicsWithValue(t, want, func() { c.Device(i) })
		assert.Panics(t, func() { c.Rank(i) })
	}
	assert.NotPanics(t, func() { c.Device(n - 1); c.Rank(0) })
}
