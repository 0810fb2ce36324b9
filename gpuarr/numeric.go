package gpuarr

import "github.com/gpuarr/gpuarr/device/dtype"

// Numeric is every fixed-size integer and floating-point type, and types
// defined on them: the element types of an Array (dtype.Number, the one
// vocabulary's Go types).
type Numeric = dtype.Number

// Float is the floating-point element types: the ones math functions
// (Exp, Log, ...) and Matmul accept.
type Float interface{ ~float32 | ~float64 }

// Integer is the integer element types: what index arrays hold.
type Integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}
