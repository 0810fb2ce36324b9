package hosteval

import (
	"math"
	"unsafe"

	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// moments is the accumulator of Var, Std and NanMean over values of type
// T (expr.ReduceOp's doc): the sum s of the values' deviations from the
// group's shift (its value at position 0; 0 for NanMean, which skips
// NaN), the count n and the sum of squared deviations m2, in float64. A
// segment of values is folded into such sums and joins the accumulator by
// Chan's rule, as partials of a Final stage over them do.
type moments[T float32 | float64] struct {
	r        *redSpec
	shift    float64
	s, n, m2 float64
	bits     uint64 // the value write converts (addressable without allocating)
}

// setShift sets the group's shift (Var and Std over values).
func (a *moments[T]) setShift(k float64) { a.shift = k }

func (a *moments[T]) reset() { a.s, a.n, a.m2 = 0, 0, 0 }

func (a *moments[T]) clone() accumulator {
	b := *a
	return &b
}

// join folds (s, n, m2) in by Chan's rule.
func (a *moments[T]) join(s, n, m2 float64) {
	if a.r.op != expr.NanMean {
		m2 += a.m2
		if a.n != 0 && n != 0 {
			d := s/n - a.s/a.n
			m2 += d * d * (a.n * n / (a.n + n))
		}
		a.m2 = m2
	}
	a.s += s
	a.n += n
}

func (a *moments[T]) fold(vals unsafe.Pointer, pos, third []int64, _ int64, n int) {
	vs := col[T](vals, n)
	if pos != nil { // partials: sums (T is float64), counts and M2s
		for j, v := range vs {
			a.join(float64(v), math.Float64frombits(uint64(pos[j])), math.Float64frombits(uint64(third[j])))
		}
		return
	}
	if a.r.op == expr.NanMean {
		s, c := 0.0, 0.0
		for _, v := range vs {
			if v == v {
				s += float64(v)
				c++
			}
		}
		a.join(s, c, 0)
		return
	}
	if n == 0 {
		return
	}
	s1, s2 := 0.0, 0.0
	for _, v := range vs {
		d := float64(v) - a.shift
		s1 += d
		s2 = math.FMA(d, d, s2)
	}
	c := float64(n)
	a.join(s1, c, s2-s1*s1/c)
}

func (a *moments[T]) merge(other accumulator) {
	b := other.(*moments[T])
	a.join(b.s, b.n, b.m2)
}

func (a *moments[T]) write(ls *launch, u uint64) {
	if a.r.stage == expr.Partial {
		store(ls.out, u, a.s)
		store(ls.out2, u, a.n)
		store(ls.out3, u, a.m2)
		return
	}
	var m float64
	switch a.r.op {
	case expr.NanMean:
		m = a.s / a.n
	case expr.Var:
		m = a.m2 / float64(ls.count)
	default: // Std
		m = math.Sqrt(a.m2 / float64(ls.count))
	}
	a.bits = math.Float64bits(m)
	a.r.storeFinal(ls, u, &a.bits)
}
