package lifetime

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// Every array allocates a handle, and every buffer not reused a buffer:
// their size classes are part of what Empty costs, so a new field must
// not push them into the next class unnoticed.
func TestObjectSizes(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(Handle{}), uintptr(96), "the handle's size class")
	assert.LessOrEqual(t, unsafe.Sizeof(Buffer{}), uintptr(128), "the buffer's size class")
}
