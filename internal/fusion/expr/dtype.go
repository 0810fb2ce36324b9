package expr

import "github.com/gpuarr/gpuarr/device/dtype"

// Computes reports whether programs compute with values of type t: Bool
// (inside programs only: comparisons, Where's condition) and every integer
// and float type arrays hold today. The other DTypes (Float16, BFloat16,
// the complex types) are refused by Validate until the back ends learn
// them.
func Computes(t dtype.DType) bool {
	return t == dtype.Bool || t.IsInt() || t == dtype.Float32 || t == dtype.Float64
}

// Stores reports whether an array (a Memory input, a kernel's output) may
// hold elements of type t: what Computes takes, except Bool.
func Stores(t dtype.DType) bool { return t != dtype.Bool && Computes(t) }

// ParamType is how a scalar of type t travels as a kernel parameter:
// floats as themselves, 8-, 16- and 32-bit integers (and Bool, as 0 or 1)
// as 32-bit integers of the same signedness, 64-bit integers as
// themselves. The kernel converts to t (truncating).
func ParamType(t dtype.DType) dtype.DType {
	switch t {
	case dtype.Bool, dtype.Uint8, dtype.Uint16, dtype.Uint32:
		return dtype.Uint32
	case dtype.Int8, dtype.Int16, dtype.Int32:
		return dtype.Int32
	}
	return t
}
