package collective_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// Collectives of the 16-bit floats (NCCL's own types), bools (as uint8)
// and complex numbers (as pairs of floats), with values every order of
// rounding keeps exact.
func TestStorageTypes(t *testing.T) {
	c, devs := newComm(t)
	n := c.Size()

	t.Run("float16", func(t *testing.T) {
		send := make([]*gpuarr.Array[gpuarr.Float16], n)
		for r := range n {
			send[r] = fromHost(t, []gpuarr.Float16{gpuarr.ToFloat16(float64(r + 1)), gpuarr.ToFloat16(-0.5), gpuarr.ToFloat16(2.0)}, devs[r])
		}
		require.NoError(t, collective.AllReduce(c, send, nil, collective.Sum))
		want := []gpuarr.Float16{gpuarr.ToFloat16(float64(n * (n + 1) / 2)), gpuarr.ToFloat16(-0.5 * float64(n)), gpuarr.ToFloat16(2.0 * float64(n))}
		for r := range n {
			assert.Equal(t, want, toHost(t, send[r]), "rank %d", r)
		}
	})

	t.Run("bfloat16", func(t *testing.T) {
		send := make([]*gpuarr.Array[gpuarr.BFloat16], n)
		for r := range n {
			send[r] = fromHost(t, []gpuarr.BFloat16{gpuarr.ToBFloat16(float64(r)), gpuarr.ToBFloat16(4.0)}, devs[r])
		}
		require.NoError(t, collective.AllReduce(c, send, nil, collective.Max))
		for r := range n {
			assert.Equal(t, []gpuarr.BFloat16{gpuarr.ToBFloat16(float64(n - 1)), gpuarr.ToBFloat16(4.0)}, toHost(t, send[r]))
		}
		require.NoError(t, collective.AllReduce(c, send, nil, collective.Avg))
		for r := range n {
			assert.Equal(t, []gpuarr.BFloat16{gpuarr.ToBFloat16(float64(n - 1)), gpuarr.ToBFloat16(4.0)}, toHost(t, send[r]), "the average of equal values")
		}
	})

	t.Run("bool", func(t *testing.T) {
		mk := func() []*gpuarr.Array[bool] {
			a := make([]*gpuarr.Array[bool], n)
			for r := range n {
				a[r] = fromHost(t, []bool{r == 0, true, false, r == n-1}, devs[r])
			}
			return a
		}
		for _, c2 := range []struct {
			op   collective.Op
			want []bool
		}{
			{collective.Max, []bool{true, true, false, true}},     // any
			{collective.Min, []bool{n == 1, true, false, n == 1}}, // all
			{collective.Prod, []bool{n == 1, true, false, n == 1}},
		} {
			a := mk()
			require.NoError(t, collective.AllReduce(c, a, nil, c2.op))
			for r := range n {
				assert.Equal(t, c2.want, toHost(t, a[r]), "%v rank %d", c2.op, r)
			}
		}
		a := mk()
		require.NoError(t, collective.Broadcast(c, a, nil, n-1))
		for r := range n {
			assert.Equal(t, []bool{n == 1, true, false, true}, toHost(t, a[r]))
		}
		err := collective.AllReduce(c, mk(), nil, collective.Sum)
		require.ErrorIs(t, err, collective.ErrArgument)
		require.ErrorContains(t, err, "sum of bool: the count would not fit in a bool; cast to an integer type first")
	})

	t.Run("complex", func(t *testing.T) {
		send := make([]*gpuarr.Array[complex64], n)
		for r := range n {
			send[r] = fromHost(t, []complex64{complex(float32(r), 1), 2i, -3}, devs[r])
		}
		recv := make([]*gpuarr.Array[complex64], n)
		for r := range n {
			recv[r] = empty[complex64](t, 3, devs[r])
		}
		require.NoError(t, collective.AllReduce(c, send, recv, collective.Sum))
		want := []complex64{complex(float32(n*(n-1)/2), float32(n)), complex(0, 2*float32(n)), complex(-3*float32(n), 0)}
		for r := range n {
			assert.Equal(t, want, toHost(t, recv[r]), "sum rank %d", r)
		}
		require.NoError(t, collective.AllReduce(c, send, nil, collective.Avg))
		for r := range n {
			assert.Equal(t, []complex64{complex(float32(n*(n-1)/2)/float32(n), 1), 2i, -3}, toHost(t, send[r]), "avg rank %d", r)
		}
		// AllGather: every rank's elements in rank order.
		all := make([]*gpuarr.Array[complex128], n)
		mine := make([]*gpuarr.Array[complex128], n)
		for r := range n {
			mine[r] = fromHost(t, []complex128{complex(float64(r), -1), 7i}, devs[r])
			all[r] = empty[complex128](t, 2*n, devs[r])
		}
		require.NoError(t, collective.AllGather(c, mine, all))
		var gathered []complex128
		for r := range n {
			gathered = append(gathered, complex(float64(r), -1), 7i)
		}
		for r := range n {
			assert.Equal(t, gathered, toHost(t, all[r]))
		}
		for _, op := range []collective.Op{collective.Prod, collective.Max, collective.Min} {
			err := collective.AllReduce(c, send, nil, op)
			require.ErrorIs(t, err, collective.ErrArgument)
			require.ErrorContains(t, err, "complex numbers are not ordered and their product mixes the parts; collectives reduce them with Sum and Avg only")
		}
	})
}
