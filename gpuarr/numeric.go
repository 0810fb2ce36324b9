package gpuarr

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
