package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// tf32Option lets float32 products use TF32 tensor cores.
type tf32Option struct{}

func (tf32Option) isOption()      {}
func (tf32Option) String() string { return "gpuarr.TF32()" }

// TF32 lets Matmul of float32 arrays use TF32 tensor cores: several times
// faster on Ampere and later GPUs, with products rounded to about 10 bits
// of mantissa (sums stay float32). Other types ignore it. Without it
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

// Matmul returns the matrix product a·b of an [m k] and a [k n] array, a
// new [m n] array on the stream's device. It runs on cuBLAS on a GPU (one
// GEMM queued without synchronizing: SGEMM, DGEMM, CGEMM, ZGEMM, or for
// Float16 and BFloat16 GemmEx accumulating in float32 on tensor cores,
// each result rounded once) and on gonum's BLAS on the host device (the
// 16-bit floats widened to float32, multiplied in float32 and rounded);
// without cuBLAS it fails with an error matching device.ErrNotSupported
// that names the library.
//
// Without a stream option it runs on the default stream of a's device.
// Operands may be row-major arrays, views with a row pitch, or transposed
// views; other strided views must be cloned first. Other ranks are
// refused (ErrShape): reshape a vector to [1 n] or [n 1]; a stack of
// matrices (3-D and more) is not multiplied as a batch.
func Matmul[T Inexact](a, b *Array[T], opts ...Option) (*Array[T], error) {
	const call = "Matmul"
	if err := matmulOperands(call, a, b); err != nil {
		return nil, err
	}
	m, n, err := matmulShape(call, a, b)
	if err != nil {
		return nil, err
	}
	s, err := streamTaking(call, opts, a.c.Device(), optTF32)
	if err != nil {
		return nil, err
	}
	if err := refuseInCapture(call, s, whyLibrary); err != nil {
		return nil, err
	}
	c, err := newArray[T](call, Shape{m, n}, s)
	if err != nil {
		return nil, err
	}
	if err := matmul(call, c, a, b, s, wantTF32(opts)); err != nil {
		_ = c.Release()
		return nil, err
	}
	return c, nil
}

// MatmulInto computes a·b into c, which must be [m n] for an [m k] a and a
// [k n] b and must not share memory with them. It runs on the default
// stream of c's device unless an option says otherwise; see Matmul.
func MatmulInto[T Inexact](c, a, b *Array[T], opts ...Option) error {
	const call = "MatmulInto"
	if err := c.check(call + ": result"); err != nil {
		return err
	}
	if err := matmulOperands(call, a, b); err != nil {
		return err
	}
	m, n, err := matmulShape(call, a, b)
	if err != nil {
		return err
	}
	if len(c.c.Shape()) != 2 || c.c.Shape()[0] != m || c.c.Shape()[1] != n {
		return arg.Shapef(call, "result %s should be [%d %d] for %s times %s", c.c.Describe(), m, n, a.c.Describe(), b.c.Describe())
	}
	if c.c.SharesBuffer(&a.c) || c.c.SharesBuffer(&b.c) {
		return fmt.Errorf("gpuarr.%s: the result %s shares memory with an operand; write to a separate array: %w", call, c.c.Describe(), ErrArgument)
	}
	s, err := streamTaking(call, opts, c.c.Device(), optTF32)
	if err != nil {
		return err
	}
	if err := refuseInCapture(call, s, whyLibrary); err != nil {
		return err
	}
	return matmul(call, c, a, b, s, wantTF32(opts))
}

// matmulOperands refuses nil, released and non-2-D operands.
func matmulOperands[T Inexact](call string, a, b *Array[T]) error {
	for _, x := range []struct {
		name string
		arr  *Array[T]
	}{{"a", a}, {"b", b}} {
		if err := x.arr.check(call + ": " + x.name); err != nil {
			return err
		}
		switch r := len(x.arr.c.Shape()); {
		case r == 1:
			return arg.Shapef(call, "%s is %s, a vector: Matmul multiplies 2-D arrays (reshape it to [1 n] or [n 1])", x.name, x.arr.c.Describe())
		case r > 2:
			return arg.Shapef(call, "%s is %s: Matmul multiplies 2-D arrays and has no batched form; multiply each matrix of the stack (Slice, then Reshape)",
				x.name, x.arr.c.Describe())
		case r != 2:
			return arg.Shapef(call, "%s is %s, a scalar: Matmul multiplies 2-D arrays", x.name, x.arr.c.Describe())
		}
	}
	return nil
}

// matmulShape checks that a's columns meet b's rows and returns the
// result's [m n].
func matmulShape[T Inexact](call string, a, b *Array[T]) (m, n int, err error) {
	if a.c.Shape()[1] != b.c.Shape()[0] {
		return 0, 0, arg.Shapef(call, "a is %s and b is %s: a's %d columns do not match b's %d rows",
			a.c.Describe(), b.c.Describe(), a.c.Shape()[1], b.c.Shape()[0])
	}
	return a.c.Shape()[0], b.c.Shape()[1], nil
}

// matLayout is how a 2-D array lies in memory as BLAS sees it: row-major
// with rows ld elements apart (so column-major, its transpose), or
// column-major with columns ld apart (a transposed view of a row-major
// array).
type matLayout struct {
	rowMajor bool
	ld       int
}

// layoutOf reads c's layout; ok is false for strides BLAS cannot take.
// Along an axis of extent one the stride does not matter.
func layoutOf(c *lifetime.Handle) (l matLayout, ok bool) {
	r, k := c.Shape()[0], c.Shape()[1]
	if c.Contiguous() {
		return matLayout{true, max(1, k)}, true
	}
	s0, s1 := c.Strides()[0], c.Strides()[1]
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

// matmul issues c = a·b on s, ordered by the arrays' tracking like a
// kernel launch.
func matmul[T Inexact](call string, c, a, b *Array[T], s *device.Stream, tf32 bool) error {
	var ls [3]matLayout
	for i, x := range []*lifetime.Handle{&a.c, &b.c, &c.c} {
		l, ok := layoutOf(x)
		if !ok {
			return fmt.Errorf("gpuarr.%s: %s has strides %v, which a matrix product cannot read directly: Clone it first: %w",
				call, x.Describe(), x.Strides(), ErrArgument)
		}
		ls[i] = l
	}
	la, lb, lc := ls[0], ls[1], ls[2]
	m, k, n := a.c.Shape()[0], a.c.Shape()[1], b.c.Shape()[1]

	g := device.Gemm{Type: dtype.Of[T](), Alpha: 1, Beta: 0, TF32: tf32, LDC: lc.ld}
	// BLAS is column-major. A row-major C is the column-major Cᵀ = Bᵀ·Aᵀ
	// over the same memory; a transposed-view C is column-major C = A·B.
	// Each operand is transposed for BLAS unless its memory already is
	// the matrix the product needs.
	if lc.rowMajor {
		g.M, g.N, g.K = n, m, k
		g.A, g.LDA, g.TransA = b.c.Ptr(), lb.ld, !lb.rowMajor
		g.B, g.LDB, g.TransB = a.c.Ptr(), la.ld, !la.rowMajor
	} else {
		g.M, g.N, g.K = m, n, k
		g.A, g.LDA, g.TransA = a.c.Ptr(), la.ld, la.rowMajor
		g.B, g.LDB, g.TransB = b.c.Ptr(), lb.ld, lb.rowMajor
	}
	g.C = c.c.Ptr()

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
	err = s.Gemm(g)
	o.End()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %s times %s: %w", call, a.c.Describe(), b.c.Describe(), err)
	}
	return nil
}
