package gcpressure

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/memory"
)

// The package's counters appear in memory.Metrics under their documented
// names, with Stats' values.
func TestMetricsPublishCounters(t *testing.T) {
	require.NoError(t, Install())
	m := memory.Metrics()
	tot := Stats()
	for _, name := range []string{"gc/eager_collections", "gc/eager_skipped", "gc/eager_bytes_freed", "gc/eager_seconds",
		"gc/ladder_runs", "gc/ladder_steps", "gc/ladder_collections", "gc/ladder_bytes_freed", "gc/host_charged_bytes", "gc/eager_enabled"} {
		assert.Contains(t, m, name)
	}
	assert.GreaterOrEqual(t, m["gc/eager_collections"], float64(0))
	assert.LessOrEqual(t, m["gc/eager_collections"], float64(Stats().Eager.Collections))
	assert.GreaterOrEqual(t, m["gc/eager_collections"], float64(tot.Eager.Collections))
	want := 0.0
	if Eager() {
		want = 1
	}
	assert.Equal(t, want, m["gc/eager_enabled"])
}
