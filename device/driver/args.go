package driver

import (
	"encoding/binary"
	"math"

	"github.com/gpuarr/gpuarr/device/dtype"
)

// ArgKind is the type of one marshalled kernel argument.
type ArgKind uint8

// Kernel argument kinds. Their sizes are their PTX .param sizes.
const (
	ArgPtr ArgKind = iota + 1
	ArgI32
	ArgU32
	ArgI64
	ArgU64
	ArgF32
	ArgF64
)

// Size is the argument's size in bytes.
func (k ArgKind) Size() int {
	switch k {
	case ArgI32, ArgU32, ArgF32:
		return 4
	case ArgPtr, ArgI64, ArgU64, ArgF64:
		return 8
	}
	return 0
}

func (k ArgKind) String() string {
	return [...]string{"invalid", "ptr", "int32", "uint32", "int64", "uint64", "float32", "float64"}[min(int(k), 7)]
}

// Carries reports whether an argument of kind k passes a kernel parameter
// of type t (a PTX .param type): the pointer and the 64-bit integers carry
// Int64 and Uint64, the 32-bit integers Int32 and Uint32, and each float
// kind its own type. Signedness does not matter, size and class do.
func (k ArgKind) Carries(t dtype.DType) bool {
	switch t {
	case dtype.Uint64, dtype.Int64:
		return k == ArgPtr || k == ArgU64 || k == ArgI64
	case dtype.Uint32, dtype.Int32:
		return k == ArgU32 || k == ArgI32
	case dtype.Float32:
		return k == ArgF32
	case dtype.Float64:
		return k == ArgF64
	}
	return false
}

// MaxArgs and MaxArgBytes bound a launch's arguments (CUDA allows 4 KiB of
// parameters; kernels here take far fewer).
const (
	MaxArgs     = 64
	MaxArgBytes = 1024
)

// Args holds kernel arguments marshalled into one flat buffer, each value
// aligned to its own size, with its offset and kind. Backends read it during
// Launch and must copy what they keep: the caller reuses it afterwards.
type Args struct {
	Buf  [MaxArgBytes]byte
	Off  [MaxArgs]uint16
	Kind [MaxArgs]ArgKind
	N    int // number of arguments
	Size int // bytes of Buf in use
}

// Reset empties the argument list.
func (a *Args) Reset() { a.N, a.Size = 0, 0 }

// Append adds one raw value of the given kind; it reports false when the
// list is full.
func (a *Args) Append(k ArgKind, bits uint64) bool {
	sz := k.Size()
	off := (a.Size + sz - 1) &^ (sz - 1)
	if a.N >= MaxArgs || off+sz > MaxArgBytes {
		return false
	}
	if sz == 4 {
		binary.LittleEndian.PutUint32(a.Buf[off:], uint32(bits))
	} else {
		binary.LittleEndian.PutUint64(a.Buf[off:], bits)
	}
	a.Off[a.N], a.Kind[a.N] = uint16(off), k
	a.N++
	a.Size = off + sz
	return true
}

func (a *Args) raw(i int) uint64 {
	off := a.Off[i]
	if a.Kind[i].Size() == 4 {
		return uint64(binary.LittleEndian.Uint32(a.Buf[off:]))
	}
	return binary.LittleEndian.Uint64(a.Buf[off:])
}

// Ptr, I32, U32, I64, U64, F32 and F64 read argument i back (host kernels use
// them). They do not check the kind; kernels know their signatures.
func (a *Args) Ptr(i int) Ptr     { return Ptr(a.raw(i)) }
func (a *Args) I32(i int) int32   { return int32(uint32(a.raw(i))) }
func (a *Args) U32(i int) uint32  { return uint32(a.raw(i)) }
func (a *Args) I64(i int) int64   { return int64(a.raw(i)) }
func (a *Args) U64(i int) uint64  { return a.raw(i) }
func (a *Args) F32(i int) float32 { return math.Float32frombits(uint32(a.raw(i))) }
func (a *Args) F64(i int) float64 { return math.Float64frombits(a.raw(i)) }

// SetU64 overwrites argument i, of a 64-bit kind, with bits (a graph's
// kernel node updated with a new element count, say). It reports false
// when i is not a 64-bit argument.
func (a *Args) SetU64(i int, bits uint64) bool {
	if i < 0 || i >= a.N || a.Kind[i].Size() != 8 {
		return false
	}
	binary.LittleEndian.PutUint64(a.Buf[a.Off[i]:], bits)
	return true
}
