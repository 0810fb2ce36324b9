package device

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSpec(t *testing.T) {
	cases := []struct {
		in   string
		want Spec
		ok   bool
	}{
		{"host", Spec{"host", 0}, true},
		{"cuda", Spec{"cuda", 0}, true},
		{"cuda:3", Spec{"cuda", 3}, true},
		{" host:1 ", Spec{"host", 1}, true},
		{"gpu", Spec{}, false},
		{"cuda:", Spec{}, false},
		{"cuda:-2", Spec{}, false},
		{"CUDA", Spec{}, false},
	}
	for _, c := range cases {
		got, err := ParseSpec(c.in)
		if !c.ok {
			require.Error(t, err, c.in)
			assert.ErrorIs(t, err, ErrBadConfig)
			assert.Contains(t, err.Error(), EnvDevice+"=")
			assert.Contains(t, err.Error(), c.in)
			continue
		}
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got)
	}
}

func TestSelectDefaultHonoursEnvironment(t *testing.T) {
	d, err := selectDefault("host")
	require.NoError(t, err)
	assert.Equal(t, "host", d.Backend())
	_, err = selectDefault("tpu:0")
	assert.ErrorIs(t, err, ErrBadConfig)
	assert.Contains(t, err.Error(), `GPUARR_DEVICE="tpu:0"`)
	// Without the variable the choice falls back to the host device when no
	// CUDA device is usable, and never fails.
	d, err = selectDefault("")
	require.NoError(t, err)
	assert.Contains(t, []string{"cuda", "host"}, d.Backend())
}
