package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/layout"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// tf32Option lets float32 products use TF32 tensor cores.
type tf32Option struct{}

func (tf32Option) isOption()      {}
func (tf32Option) String() string { return "gpuarr.TF32()" }

// TF32 lets Matmul of float32 arrays use TF32 tensor cores: several times
// faster on Ampere and later GPUs, with products rounded to about 10 bits
// of mantissa (sums stay float32). float64 products ignore it. Without it
// Matmul computes in full float32 precision.
func TF32() Option { return tf32Option{} }

func wantTF32(opts []Option) bool {
	for _, o := range opts {
		if _, ok := o.(tf32Option); ok {
			return true
		}
	}
	return false
}

// Matmul is the matrix product a·b with NumPy's matmul rules: [m k]
// times [k n] is [m n]; a 1-D a is a row vector and a 1-D b a column
// vector, whose axis the result drops (matrix–vector products, and the
// dot product of two vectors, a 0-d array); N-d operands are stacks of
// matrices over their last two axes, and their leading (batch) axes
// broadcast: [b 1 m k] times [c k n] is [b c m n]. A new array on the
// stream's device (a's without an option).
//
// It runs on cuBLAS on a GPU and on gonum's BLAS on the host device: one
// SGEMM or DGEMM, or for stacks a strided-batched GEMM per run of batch
// axes that share their strides (a broadcast operand steps 0), queued
// without synchronizing; a matrix–vector product is a GEMM with one
// column (cuBLAS picks its GEMV kernels), and the dot of two vectors a
// fused reduction in float64. Operands may be any views: row-major,
// transposed or column-major matrices go to BLAS as they are, with
// transpose flags and leading dimensions; other strides (a negative or
// non-unit step inside a matrix) are compacted into a temporary first.
// Without cuBLAS it fails with an error matching device.ErrNotSupported
// that names the library. Shapes that do not match are ErrShape; a 0-d
// operand is ErrShape (NumPy's matmul refuses scalars too: Mul them).
func Matmul[T Float](a, b *Array[T], opts ...Option) (*Array[T], error) {
	const call = "Matmul"
	if err := matmulOperands(call, a, b); err != nil {
		return nil, err
	}
	mp, err := planMatmul(call, a, b)
	if err != nil {
		return nil, err
	}
	s, err := streamTaking(call, opts, a.c.Device(), optTF32)
	if err != nil {
		return nil, err
	}
	c, err := newArray[T](call, mp.out, s)
	if err != nil {
		return nil, err
	}
	if err := runMatmul(call, c, a, b, mp, s, wantTF32(opts)); err != nil {
		_ = c.Release()
		return nil, err
	}
	return c, nil
}

// MatmulInto computes a·b into c, which must have the shape Matmul's
// result would have and must not share memory with a or b; c may be a
// strided view (written directly when BLAS can, else through a
// temporary). It runs on the default stream of c's device unless an
// option says otherwise; see Matmul.
func MatmulInto[T Float](c, a, b *Array[T], opts ...Option) error {
	const call = "MatmulInto"
	if err := c.check(call + ": result"); err != nil {
		return err
	}
	if err := matmulOperands(call, a, b); err != nil {
		return err
	}
	mp, err := planMatmul(call, a, b)
	if err != nil {
		return err
	}
	if !mp.out.Equal(c.c.Shape()) {
		return arg.Shapef(call, "result %s should be %v for %s times %s", c.c.Describe(), mp.out, a.c.Describe(), b.c.Describe())
	}
	if c.c.SharesBuffer(&a.c) || c.c.SharesBuffer(&b.c) {
		return fmt.Errorf("gpuarr.%s: the result %s shares memory with an operand; write to a separate array: %w", call, c.c.Describe(), ErrArgument)
	}
	s, err := streamTaking(call, opts, c.c.Device(), optTF32)
	if err != nil {
		return err
	}
	return runMatmul(call, c, a, b, mp, s, wantTF32(opts))
}

// matmulOperands refuses nil, released and 0-d operands.
func matmulOperands[T Float](call string, a, b *Array[T]) error {
	for _, x := range []struct {
		name string
		arr  *Array[T]
	}{{"a", a}, {"b", b}} {
		if err := x.arr.check(call + ": " + x.name); err != nil {
			return err
		}
		if len(x.arr.c.Shape()) == 0 {
			return arg.Shapef(call, "%s is %s, a scalar: a matrix product takes vectors and matrices (multiply by a scalar with Mul)",
				x.name, x.arr.c.Describe())
		}
	}
	return nil
}

// mmPlan is the shape of a product: the batch shape, the matrices' m, k
// and n, whether a and b are vectors, and the result's shape.
type mmPlan struct {
	batch        Shape
	m, k, n      int
	avec, bvec   bool
	out          Shape
	batchA, batB Shape
}

// planMatmul checks the shapes of a·b (NumPy's matmul rules).
func planMatmul[T Float](call string, a, b *Array[T]) (mmPlan, error) {
	var mp mmPlan
	ash, bsh := a.c.Shape(), b.c.Shape()
	mp.avec, mp.bvec = len(ash) == 1, len(bsh) == 1
	ak := ash[len(ash)-1]
	mp.m = 1
	if !mp.avec {
		mp.m = ash[len(ash)-2]
		mp.batchA = ash[:len(ash)-2]
	}
	bk := bsh[0]
	mp.n = 1
	if !mp.bvec {
		bk, mp.n = bsh[len(bsh)-2], bsh[len(bsh)-1]
		mp.batB = bsh[:len(bsh)-2]
	}
	if ak != bk {
		return mp, arg.Shapef(call, "a is %s and b is %s: a's %d columns do not match b's %d rows", a.c.Describe(), b.c.Describe(), ak, bk)
	}
	mp.k = ak
	batch, err := layout.Broadcast(mp.batchA, mp.batB)
	if err != nil {
		return mp, arg.Shapef(call, "a is %s and b is %s: their stacks %v and %v do not broadcast", a.c.Describe(), b.c.Describe(), mp.batchA, mp.batB)
	}
	mp.batch = append(Shape{}, batch...)
	mp.out = append(Shape{}, batch...)
	if !mp.avec {
		mp.out = append(mp.out, mp.m)
	}
	if !mp.bvec {
		mp.out = append(mp.out, mp.n)
	}
	return mp, nil
}

// runMatmul computes a·b into c (of mp.out's shape) on s.
func runMatmul[T Float](call string, c, a, b *Array[T], mp mmPlan, s *device.Stream, tf32 bool) error {
	if mp.avec && mp.bvec {
		// The dot of two vectors: a fused reduction (float64 sums).
		n := Mul[T](a, b).n
		if n.Err() != nil {
			return fmt.Errorf("gpuarr.%s: %w", call, n.Err())
		}
		return fusion.Reduce(call, expr.Sum, dtype.Of[T](), &c.c, n, []int{mp.k}, 1, mp.k, mp.k, s)
	}
	if err := refuseInCapture(call, s, whyLibrary); err != nil {
		return err
	}
	// Matrices: a vector becomes a [1 k] row or a [k 1] column (views).
	a3, b3, c3 := a, b, c
	var err error
	if mp.avec {
		if a3, err = a.ExpandDims(0); err != nil {
			return err
		}
		defer a3.Release()
	}
	if mp.bvec {
		if b3, err = b.ExpandDims(-1); err != nil {
			return err
		}
		defer b3.Release()
	}
	if mp.avec || mp.bvec {
		var axes []int
		if mp.avec {
			axes = append(axes, len(mp.batch))
		}
		if mp.bvec {
			axes = append(axes, len(mp.batch)+1)
		}
		if c3, err = c.ExpandDims(axes...); err != nil {
			return err
		}
		defer c3.Release()
	}
	return batchedGemm(call, c3, a3, b3, mp.batch, s, tf32)
}

// matLayout is how a 2-D array lies in memory as BLAS sees it: row-major
// with rows ld elements apart (so column-major, its transpose), or
// column-major with columns ld apart (a transposed view of a row-major
// array).
type matLayout struct {
	rowMajor bool
	ld       int
}

// layoutOf reads the layout of a matrix of r×k elements with strides s0
// (rows) and s1 (columns); ok is false for strides BLAS cannot take.
// Along an axis of extent one the stride does not matter.
func layoutOf(r, k, s0, s1 int) (l matLayout, ok bool) {
	if (s1 == 1 || k <= 1) && (r <= 1 || s0 >= max(1, k)) {
		if r <= 1 {
			s0 = max(1, k)
		}
		return matLayout{true, s0}, true
	}
	if (s0 == 1 || r <= 1) && (k <= 1 || s1 >= max(1, r)) {
		if k <= 1 {
			s1 = max(1, r)
		}
		return matLayout{false, s1}, true
	}
	return matLayout{}, false
}

// stackOf is a stack of matrices as BLAS reads it: the layout of its
// matrices and its batch strides over the product's batch shape (0 along
// a broadcast axis).
type stackOf struct {
	lay     matLayout
	strides []int
	ok      bool
}

// stackLayout reads x ([batch..., r, k]) as a stack over batch; ok is
// false when BLAS cannot take it (a matrix's strides, or a negative batch
// stride).
func stackLayout(x *lifetime.Handle, batch []int) stackOf {
	sh := x.Shape()
	st := x.Strides()
	if st == nil {
		st = layout.RowMajorStrides(sh)
	}
	r := len(sh)
	lay, ok := layoutOf(sh[r-2], sh[r-1], st[r-2], st[r-1])
	bs := layout.BroadcastStrides(sh[:r-2], st[:r-2], batch)
	for d, v := range bs {
		if v < 0 && batch[d] > 1 {
			ok = false
		}
	}
	return stackOf{lay: lay, strides: bs, ok: ok}
}

// batchedGemm computes c = a·b for stacks a [batchA..., m, k], b
// [batchB..., k, n] and c [batch..., m, n] (batchA and batchB broadcast
// to batch): operands BLAS cannot read are compacted, a result it cannot
// write is computed into a temporary and copied; the batch axes that
// step alike merge, the innermost run is one strided-batched GEMM and the
// outer ones loop.
func batchedGemm[T Float](call string, c, a, b *Array[T], batch Shape, s *device.Stream, tf32 bool) error {
	ash, bsh := a.c.Shape(), b.c.Shape()
	m, k, n := ash[len(ash)-2], ash[len(ash)-1], bsh[len(bsh)-1]
	switch {
	case c.c.Len() == 0:
		return nil
	case k == 0:
		return EvalInto(c, Scalar[T](0), On(s)) // sums of no products
	}
	la, lb, lc := stackLayout(&a.c, batch), stackLayout(&b.c, batch), stackLayout(&c.c, batch)
	if !la.ok {
		ca, err := Eval[T](a, On(s))
		if err != nil {
			return fmt.Errorf("gpuarr.%s: compacting a: %w", call, err)
		}
		defer ca.Release()
		a, la = ca, stackLayout(&ca.c, batch)
	}
	if !lb.ok {
		cb, err := Eval[T](b, On(s))
		if err != nil {
			return fmt.Errorf("gpuarr.%s: compacting b: %w", call, err)
		}
		defer cb.Release()
		b, lb = cb, stackLayout(&cb.c, batch)
	}
	cspan := (m-1)*lc.lay.ld + n // elements one C matrix spans
	if !lc.lay.rowMajor {
		cspan = (n-1)*lc.lay.ld + m
	}
	inner := batchRuns(batch, lb.strides, la.strides, lc.strides).inner
	if !lc.ok || overlaps(c.c.Shape(), lc.strides) || inner.n > 1 && inner.c < cspan {
		// BLAS cannot write c (its matrices interleave or repeat): a
		// contiguous result, then a copy.
		tmp, err := newArray[T](call, c.c.Shape(), s)
		if err != nil {
			return err
		}
		defer tmp.Release()
		if err := batchedGemm(call, tmp, a, b, batch, s, tf32); err != nil {
			return err
		}
		return EvalInto(c, tmp, On(s))
	}
	if !la.ok || !lb.ok {
		return fmt.Errorf("gpuarr.%s: %s times %s: no BLAS layout after compacting: %w", call, a.c.Describe(), b.c.Describe(), ErrArgument)
	}

	g := device.Gemm{Type: dtype.Of[T](), Alpha: 1, Beta: 0, TF32: tf32, LDC: lc.lay.ld}
	// BLAS is column-major. A row-major C is the column-major Cᵀ = Bᵀ·Aᵀ
	// over the same memory; a transposed-view C is column-major C = A·B.
	// Each operand is transposed for BLAS unless its memory already is
	// the matrix the product needs.
	first, second := b, a // BLAS's A and B
	lf, ls := lb, la
	if lc.lay.rowMajor {
		g.M, g.N, g.K = n, m, k
		g.LDA, g.TransA = lb.lay.ld, !lb.lay.rowMajor
		g.LDB, g.TransB = la.lay.ld, !la.lay.rowMajor
	} else {
		first, second, lf, ls = a, b, la, lb
		g.M, g.N, g.K = m, n, k
		g.LDA, g.TransA = la.lay.ld, la.lay.rowMajor
		g.LDB, g.TransB = lb.lay.ld, lb.lay.rowMajor
	}
	runs := batchRuns(batch, lf.strides, ls.strides, lc.strides)

	o := lifetime.Claim{Call: call}
	o.Add(&a.c, tracking.Read, s)
	o.Add(&b.c, tracking.Read, s)
	o.Add(&c.c, tracking.Write, s)
	ws, err := blasWorkspace(call, s)
	if err != nil {
		return fmt.Errorf("gpuarr.%s: the library's workspace: %w", call, err)
	}
	if ws != nil {
		defer ws.Release()
		o.Add(&ws.c, tracking.Write, s)
		g.Work, g.WorkBytes = ws.c.Ptr(), uint64(ws.c.Len())
	}
	if err := o.Begin(true); err != nil {
		return err
	}
	size := uint64(sizeOf[T]())
	err = runs.each(func(offA, offB, offC int) error {
		h := g
		h.A = first.c.Ptr().Add(uint64(int64(offA)) * size)
		h.B = second.c.Ptr().Add(uint64(int64(offB)) * size)
		h.C = c.c.Ptr().Add(uint64(int64(offC)) * size)
		h.Batch = runs.inner.n
		h.StrideA, h.StrideB, h.StrideC = int64(runs.inner.a), int64(runs.inner.b), int64(runs.inner.c)
		return s.Gemm(h)
	})
	o.End()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %s times %s: %w", call, a.c.Describe(), b.c.Describe(), err)
	}
	return nil
}

// overlaps reports whether a stack's batch strides map two of its
// matrices to one place (a broadcast axis of extent > 1).
func overlaps(sh []int, batchStrides []int) bool {
	for d, st := range batchStrides {
		if st == 0 && sh[d] > 1 {
			return true
		}
	}
	return false
}

// batchAxis is one axis of the batch loop: its extent and the element
// steps of the three stacks (BLAS's A and B, and C) along it.
type batchAxis struct{ n, a, b, c int }

// runs is a batch split into outer axes (looped over) and the inner one
// (one strided-batched GEMM).
type runs struct {
	outer []batchAxis
	inner batchAxis
}

// batchRuns merges the batch axes that the three stacks step through
// alike (axis d+1 nests in axis d for all three) and drops extent-1 axes.
func batchRuns(batch []int, sa, sb, sc []int) runs {
	var axes []batchAxis
	for d, e := range batch {
		if e == 1 {
			continue
		}
		if l := len(axes) - 1; l >= 0 && axes[l].a == sa[d]*e && axes[l].b == sb[d]*e && axes[l].c == sc[d]*e {
			axes[l] = batchAxis{axes[l].n * e, sa[d], sb[d], sc[d]}
			continue
		}
		axes = append(axes, batchAxis{e, sa[d], sb[d], sc[d]})
	}
	if len(axes) == 0 {
		return runs{inner: batchAxis{n: 1}}
	}
	return runs{outer: axes[:len(axes)-1], inner: axes[len(axes)-1]}
}

// each calls f with the element offsets of every outer batch position,
// row-major; none when an axis is empty.
func (r runs) each(f func(offA, offB, offC int) error) error {
	if r.inner.n == 0 {
		return nil
	}
	idx := make([]int, len(r.outer))
	for {
		var oa, ob, oc int
		for d, i := range idx {
			if r.outer[d].n == 0 {
				return nil
			}
			oa, ob, oc = oa+i*r.outer[d].a, ob+i*r.outer[d].b, oc+i*r.outer[d].c
		}
		if err := f(oa, ob, oc); err != nil {
			return err
		}
		d := len(idx) - 1
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < r.outer[d].n {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return nil
		}
	}
}
