package ptxsim

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Arena is global memory for tests: allocations at fake device addresses,
// each 256-byte aligned with a guard gap after it, so an access outside
// every allocation is a fault as it would be on a GPU.
type Arena struct {
	allocs []alloc
	next   uint64
}

type alloc struct {
	lo uint64
	b  []byte
}

// arenaBase is the first address an Arena hands out.
const arenaBase = 0x7f0000000000

// Alloc returns the address of n new zeroed bytes.
func (a *Arena) Alloc(n int) uint64 {
	if a.next == 0 {
		a.next = arenaBase
	}
	p := a.next
	a.allocs = append(a.allocs, alloc{p, make([]byte, n)})
	a.next = (p + uint64(n) + 256 + 255) &^ 255
	return p
}

// Bytes implements Memory.
func (a *Arena) Bytes(p, n uint64) ([]byte, error) {
	for _, x := range a.allocs {
		if p >= x.lo && p+n <= x.lo+uint64(len(x.b)) && p+n >= p {
			return x.b[p-x.lo : p-x.lo+n], nil
		}
	}
	return nil, fmt.Errorf("%#x+%d is outside every allocation", p, n)
}

// Slice returns the whole allocation at p.
func (a *Arena) Slice(p uint64) []byte {
	for _, x := range a.allocs {
		if x.lo == p {
			return x.b
		}
	}
	panic(fmt.Sprintf("ptxsim.Arena: no allocation at %#x", p))
}

// Put stores little-endian values of any fixed-size number type at p
// (an allocation, from its start).
func Put[T ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64](a *Arena, p uint64, vs []T) {
	b := a.Slice(p)
	for i, v := range vs {
		switch x := any(v).(type) {
		case int8:
			b[i] = byte(x)
		case uint8:
			b[i] = x
		case int16:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
		case uint16:
			binary.LittleEndian.PutUint16(b[2*i:], x)
		case int32:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		case uint32:
			binary.LittleEndian.PutUint32(b[4*i:], x)
		case float32:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		case int64:
			binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
		case uint64:
			binary.LittleEndian.PutUint64(b[8*i:], x)
		case float64:
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		default:
			panic(fmt.Sprintf("ptxsim.Put: %T", v))
		}
	}
}

// Get reads n values from the allocation at p.
func Get[T ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64](a *Arena, p uint64, n int) []T {
	b := a.Slice(p)
	out := make([]T, n)
	for i := range out {
		var v any
		switch any(out[i]).(type) {
		case int8:
			v = int8(b[i])
		case uint8:
			v = b[i]
		case int16:
			v = int16(binary.LittleEndian.Uint16(b[2*i:]))
		case uint16:
			v = binary.LittleEndian.Uint16(b[2*i:])
		case int32:
			v = int32(binary.LittleEndian.Uint32(b[4*i:]))
		case uint32:
			v = binary.LittleEndian.Uint32(b[4*i:])
		case float32:
			v = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		case int64:
			v = int64(binary.LittleEndian.Uint64(b[8*i:]))
		case uint64:
			v = binary.LittleEndian.Uint64(b[8*i:])
		case float64:
			v = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		default:
			panic(fmt.Sprintf("ptxsim.Get: %T", out[i]))
		}
		out[i] = v.(T)
	}
	return out
}
