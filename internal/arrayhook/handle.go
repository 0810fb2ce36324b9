package arrayhook

import (
	"unsafe"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/lifetime"
)

// An Array is its handle and nothing else: gpuarr.Array[T] is
// struct{ c lifetime.Handle }, for every T. These two checks fail to
// compile if the sizes part, so a field added to Array stops the build
// here rather than corrupt memory.
var (
	_ [unsafe.Sizeof(gpuarr.Array[float32]{}) - unsafe.Sizeof(lifetime.Handle{})]struct{}
	_ [unsafe.Sizeof(lifetime.Handle{}) - unsafe.Sizeof(gpuarr.Array[float32]{})]struct{}
)

// handle is a's handle (nil for a nil *Array): the Array's first and only
// field, so the pointer conversion is exact and the handle keeps the
// Array alive.
func handle[T gpuarr.Element](a *gpuarr.Array[T]) *lifetime.Handle {
	return (*lifetime.Handle)(unsafe.Pointer(a))
}
