package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/internal/testutil"
)

// TestVecAdd runs the demo's check on the selected device at sizes that
// cover a partial block, one block and several.
func TestVecAdd(t *testing.T) {
	dev := testutil.Device(t)
	for _, n := range []int{1, 255, 256, 1000, 1 << 16} {
		res, err := vecAdd(dev, n, rand.New(rand.NewPCG(uint64(n), 7)))
		require.NoError(t, err, "n=%d on %s", n, dev)
		assert.Zero(t, res.MaxError)
		assert.Positive(t, res.Total)
	}
}

func TestVecAddRejectsEmpty(t *testing.T) {
	dev := testutil.Device(t)
	_, err := vecAdd(dev, 0, rand.New(rand.NewPCG(1, 1)))
	require.Error(t, err)
}

func TestCheck(t *testing.T) {
	x := []float32{1, 2, 3}
	y := []float32{0.5, 0.25, -3}
	cases := []struct {
		name    string
		got     []float32
		maxErr  float64
		wantErr string
	}{
		{"exact", []float32{1.5, 2.25, 0}, 0, ""},
		{"one off", []float32{1.5, 2.5, 0}, 0.25, "1 of 3 elements differ"},
		{"last bit", []float32{math.Nextafter32(1.5, 2), 2.25, 0}, float64(math.Nextafter32(1.5, 2)) - 1.5, "first c[0]"},
		{"NaN", []float32{1.5, 2.25, float32(math.NaN())}, math.Inf(1), "first c[2]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			maxErr, err := check(x, y, c.got)
			assert.Equal(t, c.maxErr, maxErr)
			if c.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, c.wantErr)
			}
		})
	}
}
