package collective_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// Collectives racing other streams on the same arrays, with no manual
// synchronization: inputs written on one stream, the collective on
// another, the result read on a third, the inputs overwritten right after
// (write after read) and every array released at once (free while the
// collective may still use it). Tracking alone must order all of it.
func TestRacingStreams(t *testing.T) {
	c, devs := newComm(t)
	n := c.Size()
	trials := 1000
	if testing.Short() {
		trials = 100
	}
	type side struct{ producer, coll, consumer *device.Stream }
	sides := make([]side, n)
	for i := range n {
		ss := testutil.Streams(t, devs[i], 3)
		sides[i] = side{ss[0], ss[1], ss[2]}
	}
	collStreams := make([]*device.Stream, n)
	for i := range n {
		collStreams[i] = sides[i].coll
	}
	r := rand.New(rand.NewPCG(7, 8))
	wrong := 0
	for trial := range trials {
		cnt := 1 + r.IntN(300)
		op := ops[r.IntN(len(ops))]
		inPlace := r.IntN(2) == 0
		data := make([][]int64, n)
		x := make([]*gpuarr.Array[int64], n)
		y := make([]*gpuarr.Array[int64], n)
		for i := range n {
			data[i] = values[int64](r, cnt)
			// Written on the producer stream: the collective must wait.
			a, err := gpuarr.Empty[int64](gpuarr.Shape{cnt}, gpuarr.On(sides[i].producer))
			require.NoError(t, err)
			require.NoError(t, a.CopyFromHost(data[i], gpuarr.On(sides[i].producer)))
			x[i] = a
			if inPlace {
				y[i] = a
			} else {
				b, err := gpuarr.Full[int64](gpuarr.Shape{cnt}, -1, gpuarr.On(sides[i].consumer))
				require.NoError(t, err)
				y[i] = b
			}
		}
		require.NoError(t, collective.AllReduce(c, x, y, op, collective.On(collStreams...)))
		want := reduce(op, data)
		got := make([]*gpuarr.Array[int64], n)
		for i := range n {
			// Read on the consumer stream: must wait for the collective.
			g, err := gpuarr.Clone(y[i], gpuarr.On(sides[i].consumer))
			require.NoError(t, err)
			got[i] = g
			if !inPlace {
				// Overwrite the input on the producer: must wait for the
				// collective's read.
				require.NoError(t, x[i].CopyFromHost(make([]int64, cnt), gpuarr.On(sides[i].producer)))
			}
			require.NoError(t, x[i].Release())
			if !inPlace {
				require.NoError(t, y[i].Release())
			}
		}
		for i := range n {
			v, err := got[i].ToSlice()
			require.NoError(t, err)
			require.NoError(t, got[i].Release())
			if fmt.Sprint(v) != fmt.Sprint(want) {
				wrong++
				t.Errorf("trial %d rank %d (%v, %d elements, inPlace %v): got %v, want %v", trial, i, op, cnt, inPlace, v[:min(8, len(v))], want[:min(8, len(want))])
			}
		}
	}
	require.Zero(t, wrong, "wrong results in %d trials", trials)
}
