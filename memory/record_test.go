package memory

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RecordTo with a profile file samples at FineProfileRate, unless
// GPUARR_MEMPROFILE_RATE chose a rate; without one it leaves the rate.
func TestRecordToSamplesFinely(t *testing.T) {
	prev := SetProfileRate(DefaultProfileRate)
	defer SetProfileRate(prev)
	dir := t.TempDir()

	t.Setenv(EnvProfileRate, "")
	finish := RecordTo("", "")
	assert.Equal(t, DefaultProfileRate, SetProfileRate(DefaultProfileRate), "no profile asked for: the rate stays")
	require.NoError(t, finish())

	finish = RecordTo(filepath.Join(dir, "a.pb.gz"), "")
	assert.Equal(t, FineProfileRate, SetProfileRate(DefaultProfileRate), "a profile file: the fine rate")
	require.NoError(t, finish())

	t.Setenv(EnvProfileRate, "1MiB")
	finish = RecordTo(filepath.Join(dir, "b.pb.gz"), "")
	assert.Equal(t, DefaultProfileRate, SetProfileRate(DefaultProfileRate), "the environment's choice is kept")
	require.NoError(t, finish())
}
