package collective_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

func errorsIsNotSupported(err error) bool { return errors.Is(err, collective.ErrNotSupported) }

var ops = []collective.Op{collective.Sum, collective.Prod, collective.Max, collective.Min, collective.Avg}

// checkAll runs every collective on T, in place and out of place, against
// the host reference.
func checkAll[T gpuarr.Numeric](t *testing.T, c *collective.Comm, devs []*device.Device) {
	r := rand.New(rand.NewPCG(1, 2))
	n := c.Size()
	const cnt = 37
	for _, inPlace := range []bool{false, true} {
		name := fmt.Sprintf("inPlace=%v", inPlace)
		// AllReduce with every op.
		for _, op := range ops {
			data := make([][]T, n)
			send := make([]*gpuarr.Array[T], n)
			recv := make([]*gpuarr.Array[T], n)
			for i := range n {
				data[i] = values[T](r, cnt)
				send[i] = fromHost(t, data[i], devs[i])
				recv[i] = send[i]
				if !inPlace {
					recv[i] = empty[T](t, cnt, devs[i])
				}
			}
			require.NoError(t, collective.AllReduce(c, send, recv, op))
			want := reduce(op, data)
			for i := range n {
				equal(t, want, toHost(t, recv[i]), fmt.Sprintf("AllReduce %v %s rank %d", op, name, i))
			}
			// Reduce to the last rank.
			root := n - 1
			for i := range n {
				require.NoError(t, send[i].CopyFromHost(data[i]))
			}
			rrecv := make([]*gpuarr.Array[T], n)
			if inPlace {
				rrecv = nil
			} else {
				rrecv[root] = empty[T](t, cnt, devs[root])
			}
			require.NoError(t, collective.Reduce(c, send, rrecv, op, root))
			out := send[root]
			if !inPlace {
				out = rrecv[root]
			}
			equal(t, want, toHost(t, out), fmt.Sprintf("Reduce %v %s", op, name))

			// ReduceScatter: each rank sends cnt·n, gets cnt.
			big := make([][]T, n)
			rsSend := make([]*gpuarr.Array[T], n)
			rsRecv := make([]*gpuarr.Array[T], n)
			for i := range n {
				big[i] = values[T](r, cnt*n)
				rsSend[i] = fromHost(t, big[i], devs[i])
				if inPlace {
					v, err := rsSend[i].Slice(i*cnt, (i+1)*cnt)
					require.NoError(t, err)
					rsRecv[i] = v
				} else {
					rsRecv[i] = empty[T](t, cnt, devs[i])
				}
			}
			require.NoError(t, collective.ReduceScatter(c, rsSend, rsRecv, op))
			full := reduce(op, big)
			for i := range n {
				equal(t, full[i*cnt:(i+1)*cnt], toHost(t, rsRecv[i]), fmt.Sprintf("ReduceScatter %v %s rank %d", op, name, i))
			}
		}
		// Broadcast from rank 0 and from the last rank.
		for _, root := range []int{0, n - 1} {
			src := values[T](r, cnt)
			send := make([]*gpuarr.Array[T], n)
			recv := make([]*gpuarr.Array[T], n)
			for i := range n {
				recv[i] = empty[T](t, cnt, devs[i])
			}
			if inPlace {
				require.NoError(t, recv[root].CopyFromHost(src))
				send = nil
			} else {
				send[root] = fromHost(t, src, devs[root])
			}
			require.NoError(t, collective.Broadcast(c, send, recv, root))
			for i := range n {
				equal(t, src, toHost(t, recv[i]), fmt.Sprintf("Broadcast root %d %s rank %d", root, name, i))
			}
		}
		// AllGather.
		var want []T
		send := make([]*gpuarr.Array[T], n)
		recv := make([]*gpuarr.Array[T], n)
		parts := make([][]T, n)
		for i := range n {
			parts[i] = values[T](r, cnt)
			want = append(want, parts[i]...)
		}
		for i := range n {
			recv[i] = empty[T](t, cnt*n, devs[i])
			if inPlace {
				v, err := recv[i].Slice(i*cnt, (i+1)*cnt)
				require.NoError(t, err)
				require.NoError(t, v.CopyFromHost(parts[i]))
				send[i] = v
			} else {
				send[i] = fromHost(t, parts[i], devs[i])
			}
		}
		require.NoError(t, collective.AllGather(c, send, recv))
		for i := range n {
			equal(t, want, toHost(t, recv[i]), fmt.Sprintf("AllGather %s rank %d", name, i))
		}
	}
}

func TestEveryCollectiveAndType(t *testing.T) {
	c, devs := newComm(t)
	t.Run("int8", func(t *testing.T) { checkAll[int8](t, c, devs) })
	t.Run("uint8", func(t *testing.T) { checkAll[uint8](t, c, devs) })
	t.Run("int32", func(t *testing.T) { checkAll[int32](t, c, devs) })
	t.Run("uint32", func(t *testing.T) { checkAll[uint32](t, c, devs) })
	t.Run("int64", func(t *testing.T) { checkAll[int64](t, c, devs) })
	t.Run("uint64", func(t *testing.T) { checkAll[uint64](t, c, devs) })
	t.Run("float32", func(t *testing.T) { checkAll[float32](t, c, devs) })
	t.Run("float64", func(t *testing.T) { checkAll[float64](t, c, devs) })
}

// A defined type takes its underlying type's NCCL type.
type celsius float32

func TestDefinedElementType(t *testing.T) {
	c, devs := newComm(t)
	checkAll[celsius](t, c, devs)
}

func TestGroupIssuesTogether(t *testing.T) {
	c, devs := newComm(t)
	n := c.Size()
	a := make([]*gpuarr.Array[float32], n)
	b := make([]*gpuarr.Array[int64], n)
	for i := range n {
		a[i] = fromHost(t, []float32{float32(i + 1), 2}, devs[i])
		b[i] = fromHost(t, []int64{int64(i), 5}, devs[i])
	}
	require.NoError(t, c.Group(func() error {
		if err := collective.AllReduce(c, a, nil, collective.Sum); err != nil {
			return err
		}
		// Nothing is issued before the group ends.
		return collective.AllReduce(c, b, nil, collective.Max)
	}))
	for i := range n {
		require.Equal(t, []float32{float32(n * (n + 1) / 2), float32(2 * n)}, toHost(t, a[i]))
		require.Equal(t, []int64{int64(n - 1), 5}, toHost(t, b[i]))
	}
	// A refused collective inside a group issues nothing.
	before := toHost(t, a[0])
	err := c.Group(func() error {
		_ = collective.AllReduce(c, a, nil, collective.Sum)
		return collective.AllReduce(c, a[:0], nil, collective.Sum)
	})
	require.ErrorIs(t, err, collective.ErrArgument)
	require.Equal(t, before, toHost(t, a[0]))
	require.ErrorIs(t, c.Group(func() error { return c.Group(func() error { return nil }) }), collective.ErrArgument)
}

func TestOnStreams(t *testing.T) {
	c, devs := newComm(t)
	n := c.Size()
	streams := make([]*device.Stream, n)
	a := make([]*gpuarr.Array[int32], n)
	for i := range n {
		streams[i] = testutil.Stream(t, devs[i])
		a[i] = fromHost(t, []int32{int32(i), 1}, devs[i])
	}
	require.NoError(t, collective.AllReduce(c, a, nil, collective.Sum, collective.On(streams...)))
	for i := range n {
		require.Equal(t, []int32{int32(n * (n - 1) / 2), int32(n)}, toHost(t, a[i]))
	}
}
