package dtype_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/dtype/half"
)

type celsius float32

func TestNamesSizesAndClasses(t *testing.T) {
	for _, c := range []struct {
		t                              dtype.DType
		name                           string
		size                           int
		signed, unsigned, float, cmplx bool
	}{
		{dtype.Invalid, "invalid", 0, false, false, false, false},
		{dtype.Bool, "bool", 1, false, false, false, false},
		{dtype.Int8, "int8", 1, true, false, false, false},
		{dtype.Int16, "int16", 2, true, false, false, false},
		{dtype.Int32, "int32", 4, true, false, false, false},
		{dtype.Int64, "int64", 8, true, false, false, false},
		{dtype.Uint8, "uint8", 1, false, true, false, false},
		{dtype.Uint16, "uint16", 2, false, true, false, false},
		{dtype.Uint32, "uint32", 4, false, true, false, false},
		{dtype.Uint64, "uint64", 8, false, true, false, false},
		{dtype.Float16, "float16", 2, false, false, true, false},
		{dtype.BFloat16, "bfloat16", 2, false, false, true, false},
		{dtype.Float32, "float32", 4, false, false, true, false},
		{dtype.Float64, "float64", 8, false, false, true, false},
		{dtype.Complex64, "complex64", 8, false, false, false, true},
		{dtype.Complex128, "complex128", 16, false, false, false, true},
	} {
		assert.Equal(t, c.name, c.t.String())
		assert.Equal(t, c.size, c.t.Size(), c.name)
		assert.Equal(t, c.signed, c.t.IsSigned(), c.name)
		assert.Equal(t, c.unsigned, c.t.IsUnsigned(), c.name)
		assert.Equal(t, c.signed || c.unsigned, c.t.IsInt(), c.name)
		assert.Equal(t, c.float, c.t.IsFloat(), c.name)
		assert.Equal(t, c.cmplx, c.t.IsComplex(), c.name)
		assert.Equal(t, c.t != dtype.Invalid, c.t.Valid(), c.name)
		assert.Equal(t, c.t, c.t.Elem().DType)
		assert.Same(t, c.t.Elem(), c.t.Elem(), "one Elem per DType")
	}
	assert.Equal(t, "DType(200)", dtype.DType(200).String())
	assert.Zero(t, dtype.DType(200).Size())
	assert.False(t, dtype.DType(200).Valid())
}

func TestOfAndElemOf(t *testing.T) {
	assert.Equal(t, dtype.Float32, dtype.Of[float32]())
	assert.Equal(t, dtype.Uint16, dtype.Of[uint16]())
	assert.Equal(t, dtype.Int64, dtype.Of[int64]())
	assert.Equal(t, dtype.Float32, dtype.Of[celsius](), "a defined type has its underlying type's DType")

	assert.Same(t, dtype.Float64.Elem(), dtype.ElemOf[float64](), "a predeclared type's Elem is its DType's")
	e := dtype.ElemOf[celsius]()
	assert.Equal(t, dtype.Elem{DType: dtype.Float32, Name: "dtype_test.celsius"}, *e)
	assert.Same(t, e, dtype.ElemOf[celsius](), "one Elem per defined type")
	assert.Equal(t, 4, e.Size())
}

type flag bool

type phasor complex64

func TestOfTheOtherElements(t *testing.T) {
	for _, c := range []struct {
		got, want dtype.DType
	}{
		{dtype.Of[bool](), dtype.Bool},
		{dtype.Of[flag](), dtype.Bool},
		{dtype.Of[half.Float16](), dtype.Float16},
		{dtype.Of[half.BFloat16](), dtype.BFloat16},
		{dtype.Of[complex64](), dtype.Complex64},
		{dtype.Of[complex128](), dtype.Complex128},
		{dtype.Of[phasor](), dtype.Complex64},
	} {
		assert.Equal(t, c.want, c.got)
	}
	assert.Same(t, dtype.Float16.Elem(), dtype.ElemOf[half.Float16]())
	assert.Same(t, dtype.Bool.Elem(), dtype.ElemOf[bool]())
	assert.Equal(t, dtype.Elem{DType: dtype.Complex64, Name: "dtype_test.phasor"}, *dtype.ElemOf[phasor]())
	assert.Equal(t, dtype.Elem{DType: dtype.Bool, Name: "dtype_test.flag"}, *dtype.ElemOf[flag]())
	// Each Go type's size is its DType's: arrays of it are stored as is.
	assert.Equal(t, int(unsafe.Sizeof(half.Float16{})), dtype.Float16.Size())
	assert.Equal(t, int(unsafe.Sizeof(half.BFloat16{})), dtype.BFloat16.Size())
	assert.Equal(t, int(unsafe.Sizeof(false)), dtype.Bool.Size())
	assert.Equal(t, int(unsafe.Sizeof(complex128(0))), dtype.Complex128.Size())
}
