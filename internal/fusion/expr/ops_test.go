package expr

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every op has a row: a name of its own, an arity its class agrees with.
func TestOpTable(t *testing.T) {
	names := map[string]Op{}
	for op := Op(0); op < numOps; op++ {
		info := op.Info()
		assert.NotEmpty(t, info.Name, "op %d has no row", op)
		if prev, dup := names[info.Name]; dup {
			t.Errorf("ops %d and %d are both named %q", prev, op, info.Name)
		}
		names[info.Name] = op
		assert.Equal(t, info.Class == Leaf, info.Arity == 0, "%s: only leaves read no operand", info.Name)
		assert.LessOrEqual(t, info.Arity, 3, info.Name)
		switch info.Class {
		case Compare:
			assert.Equal(t, 2, info.Arity, info.Name)
		case Convert:
			assert.Equal(t, 1, info.Arity, info.Name)
		case Select:
			assert.Equal(t, 3, info.Arity, info.Name)
		case Test:
			assert.Equal(t, 1, info.Arity, info.Name)
		}
		if info.Math {
			assert.Equal(t, Float, info.Class, "%s: a math library function takes floats", info.Name)
		}
		assert.Equal(t, info.Name, op.String())
		assert.Equal(t, info.Arity, op.Arity())
		assert.Equal(t, info.Class == Compare, op.IsCompare())
	}
	assert.Equal(t, "op?", numOps.String())
	assert.Zero(t, numOps.Arity())
}
