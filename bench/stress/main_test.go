package main

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/bench/report"
)

// A few hundred trials on the selected device (the host backend in CI,
// with its checking mode under GPUARR_HOST_CHECK=1; the GPU with
// GPUARR_DEVICE=cuda): every result right, the counts in the JSON.
func TestStressTrials(t *testing.T) {
	c := defaults()
	c.trials = 300
	c.out = t.TempDir()
	var out bytes.Buffer
	res, err := run(c, &out)
	require.NoError(t, err)
	assert.Equal(t, 300, res.trials)
	assert.Zero(t, res.wrong, "wrong trials:\n%s", out.String())
	assert.Contains(t, out.String(), "stress: 300 trials, 0 wrong\n")
	for k := range numKinds {
		assert.Equal(t, 100, res.perKind[k][0], "%s trials", k)
	}

	rep, err := report.Load(filepath.Join(c.out, "stress.json"))
	require.NoError(t, err)
	assert.Equal(t, res.device, rep.Device)
	require.NotEmpty(t, rep.Rows)
	assert.Equal(t, "all", rep.Rows[0].Name)
	assert.Equal(t, 300.0, rep.Rows[0].Metrics["trials"])
	assert.Equal(t, 0.0, rep.Rows[0].Metrics["wrong"])
	assert.Contains(t, rep.Rows[0].Metrics, "seconds")
}

// One worker and the fewest streams still run every kind.
func TestStressSmallest(t *testing.T) {
	c := config{trials: 30, streams: 3, workers: 1, seed: 7, maxSpin: 0}
	var out bytes.Buffer
	res, err := run(c, &out)
	require.NoError(t, err)
	assert.Equal(t, 30, res.trials)
	assert.Zero(t, res.wrong, out.String())
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*config)
		want string
	}{
		{"no trials", func(c *config) { c.trials = 0 }, "-trials 0: need at least 1"},
		{"two streams", func(c *config) { c.streams = 2 }, "-streams 2: need at least 3"},
		{"no workers", func(c *config) { c.workers = 0 }, "-workers 0: need at least 1"},
		{"negative spin", func(c *config) { c.maxSpin = -time.Microsecond }, "-max-spin -1µs: must lie in [0, 1s]"},
		{"long spin", func(c *config) { c.maxSpin = 2 * time.Second }, "-max-spin 2s: must lie in [0, 1s]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := defaults()
			tc.edit(&c)
			_, err := run(c, &bytes.Buffer{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// The comparison reports the first wrong elements, then a count.
func TestCompareReportsWrongElements(t *testing.T) {
	assert.Empty(t, compare("x", []float32{1, 2, 3}, []int64{1, 2, 3}))
	assert.Equal(t, []string{"x[1] = 5, want 2"}, compare("x", []uint32{1, 5, 3}, []int64{1, 2, 3}))
	assert.Equal(t, []string{"x: 2 elements, want 3"}, compare("x", []int64{1, 2}, []int64{1, 2, 3}))
	got := compare("y", []int64{9, 9, 9, 9, 9, 9}, []int64{0, 0, 0, 0, 0, 0})
	require.Len(t, got, 5)
	assert.Equal(t, "y: 6 wrong elements of 6 in all", got[4])
}

// What each read gives for given contents, and the contents each write
// leaves, in both bands.
func TestExpectedContents(t *testing.T) {
	assert.Equal(t, []int64{3, 5}, expected(rExpr, []int64{1, 2}))
	assert.Equal(t, []int64{2, 4}, expected(rVAdd, []int64{1, 2}))
	assert.Equal(t, []int64{3}, expected(rSum, []int64{1, 2}))
	assert.Equal(t, []int64{1, 2}, expected(rCopy, []int64{1, 2}))
	assert.Equal(t, []int64{8, 7, 7}, write{method: wFill, v: 7}.want(3, nil))
	assert.Equal(t, []int64{5, 7, 9}, write{method: wExpr, k: 2, c: 5}.want(3, nil))
	assert.Equal(t, []int64{2049, 2050}, write{method: wAddSelf}.want(2, []int64{1, 2}))

	// Every planned write stays in its band, so generations never meet.
	for i := range 3000 {
		p := newPlan(3, i, 8, 1000)
		first := p.first.want(p.n, nil)
		for j, v := range first {
			require.True(t, v >= 0 && v < band, "trial %d first[%d] = %d", i, j, v)
		}
		for j, v := range p.second.want(p.n, first) {
			require.True(t, v >= band && v < 2*band, "trial %d second[%d] = %d", i, j, v)
		}
		require.True(t, p.a != p.b && p.b != p.c && p.a != p.c, "trial %d streams", i)
	}
}
