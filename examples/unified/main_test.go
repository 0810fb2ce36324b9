package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnifiedHistogram(t *testing.T) {
	for _, n := range []int{1, 1000, 1 << 16} {
		res, err := run(n, 8)
		require.NoError(t, err, "n=%d", n)
		total := 0
		for _, c := range res.Hist {
			total += c
		}
		assert.Equal(t, n, total)
	}
	_, err := run(0, 8)
	assert.Error(t, err)
}
