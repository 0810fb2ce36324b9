package memory

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Metrics names the default resource's gauges under its device, follows
// its allocations, and includes registered sources.
func TestMetrics(t *testing.T) {
	dev := defaultDevice(t)
	r, err := Default(dev)
	require.NoError(t, err)
	RegisterMetrics(func(set func(string, float64)) { set("test/source", 42) })
	prefix := "memory/" + deviceLabel(dev) + "/"
	before := Metrics()
	for _, name := range []string{"allocated_bytes", "allocated_peak_bytes", "reserved_bytes", "reserved_peak_bytes",
		"cached_bytes", "fragmentation", "segments", "alloc_retries", "ooms", "hard_limit_bytes"} {
		assert.Contains(t, before, prefix+name)
	}
	assert.Contains(t, before, "memory/pinned_bytes")
	assert.Equal(t, float64(ProfileRate()), before["memory/profile_rate_bytes"])
	assert.Equal(t, 42.0, before["test/source"])

	b, err := r.Alloc(nil, 3<<20)
	require.NoError(t, err)
	during := Metrics()
	assert.Equal(t, float64(b.Capacity()), during[prefix+"allocated_bytes"]-before[prefix+"allocated_bytes"])
	assert.GreaterOrEqual(t, during[prefix+"reserved_bytes"], during[prefix+"allocated_bytes"])
	require.NoError(t, r.Free(b))
	assert.Equal(t, before[prefix+"allocated_bytes"], Metrics()[prefix+"allocated_bytes"])
}

// RecordTo writes a profile go tool pprof reads, and says so when no
// trace was recorded.
func TestRecordTo(t *testing.T) {
	t.Setenv(EnvTrace, "")
	dir := t.TempDir()
	prof := filepath.Join(dir, "gpu.pprof")
	finish := RecordTo(prof, "")
	require.NoError(t, finish())
	f, err := os.Open(prof)
	require.NoError(t, err)
	defer f.Close()
	p, err := profile.Parse(f)
	require.NoError(t, err)
	assert.Equal(t, "inuse_space", p.DefaultSampleType)

	if DefaultTracer(defaultDevice(t)) == nil {
		finish = RecordTo("", filepath.Join(dir, "trace.json"))
		assert.Equal(t, "1048576", os.Getenv(EnvTrace), "RecordTo turns the trace on for resources built after it")
		assert.ErrorContains(t, finish(), EnvTrace)
	}
}
