package gpuarr

import "reflect"

// Numeric is every fixed-size integer and floating-point type, and types
// defined on them: the element types of an Array.
type Numeric interface {
	~int8 | ~int16 | ~int32 | ~int64 |
		~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64
}

// Float is the floating-point element types: the ones math functions
// (Exp, Log, ...) and Matmul accept.
type Float interface{ ~float32 | ~float64 }

// elemName is T's name for messages ("float32"), without formatting on the
// hot path for the predeclared types.
func elemName[T Numeric]() string {
	var zero T
	switch any(zero).(type) {
	case int8:
		return "int8"
	case int16:
		return "int16"
	case int32:
		return "int32"
	case int64:
		return "int64"
	case uint8:
		return "uint8"
	case uint16:
		return "uint16"
	case uint32:
		return "uint32"
	case uint64:
		return "uint64"
	case float32:
		return "float32"
	case float64:
		return "float64"
	}
	return reflect.TypeFor[T]().String()
}
