package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/bench/report"
)

// A few hundred trials on the selected device (the host backend in CI,
// with its checking mode under GPUARR_HOST_CHECK=1; the GPU with
// GPUARR_DEVICE=cuda): every result right, every kind run as often, the
// counts and each kind's path in the JSON.
func TestStressTrials(t *testing.T) {
	c := defaults()
	c.trials = 40 * int(numKinds)
	c.out = t.TempDir()
	var out bytes.Buffer
	res, err := run(c, &out)
	require.NoError(t, err)
	assert.Equal(t, c.trials, res.trials+res.perKind[unifiedArray][3]+res.perKind[collectiveOp][3])
	assert.Zero(t, res.wrong, "wrong trials:\n%s", out.String())
	assert.Empty(t, res.failed())
	assert.Contains(t, out.String(), fmt.Sprintf("stress: %d trials, 0 wrong\n", res.trials))
	for k := range numKinds {
		assert.Equal(t, 40, res.perKind[k][0]+res.perKind[k][3], "%s trials", kind(k))
		if res.perKind[k][3] > 0 {
			assert.NotEmpty(t, res.why[k], "%s not run without a reason", kind(k))
		}
		assert.Contains(t, out.String(), kind(k).String())
	}

	rep, err := report.Load(filepath.Join(c.out, "stress.json"))
	require.NoError(t, err)
	assert.Equal(t, res.device, rep.Device)
	require.Len(t, rep.Rows, 1+int(numKinds))
	assert.Equal(t, "all", rep.Rows[0].Name)
	assert.Equal(t, float64(res.trials), rep.Rows[0].Metrics["trials"])
	assert.Equal(t, 0.0, rep.Rows[0].Metrics["wrong"])
	assert.Contains(t, rep.Rows[0].Metrics, "seconds")
	assert.Equal(t, "met", rep.Rows[0].Verdict())
	for k := range numKinds {
		row := rep.Rows[1+k]
		assert.Equal(t, kind(k).String(), row.Name)
		assert.Equal(t, paths[k], row.Labels["path"])
		assert.Equal(t, float64(res.perKind[k][0]), row.Metrics["trials"])
	}
}

// Fewer trials than kinds leave kinds unexercised: the gate fails, naming
// the first.
func TestStressFailsWithAnUnexercisedKind(t *testing.T) {
	c := defaults()
	c.trials = int(numKinds) - 1
	res, err := run(c, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Zero(t, res.wrong)
	assert.Equal(t, fmt.Sprintf("no %s trial ran: give at least %d trials", kind(numKinds-1), numKinds), res.failed())
}

// One worker and the fewest streams still run every kind.
func TestStressSmallest(t *testing.T) {
	c := config{trials: 3 * int(numKinds), streams: 3, workers: 1, seed: 7, maxSpin: 0}
	var out bytes.Buffer
	res, err := run(c, &out)
	require.NoError(t, err)
	assert.Equal(t, c.trials, res.trials+res.perKind[unifiedArray][3]+res.perKind[collectiveOp][3])
	assert.Zero(t, res.wrong, out.String())
	assert.Empty(t, res.failed())
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
		p := newPlan(3, i, 8, 2, 1000)
		first := p.first.want(p.n, nil)
		for j, v := range first {
			require.True(t, v >= 0 && v < band, "trial %d first[%d] = %d", i, j, v)
		}
		for j, v := range p.second.want(p.n, first) {
			require.True(t, v >= band && v < 2*band, "trial %d second[%d] = %d", i, j, v)
		}
		require.True(t, p.a != p.b && p.b != p.c && p.a != p.c, "trial %d streams", i)
	}
	// A collective's ranks write by copies (the kernels are the first
	// device's), and their sum stays in the first band.
	for i := int(collectiveOp); i < 3000; i += int(numKinds) {
		p := newPlan(3, i, 8, maxRanks, 1000)
		require.Len(t, p.ranks, maxRanks)
		sum := make([]int64, p.n)
		for _, w := range p.ranks {
			require.Contains(t, []writeMethod{wCopy, wHost}, w.method, "trial %d", i)
			for j, v := range w.want(p.n, nil) {
				sum[j] += v
			}
		}
		for j, v := range sum {
			require.True(t, v >= 0 && v < band, "trial %d sum[%d] = %d", i, j, v)
		}
		require.NotContains(t, []readMethod{rCopyKernel, rVAdd}, p.read, "trial %d", i)
	}
}
