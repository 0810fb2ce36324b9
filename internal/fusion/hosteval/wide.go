package hosteval

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// wideAcc is the accumulator of a Mean of integers of type T (expr.Wide):
// the exact two's-complement 128-bit sum hi:lo of the values, sign- or
// zero-extended by T, or of the partials (low words as values, high
// words as positions) in a Final stage over them.
type wideAcc[T integer] struct {
	r      *redSpec
	signed bool
	lo, hi uint64
	bits   uint64 // the value write converts (addressable without allocating)
}

func newWideAccumulator(r *redSpec) accumulator {
	switch r.t {
	case dtype.Int8:
		return newWide[int8](r)
	case dtype.Int16:
		return newWide[int16](r)
	case dtype.Int32:
		return newWide[int32](r)
	case dtype.Int64:
		return newWide[int64](r)
	case dtype.Uint8:
		return newWide[uint8](r)
	case dtype.Uint16:
		return newWide[uint16](r)
	case dtype.Uint32:
		return newWide[uint32](r)
	}
	return newWide[uint64](r)
}

func newWide[T integer](r *redSpec) *wideAcc[T] {
	return &wideAcc[T]{r: r, signed: ^T(0) < 0}
}

func (a *wideAcc[T]) reset() { a.lo, a.hi = 0, 0 }

func (a *wideAcc[T]) clone() accumulator {
	b := *a
	return &b
}

// add adds the 128-bit value hi:lo.
func (a *wideAcc[T]) add(lo, hi uint64) {
	var c uint64
	a.lo, c = bits.Add64(a.lo, lo, 0)
	a.hi, _ = bits.Add64(a.hi, hi, c)
}

func (a *wideAcc[T]) fold(vals unsafe.Pointer, pos, _ []int64, _ int64, n int) {
	vs := col[T](vals, n)
	switch {
	case pos != nil: // partials: low words (T is uint64) and high words
		for j, v := range vs {
			a.add(uint64(v), uint64(pos[j]))
		}
	case unsafe.Sizeof(vs[0]) <= 4:
		// A chunk of 32-bit values sums exactly in 64 bits.
		s := int64(0)
		for _, v := range vs {
			s += int64(v) // sign- or zero-extends by T
		}
		a.add(uint64(s), uint64(s>>63))
	case a.signed:
		for _, v := range vs {
			x := int64(v)
			a.add(uint64(x), uint64(x>>63))
		}
	default:
		for _, v := range vs {
			a.add(uint64(v), 0)
		}
	}
}

func (a *wideAcc[T]) merge(other accumulator) {
	b := other.(*wideAcc[T])
	a.add(b.lo, b.hi)
}

func (a *wideAcc[T]) write(ls *launch, u uint64) {
	if a.r.stage == expr.Partial {
		store(ls.out, u, a.lo)
		store(ls.out2, u, int64(a.hi))
		return
	}
	q, r, neg := wideQuotient(a.lo, a.hi, ls.count)
	if a.r.result.IsFloat() {
		m := float64(q) + float64(r)/float64(ls.count)
		if neg {
			m = -m
		}
		a.bits = math.Float64bits(m)
	} else {
		if neg {
			q = -q
		}
		a.bits = q
	}
	a.r.storeFinal(ls, u, &a.bits)
}

// wideQuotient divides the 128-bit two's-complement sum hi:lo by c
// (expr.Program.FinalType): |S| = q·c + r with 0 ≤ r < c, q modulo 2⁶⁴,
// neg the sign of S. c = 0 gives q = r = 0.
func wideQuotient(lo, hi, c uint64) (q, r uint64, neg bool) {
	if neg = int64(hi) < 0; neg {
		var b uint64
		lo, b = bits.Sub64(0, lo, 0)
		hi, _ = bits.Sub64(0, hi, b)
	}
	if c == 0 {
		return 0, 0, neg
	}
	q, r = bits.Div64(hi%c, lo, c)
	return q, r, neg
}
