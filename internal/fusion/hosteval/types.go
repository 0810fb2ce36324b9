package hosteval

import (
	"unsafe"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Type sets of the element types arrays hold (Bool lives only in
// programs, as Go's bool).
type (
	signed   interface{ int8 | int16 | int32 | int64 }
	unsigned interface {
		uint8 | uint16 | uint32 | uint64
	}
	integer interface{ signed | unsigned }
	float   interface{ float32 | float64 }
	number  interface{ integer | float }
)

// col views n elements of type T at p: a scratch column or device memory.
func col[T any](p unsafe.Pointer, n int) []T { return unsafe.Slice((*T)(p), n) }

// bitsOf stores v in the low bytes of a uint64 (little-endian machines
// only, as the host backend's memory is), so that a value of any element
// type travels in one word.
func bitsOf[T any](v T) uint64 {
	var u uint64
	*(*T)(unsafe.Pointer(&u)) = v
	return u
}

// fromBits is bitsOf's inverse.
func fromBits[T any](u uint64) T { return *(*T)(unsafe.Pointer(&u)) }

// validType reports whether programs compute with values of type t.
func validType(t dtype.DType) bool { return expr.Computes(t) }
