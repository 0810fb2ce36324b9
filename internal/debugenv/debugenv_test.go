package debugenv

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	m := parse(" GC, events ,,")
	assert.True(t, m["gc"])
	assert.True(t, m[NoEventReuse])
	assert.Len(t, m, 2)
	assert.Empty(t, parse(""))
}
