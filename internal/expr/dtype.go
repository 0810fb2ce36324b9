package expr

// DType is an element type. Bool exists only inside programs (the result
// of comparisons, the condition of Where); arrays never hold it.
type DType uint8

const (
	Bool DType = iota
	Int8
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
	Float32
	Float64
)

var dtypeNames = [...]string{"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"}

func (t DType) String() string {
	if int(t) < len(dtypeNames) {
		return dtypeNames[t]
	}
	return "dtype?"
}

// Size is the element size in bytes (1 for Bool).
func (t DType) Size() int {
	switch t {
	case Bool, Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	}
	return 8
}

func (t DType) IsFloat() bool    { return t == Float32 || t == Float64 }
func (t DType) IsSigned() bool   { return t >= Int8 && t <= Int64 }
func (t DType) IsUnsigned() bool { return t >= Uint8 && t <= Uint64 }
func (t DType) IsInt() bool      { return t.IsSigned() || t.IsUnsigned() }

// ParamType is how a scalar of type t travels as a kernel parameter:
// floats as themselves, 8-, 16- and 32-bit integers (and Bool, as 0 or 1)
// as 32-bit integers of the same signedness, 64-bit integers as
// themselves. The kernel converts to t (truncating).
func (t DType) ParamType() DType {
	switch t {
	case Bool, Uint8, Uint16, Uint32:
		return Uint32
	case Int8, Int16, Int32:
		return Int32
	}
	return t
}
