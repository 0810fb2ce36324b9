package hosteval

import (
	"math"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// redSpec is a Program's reduction.
type redSpec struct {
	op        expr.ReduceOp
	stage     expr.Stage
	t         dtype.DType // value type
	rng       intRange    // integer value types: the Min and Max identities
	positions bool        // the second words (Arg positions, Wide high words, moments' counts) come from the ArgIndex input
	wide      bool        // a Mean of integers: 128-bit sums
	shifts    bool        // Var or Std over values: sums of deviations from the group's first value
	// Final stage: the result type, its size, and the conversion to it
	// from the accumulator (Sum, Prod), the mean (float Mean: Float64),
	// or the quotient (Wide: Int64 for an integer result, else Float64).
	result dtype.DType
	size   uintptr
	final  unaryK
}

// storeFinal converts the value whose bits (of the type final converts
// from) are at v and stores it as output element u.
func (r *redSpec) storeFinal(ls *launch, u uint64, v *uint64) {
	r.final(unsafe.Add(ls.out, uintptr(u)*r.size), unsafe.Pointer(v), 1)
}

// An accumulator reduces the values of one unit (a group, or a part of
// one in the Partial stage). Implementations are typed by the value type;
// the reduction loop drives them through this interface once per segment
// of a chunk, not per element.
type accumulator interface {
	reset() // to the identity
	// fold adds n values at vals; their positions are pos (ArgIndex) or,
	// when pos is nil, k0, k0+1, ... (pos holds the second words' bits
	// of other reductions over partials, and third the moments' third
	// words' bits).
	fold(vals unsafe.Pointer, pos, third []int64, k0 int64, n int)
	merge(b accumulator) // b's values follow the receiver's
	clone() accumulator
	write(ls *launch, u uint64) // store the result of unit u
}

func newAccumulator(r *redSpec) accumulator {
	if r.wide {
		return newWideAccumulator(r)
	}
	if r.op.IsMoments() {
		if r.t == dtype.Float32 {
			return &moments[float32]{r: r}
		}
		return &moments[float64]{r: r}
	}
	switch r.t {
	case dtype.Int8:
		return newAccum[int8](r)
	case dtype.Int16:
		return newAccum[int16](r)
	case dtype.Int32:
		return newAccum[int32](r)
	case dtype.Int64:
		return newAccum[int64](r)
	case dtype.Uint8:
		return newAccum[uint8](r)
	case dtype.Uint16:
		return newAccum[uint16](r)
	case dtype.Uint32:
		return newAccum[uint32](r)
	case dtype.Uint64:
		return newAccum[uint64](r)
	case dtype.Float32:
		return newAccum[float32](r)
	}
	return newAccum[float64](r)
}

// cascade sums (or multiplies) float64 terms pairwise: level j holds the
// combination of 2ʲ terms, like a binary counter, so each term meets
// O(log n) roundings. Terms are sums of segments of at most one chunk.
type cascade struct {
	lv  [64]float64
	n   uint64
	mul bool
}

func (c *cascade) push(x float64) {
	j := 0
	for ; c.n>>j&1 == 1; j++ {
		if c.mul {
			x = c.lv[j] * x
		} else {
			x = c.lv[j] + x
		}
	}
	c.lv[j] = x
	c.n++
}

func (c *cascade) total() float64 {
	t := 0.0
	if c.mul {
		t = 1
	}
	for j := 0; j < 64; j++ {
		if c.n>>j&1 == 1 {
			if c.mul {
				t *= c.lv[j]
			} else {
				t += c.lv[j]
			}
		}
	}
	return t
}

// accum is the accumulator for values of type T. Float sums and products
// use c (float64); integer ones u, whose wrapping arithmetic gives the
// same bits for int64 and uint64 accumulators; Min, Max and the Arg
// reductions v (and pos).
type accum[T number] struct {
	r     *redSpec
	float bool
	isMin bool // Min, NanMin or ArgMin
	ident T    // Min/Max/NanMin/NanMax/Arg identity value
	c     cascade
	u     uint64
	v     T
	pos   int64
	bits  uint64 // the value write converts (addressable without allocating)
}

func newAccum[T number](r *redSpec) *accum[T] {
	a := &accum[T]{r: r, float: r.t.IsFloat(), isMin: r.op == expr.Min || r.op == expr.ArgMin || r.op == expr.NanMin}
	a.c.mul = r.op == expr.Prod
	switch {
	case a.float && (r.op == expr.NanMin || r.op == expr.NanMax):
		a.ident = T(math.NaN())
	case a.float && a.isMin:
		a.ident = T(math.Inf(1))
	case a.float:
		a.ident = T(math.Inf(-1))
	case a.isMin:
		a.ident = fromBits[T](r.rng.max)
	default:
		a.ident = fromBits[T](uint64(r.rng.min))
	}
	a.reset()
	return a
}

func (a *accum[T]) reset() {
	a.c.n = 0
	a.u = 0
	if a.r.op == expr.Prod {
		a.u = 1
	}
	a.v, a.pos = a.ident, -1
}

func (a *accum[T]) clone() accumulator {
	b := *a
	return &b
}

// posBefore reports whether position p comes before q: -1 (an empty
// part's identity) comes after every real position.
func posBefore(p, q int64) bool { return p >= 0 && (q < 0 || p < q) }

// better reports whether (v, p) replaces the Arg accumulator's value: a
// NaN beats everything but an earlier NaN, a strictly smaller (ArgMin) or
// larger (ArgMax) value wins, and ties go to the earlier position.
func (a *accum[T]) better(v T, p int64) bool {
	switch {
	case v != v:
		return a.v == a.v || posBefore(p, a.pos)
	case a.v != a.v:
		return false
	case v == a.v:
		return posBefore(p, a.pos)
	case a.isMin:
		return v < a.v
	}
	return v > a.v
}

// fmin and fmax are IEEE minNum and maxNum: the operand that is not NaN
// (NaN when both are); for integers min and max.
func fmin[T number](a, b T) T {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	}
	return min(a, b)
}

func fmax[T number](a, b T) T {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	}
	return max(a, b)
}

func (a *accum[T]) fold(vals unsafe.Pointer, pos, _ []int64, k0 int64, n int) {
	vs := col[T](vals, n)
	switch a.r.op {
	case expr.Sum, expr.Mean:
		if a.float {
			s := 0.0
			for _, v := range vs {
				s += float64(v)
			}
			a.c.push(s)
			return
		}
		u := a.u
		for _, v := range vs {
			u += uint64(int64(v)) // sign- or zero-extends by T
		}
		a.u = u
	case expr.Prod:
		if a.float {
			p := 1.0
			for _, v := range vs {
				p *= float64(v)
			}
			a.c.push(p)
			return
		}
		u := a.u
		for _, v := range vs {
			u *= uint64(int64(v))
		}
		a.u = u
	case expr.Min:
		m := a.v
		for _, v := range vs {
			m = min(m, v) // NaN-propagating for floats
		}
		a.v = m
	case expr.Max:
		m := a.v
		for _, v := range vs {
			m = max(m, v)
		}
		a.v = m
	case expr.NanMin:
		m := a.v
		for _, v := range vs {
			m = fmin(m, v)
		}
		a.v = m
	case expr.NanMax:
		m := a.v
		for _, v := range vs {
			m = fmax(m, v)
		}
		a.v = m
	default: // ArgMin, ArgMax
		if pos != nil {
			for j, v := range vs {
				if a.better(v, pos[j]) {
					a.v, a.pos = v, pos[j]
				}
			}
			return
		}
		for j, v := range vs {
			if p := k0 + int64(j); a.better(v, p) {
				a.v, a.pos = v, p
			}
		}
	}
}

func (a *accum[T]) merge(other accumulator) {
	b := other.(*accum[T])
	switch a.r.op {
	case expr.Sum, expr.Mean:
		if a.float {
			a.c.push(b.c.total())
		} else {
			a.u += b.u
		}
	case expr.Prod:
		if a.float {
			a.c.push(b.c.total())
		} else {
			a.u *= b.u
		}
	case expr.Min:
		a.v = min(a.v, b.v)
	case expr.Max:
		a.v = max(a.v, b.v)
	case expr.NanMin:
		a.v = fmin(a.v, b.v)
	case expr.NanMax:
		a.v = fmax(a.v, b.v)
	default:
		if a.better(b.v, b.pos) {
			a.v, a.pos = b.v, b.pos
		}
	}
}

func store[T any](base unsafe.Pointer, u uint64, v T) {
	*(*T)(unsafe.Add(base, uintptr(u)*unsafe.Sizeof(v))) = v
}

func (a *accum[T]) write(ls *launch, u uint64) {
	op := a.r.op
	minMax := op == expr.Min || op == expr.Max || op == expr.NanMin || op == expr.NanMax
	if a.r.stage == expr.Partial {
		switch {
		case minMax:
			store(ls.out, u, a.v)
		case op.IsArg():
			store(ls.out, u, a.v)
			store(ls.out2, u, a.pos)
		case a.float: // Sum, Prod, Mean: the float64 accumulator
			store(ls.out, u, a.c.total())
		default: // the int64 or uint64 accumulator
			store(ls.out, u, a.u)
		}
		return
	}
	switch {
	case minMax:
		store(ls.out, u, a.v)
	case op.IsArg():
		store(ls.out, u, a.pos)
	case a.float: // Sum, Prod, Mean (divided by count), converted to the result type
		m := a.c.total()
		if op == expr.Mean {
			m /= float64(ls.count)
		}
		a.bits = math.Float64bits(m)
		a.r.storeFinal(ls, u, &a.bits)
	default: // integer Sum, Prod: the 64-bit accumulator converted (narrowing wraps)
		a.bits = a.u
		a.r.storeFinal(ls, u, &a.bits)
	}
}
