package gpuarr

import (
	"reflect"
	"sync"
)

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

// elemType is an element type's name, for messages ("float32"), and its
// size. Handles point at one shared value per type rather than carry a
// string and a size: every array allocates a handle, and its size class is
// part of what Empty costs.
type elemType struct {
	name string
	size uintptr
}

// The predeclared types' elemTypes, found without reflection or locks.
var predeclared = [...]elemType{
	{"int8", 1}, {"int16", 2}, {"int32", 4}, {"int64", 8},
	{"uint8", 1}, {"uint16", 2}, {"uint32", 4}, {"uint64", 8},
	{"float32", 4}, {"float64", 8},
}

// elemTypeOf is T's elemType.
func elemTypeOf[T Numeric]() *elemType {
	var zero T
	// A runtime type switch under shape stenciling: the common element
	// types first (every constructor asks).
	switch any(zero).(type) {
	case float32:
		return &predeclared[8]
	case float64:
		return &predeclared[9]
	case int32:
		return &predeclared[2]
	case int64:
		return &predeclared[3]
	case int8:
		return &predeclared[0]
	case int16:
		return &predeclared[1]
	case uint8:
		return &predeclared[4]
	case uint16:
		return &predeclared[5]
	case uint32:
		return &predeclared[6]
	case uint64:
		return &predeclared[7]
	}
	return definedElemType(reflect.TypeFor[T]())
}

// definedTypes holds the elemTypes of defined element types (type
// Celsius float32), made on first use.
var definedTypes sync.Map // reflect.Type → *elemType

func definedElemType(t reflect.Type) *elemType {
	if v, ok := definedTypes.Load(t); ok {
		return v.(*elemType)
	}
	v, _ := definedTypes.LoadOrStore(t, &elemType{t.String(), t.Size()})
	return v.(*elemType)
}

// elemTypeNamed is the elemType of a predeclared type's name and size (an
// expression's dtype), or a new one.
func elemTypeNamed(name string, size uintptr) *elemType {
	for i := range predeclared {
		if predeclared[i].name == name {
			return &predeclared[i]
		}
	}
	return &elemType{name, size}
}
