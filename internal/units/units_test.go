package units

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want uint64
	}{
		{"0", 0},
		{"1048576", 1048576},
		{"1B", 1},
		{"1KB", 1000},
		{"1KiB", 1024},
		{"512MB", 512e6},
		{"512MiB", 512 << 20},
		{"2GB", 2e9},
		{"2GiB", 2 << 30},
		{"1.5GiB", 3 << 29},
		{"0.5KiB", 512},
		{" 4 GiB ", 4 << 30},
		{"4gib", 4 << 30},
		{"1TiB", 1 << 40},
		{"3TB", 3e12},
		{"1.0000000000000000000001KiB", 1024},
		{"16777215.999TiB", 16777215<<40 + 999*(1<<40)/1000},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseSize(c.in)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
	for _, bad := range []string{"", " ", "GiB", "-1", "1.2.3", "1.", ".5GiB", "1K", "1G", "1 GB x", "1e9", "0x10",
		"18446744073709551616", "16777216TiB", "2 gigabytes"} {
		t.Run("bad/"+bad, func(t *testing.T) {
			_, err := ParseSize(bad)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "invalid size")
		})
	}
}

func TestFormatBytes(t *testing.T) {
	assert.Equal(t, "512 B", FormatBytes(512))
	assert.Equal(t, "1.5 KiB", FormatBytes(1536))
	assert.Equal(t, "12.0 GiB", FormatBytes(12<<30))
}
