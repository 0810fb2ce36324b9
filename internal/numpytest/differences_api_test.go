package numpytest_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// The rows of the differences table that no golden case exercises are
// checked here, through gpuarr's public API on the default device, on
// small arrays: each check asserts what the row says gpuarr does, and
// holds NumPy's answer for the same call (written in below, from NumPy
// 1.24) where it differs from gpuarr's, so that the check fails if either
// side stops being what the row says. Rows whose difference is that a
// call does not compile (bool is no Number, complex numbers are not
// Ordered) are checked by TestDifferencesThatDoNotCompile
// (differences_compile_test.go) and, here, by their run-time alternative.

// TestDifferencesThroughTheAPI runs each difference's api check.
func TestDifferencesThroughTheAPI(t *testing.T) {
	for key, d := range differences {
		if d.api == nil {
			continue
		}
		t.Run(key, func(t *testing.T) {
			if err := d.api(); err != nil {
				t.Errorf("NumPy difference %q: %v", d.row, err)
			}
		})
	}
}

// held collects the arrays a check made, to release them at its end.
type held []interface{ Release() error }

func (h *held) release() error {
	var errs []error
	for _, a := range *h {
		errs = append(errs, a.Release())
	}
	return errors.Join(errs...)
}

// add adds an array (maybe a nil *Array) to h.
func (h *held) add(a interface{ Release() error }) { *h = append(*h, a) }

// hold adds a call's result to h and passes it on.
func hold[T gpuarr.Element](h *held, a *gpuarr.Array[T], err error) (*gpuarr.Array[T], error) {
	h.add(a)
	return a, err
}

// errOf is a call's error; its result, if any, is released.
func errOf[T gpuarr.Element](a *gpuarr.Array[T], err error) error {
	return errors.Join(err, a.Release())
}

// vec is a 1-D array of xs, kept in h.
func vec[T gpuarr.Element](h *held, xs ...T) (*gpuarr.Array[T], error) {
	a, err := gpuarr.FromSlice(xs, gpuarr.Shape{len(xs)})
	return hold(h, a, err)
}

// mat is an r×c array of xs (row-major), kept in h.
func mat[T gpuarr.Element](h *held, r, c int, xs ...T) (*gpuarr.Array[T], error) {
	a, err := gpuarr.FromSlice(xs, gpuarr.Shape{r, c})
	return hold(h, a, err)
}

// read is the elements of a call's result, which it releases.
func read[T gpuarr.Element](a *gpuarr.Array[T], err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer a.Release()
	return a.ToSlice()
}

// withArrays runs f with a fresh held and releases its arrays after.
func withArrays(f func(h *held) error) func() error {
	return func() error {
		h := &held{}
		err := f(h)
		return errors.Join(err, h.release())
	}
}

// wantErr says whether err matches target and its text names each of
// names.
func wantErr(what string, err, target error, names ...string) error {
	if !errors.Is(err, target) {
		return fmt.Errorf("%s: error %v, want one matching %v", what, err, target)
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			return fmt.Errorf("%s: error %q does not name %s", what, err, n)
		}
	}
	return nil
}

// within says whether got is want within rel relative error.
func within(got, want, rel float64) bool {
	return got == want || math.Abs(got-want) <= rel*math.Abs(want)
}

// ------------------------------------------------------------ reductions

// apiMeanEmpty: Mean, Var, Std, NanMean and LogSumExp of no elements fail
// with ErrShape, where NumPy gives NaN (-Inf for logsumexp) and a warning.
var apiMeanEmpty = withArrays(func(h *held) error {
	x, err := gpuarr.Empty[float64](gpuarr.Shape{0})
	h.add(x)
	if err != nil {
		return err
	}
	calls := map[string]func(gpuarr.Operand[float64], ...gpuarr.Option) (*gpuarr.Array[float64], error){
		"Mean": gpuarr.Mean[float64], "Var": gpuarr.Var[float64], "Std": gpuarr.Std[float64],
		"NanMean": gpuarr.NanMean[float64], "LogSumExp": gpuarr.LogSumExp[float64],
	}
	for name, f := range calls {
		err := errOf(f(x))
		if err := wantErr(name+" of no elements", err, gpuarr.ErrShape); err != nil {
			return err
		}
	}
	return nil
})

// apiVarInt: VarAs[float64] and StdAs[float64] of integers are NumPy's var
// and std (np.var([1, 2, 3, 4]) = 1.25, np.std(…, ddof=1) =
// 1.2909944487358056).
var apiVarInt = withArrays(func(h *held) error {
	x, err := vec[int32](h, 1, 2, 3, 4)
	if err != nil {
		return err
	}
	v, err := read(gpuarr.VarAs[float64](x))
	if err != nil {
		return fmt.Errorf("VarAs[float64]: %w", err)
	}
	s, err := read(gpuarr.StdAs[float64](x, gpuarr.Ddof(1)))
	if err != nil {
		return fmt.Errorf("StdAs[float64]: %w", err)
	}
	if !within(v[0], 1.25, 1e-15) || !within(s[0], 1.2909944487358056, 1e-15) {
		return fmt.Errorf("VarAs, StdAs(Ddof(1)) of int32 [1 2 3 4] = %v, %v, want NumPy's 1.25, 1.2909944487358056", v, s)
	}
	return nil
})

// apiNanInt: the integer alternatives the row names give NumPy's nansum,
// nanmean, nanmin and nanmax of integers (np.nansum([3, -1, 7]) = 9,
// nanmean 3.0, nanmin -1, nanmax 7).
var apiNanInt = withArrays(func(h *held) error {
	x, err := vec[int64](h, 3, -1, 7)
	if err != nil {
		return err
	}
	var got []int64
	for _, f := range []func(gpuarr.Operand[int64], ...gpuarr.Option) (*gpuarr.Array[int64], error){
		gpuarr.Sum[int64], gpuarr.Mean[int64], gpuarr.Min[int64], gpuarr.Max[int64],
	} {
		v, err := read(f(x))
		if err != nil {
			return err
		}
		got = append(got, v[0])
	}
	if want := []int64{9, 3, -1, 7}; !slices.Equal(got, want) {
		return fmt.Errorf("Sum, Mean, Min, Max of [3 -1 7] = %v, want NumPy's nansum, nanmean, nanmin, nanmax %v", got, want)
	}
	return nil
})

// apiAnyAll: Any and All give uint8 1 or 0 (NumPy: bool True, False), a
// NaN counting as true.
var apiAnyAll = withArrays(func(h *held) error {
	x, err := vec(h, 0, float32(math.NaN()), 2)
	if err != nil {
		return err
	}
	anyv, err := read(gpuarr.Any(x))
	if err != nil {
		return fmt.Errorf("Any: %w", err)
	}
	allv, err := read(gpuarr.All(x))
	if err != nil {
		return fmt.Errorf("All: %w", err)
	}
	allNZ, err := read(gpuarr.All(gpuarr.Greater[float32](x, gpuarr.Scalar[float32](-1)).Or(gpuarr.Equal[float32](x, x).Not())))
	if err != nil {
		return fmt.Errorf("All of a mask: %w", err)
	}
	if anyv[0] != 1 || allv[0] != 0 || allNZ[0] != 1 {
		return fmt.Errorf("Any, All of [0 NaN 2], All of a true mask = %d, %d, %d, want uint8 1, 0, 1", anyv[0], allv[0], allNZ[0])
	}
	return nil
})

// apiNormFloat32: the 2-norm of float32 [3e19 4e19] is 5e19 (its squares
// summed in float64); NumPy's np.linalg.norm sums them in float32 and
// gives inf.
var apiNormFloat32 = withArrays(func(h *held) error {
	x, err := vec[float32](h, 3e19, 4e19)
	if err != nil {
		return err
	}
	n, err := read(gpuarr.Norm(x))
	if err != nil {
		return err
	}
	if !within(float64(n[0]), 5e19, 1e-6) {
		return fmt.Errorf("Norm of float32 [3e19 4e19] = %v, want 5e19 (NumPy's float32 sum of squares gives +Inf)", n[0])
	}
	return nil
})

// apiNormSVD: the spectral norms (Ord 2, -2) of a matrix are refused,
// naming linalg.SVDVals; NumPy computes them from singular values.
var apiNormSVD = withArrays(func(h *held) error {
	a, err := mat[float64](h, 2, 2, 3, 0, 0, 4)
	if err != nil {
		return err
	}
	for _, p := range []float64{2, -2} {
		err := errOf(gpuarr.Norm(a, gpuarr.Ord(p)))
		if err == nil || !strings.Contains(err.Error(), "SVDVals") {
			return fmt.Errorf("Norm(Ord(%v)) of a matrix: error %v, want one naming linalg.SVDVals (NumPy gives %v)", p, err, map[float64]int{2: 4, -2: 3}[p])
		}
	}
	// the norms it computes are NumPy's: Frobenius 5, Ord(1) 4
	f, err := read(gpuarr.Norm(a))
	if err != nil {
		return err
	}
	o, err := read(gpuarr.Norm(a, gpuarr.Ord(1)))
	if err != nil {
		return err
	}
	if f[0] != 5 || o[0] != 4 {
		return fmt.Errorf("Norm, Norm(Ord(1)) of diag(3, 4) = %v, %v, want 5, 4", f[0], o[0])
	}
	return nil
})

// apiFloat16Sum: Sum of float16 [1 2⁻¹¹ 2⁻²⁴] accumulates in float64 and
// rounds once: 1+2⁻¹⁰ (the exact sum is past the halfway point 1+2⁻¹¹).
// NumPy accumulates in float32, where 1+2⁻¹¹+2⁻²⁴ rounds to 1+2⁻¹¹, and
// the tie then rounds to 1.
var apiFloat16Sum = withArrays(func(h *held) error {
	x, err := vec(h, gpuarr.ToFloat16(1.0), gpuarr.ToFloat16(0x1p-11), gpuarr.ToFloat16(0x1p-24))
	if err != nil {
		return err
	}
	s, err := read(gpuarr.Sum(x))
	if err != nil {
		return fmt.Errorf("Sum: %w", err)
	}
	if got := s[0].Float64(); got != 1+0x1p-10 {
		return fmt.Errorf("Sum of float16 [1 2⁻¹¹ 2⁻²⁴] = %v, want 1+2⁻¹⁰ (NumPy's float32 accumulation gives 1)", got)
	}
	m, err := read(gpuarr.Mean(x))
	if err != nil {
		return fmt.Errorf("Mean: %w", err)
	}
	if want := gpuarr.ToFloat16((1 + 0x1p-11 + 0x1p-24) / 3.0); m[0] != want {
		return fmt.Errorf("Mean of float16 [1 2⁻¹¹ 2⁻²⁴] = %v, want the exact mean rounded once, %v", m[0], want)
	}
	return nil
})

// apiBoolSum: SumAs[int64] and MeanAs[float64] of bools are NumPy's sum
// and mean; Max and Min are any and all.
var apiBoolSum = withArrays(func(h *held) error {
	x, err := vec(h, true, false, true)
	if err != nil {
		return err
	}
	s, err := read(gpuarr.SumAs[int64](x))
	if err != nil {
		return fmt.Errorf("SumAs[int64]: %w", err)
	}
	m, err := read(gpuarr.MeanAs[float64](x))
	if err != nil {
		return fmt.Errorf("MeanAs[float64]: %w", err)
	}
	mx, err := read(gpuarr.Max(x))
	if err != nil {
		return fmt.Errorf("Max: %w", err)
	}
	mn, err := read(gpuarr.Min(x))
	if err != nil {
		return fmt.Errorf("Min: %w", err)
	}
	if s[0] != 2 || !within(m[0], 2.0/3, 1e-15) || !mx[0] || mn[0] {
		return fmt.Errorf("SumAs, MeanAs, Max, Min of [true false true] = %v, %v, %v, %v; want NumPy's sum 2, mean 0.666…, any true, all false",
			s[0], m[0], mx[0], mn[0])
	}
	return nil
})

// ------------------------------------------------------------ element types

// apiComplexCast: Cast of complex to real fails with ErrArgument naming
// Real (NumPy drops the imaginary part: [1+2j].astype(float32) is [1]);
// Real is that part.
var apiComplexCast = withArrays(func(h *held) error {
	z, err := vec(h, complex64(1+2i), complex64(-3+0.5i))
	if err != nil {
		return err
	}
	err = errOf(gpuarr.Eval(gpuarr.Cast[float32, complex64](z)))
	if err := wantErr("Cast[float32] of complex64", err, gpuarr.ErrArgument, "Real"); err != nil {
		return err
	}
	re, err := read(gpuarr.Eval(gpuarr.Real[float32](z)))
	if err != nil {
		return fmt.Errorf("Real: %w", err)
	}
	if !slices.Equal(re, []float32{1, -3}) {
		return fmt.Errorf("Real of [1+2i -3+0.5i] = %v, want [1 -3]", re)
	}
	return nil
})

// apiComplexOrder: complex numbers have no order, so the ordered
// functions do not compile for them (TestDifferencesThatDoNotCompile);
// equality needs none, and Equal takes them.
var apiComplexOrder = withArrays(func(h *held) error {
	z, err := vec(h, complex64(1+2i), complex64(1+2i), complex64(2))
	if err != nil {
		return err
	}
	eq, err := read(gpuarr.Eval(gpuarr.Cast[uint8, bool](gpuarr.Equal[complex64](z, gpuarr.Scalar(complex64(1+2i))))))
	if err != nil {
		return fmt.Errorf("Equal of complex64: %w", err)
	}
	if !slices.Equal(eq, []uint8{1, 1, 0}) {
		return fmt.Errorf("Equal([1+2i 1+2i 2], 1+2i) = %v, want [1 1 0]", eq)
	}
	return nil
})

// apiComplexAbs: ComplexAbs[R] is NumPy's abs of complex numbers: |3+4i| =
// 5, |Inf+NaN·i| = +Inf, |NaN+1i| = NaN.
var apiComplexAbs = withArrays(func(h *held) error {
	nan, inf := math.NaN(), math.Inf(1)
	z, err := vec(h, complex(3, 4), complex(inf, nan), complex(nan, 1), complex(-1e300, 1e300))
	if err != nil {
		return err
	}
	a, err := read(gpuarr.Eval(gpuarr.ComplexAbs[float64](z)))
	if err != nil {
		return err
	}
	if a[0] != 5 || !math.IsInf(a[1], 1) || !math.IsNaN(a[2]) || !within(a[3], math.Sqrt2*1e300, 1e-15) {
		return fmt.Errorf("ComplexAbs of [3+4i Inf+NaNi NaN+1i -1e300+1e300i] = %v, want NumPy's [5 +Inf NaN 1.414…e300]", a)
	}
	return nil
})

// apiBFloat16: bfloat16 arithmetic rounds each result to 8 significant
// bits, ties to even, with float32's exponent range: 1 + 2⁻⁸ is 1 (a tie,
// to even), 1+2⁻⁷ + 2⁻⁸ is 1+2⁻⁶ (a tie, to even), 1e38 + 1e38 is finite.
var apiBFloat16 = withArrays(func(h *held) error {
	b := gpuarr.ToBFloat16[float64]
	x, err := vec(h, b(1), b(1+0x1p-7), b(1e38))
	if err != nil {
		return err
	}
	y, err := vec(h, b(0x1p-8), b(0x1p-8), b(1e38))
	if err != nil {
		return err
	}
	s, err := read(gpuarr.Eval(gpuarr.Add[gpuarr.BFloat16](x, y)))
	if err != nil {
		return err
	}
	got := []float32{s[0].Float32(), s[1].Float32(), s[2].Float32()}
	want := []float32{1, 1 + 0x1p-6, b(2e38).Float32()}
	if !slices.Equal(got, want) || math.IsInf(float64(got[2]), 0) {
		return fmt.Errorf("bfloat16 [1 1+2⁻⁷ 1e38] + [2⁻⁸ 2⁻⁸ 1e38] = %v, want %v", got, want)
	}
	return nil
})

// ------------------------------------------------------------ the array language

// apiTriuVector: Triu and Tril of a vector fail with ErrShape; NumPy
// broadcasts it to a square (np.triu([1, 2]) = [[1 2] [0 2]]), which
// BroadcastTo gives.
var apiTriuVector = withArrays(func(h *held) error {
	v, err := vec[float32](h, 1, 2)
	if err != nil {
		return err
	}
	for name, f := range map[string]func(gpuarr.Operand[float32], int) gpuarr.Expr[float32]{
		"Triu": gpuarr.Triu[float32], "Tril": gpuarr.Tril[float32],
	} {
		err := errOf(gpuarr.Eval(f(v, 0)))
		if err := wantErr(name+" of a vector", err, gpuarr.ErrShape); err != nil {
			return err
		}
	}
	sq, err := v.BroadcastTo(gpuarr.Shape{2, 2})
	h.add(sq)
	if err != nil {
		return err
	}
	u, err := read(gpuarr.Eval(gpuarr.Triu[float32](sq, 0)))
	if err != nil {
		return err
	}
	if !slices.Equal(u, []float32{1, 2, 0, 2}) {
		return fmt.Errorf("Triu of [1 2] broadcast to 2×2 = %v, want NumPy's triu([1, 2]) [1 2 0 2]", u)
	}
	return nil
})

// apiDiagonal: Diagonal is a writable view (NumPy's is read-only): writing
// it writes the matrix.
var apiDiagonal = withArrays(func(h *held) error {
	a, err := mat[int32](h, 2, 3, 1, 2, 3, 4, 5, 6)
	if err != nil {
		return err
	}
	d, err := a.Diagonal(1, 0, 1)
	h.add(d)
	if err != nil {
		return err
	}
	if err := gpuarr.EvalInto(d, gpuarr.Neg[int32](d)); err != nil {
		return fmt.Errorf("writing the diagonal: %w", err)
	}
	got, err := a.ToSlice()
	if err != nil {
		return err
	}
	if want := []int32{1, -2, 3, 4, 5, -6}; !slices.Equal(got, want) {
		return fmt.Errorf("negating Diagonal(1, 0, 1) of [[1 2 3] [4 5 6]] gives %v, want %v", got, want)
	}
	return nil
})

// apiEinsum: Einsum takes one or two operands; a summed label does not
// broadcast an extent-1 axis (NumPy: einsum("ij,jk->ik", ones((2, 1)),
// ones((3, 2))) = [[3 3] [3 3]]); "ij->ji" is a copy, not a view.
var apiEinsum = withArrays(func(h *held) error {
	a, err := mat[float64](h, 2, 1, 1, 1)
	if err != nil {
		return err
	}
	b, err := mat[float64](h, 3, 2, 1, 1, 1, 1, 1, 1)
	if err != nil {
		return err
	}
	err = errOf(gpuarr.Einsum("ij,jk->ik", []*gpuarr.Array[float64]{a, b}))
	if err := wantErr("Einsum(\"ij,jk->ik\") of 2×1 and 3×2", err, gpuarr.ErrShape); err != nil {
		return err
	}
	c, err := mat[float64](h, 1, 2, 1, 1)
	if err != nil {
		return err
	}
	err = errOf(gpuarr.Einsum("ij,jk,kl->il", []*gpuarr.Array[float64]{a, c, a}))
	if err := wantErr("Einsum of three operands", err, gpuarr.ErrArgument); err != nil {
		return err
	}
	m, err := mat[float64](h, 2, 2, 1, 2, 3, 4)
	if err != nil {
		return err
	}
	t, err := gpuarr.Einsum("ij->ji", []*gpuarr.Array[float64]{m})
	h.add(t)
	if err != nil {
		return err
	}
	if err := gpuarr.EvalInto(m, gpuarr.Scalar[float64](0)); err != nil {
		return err
	}
	got, err := t.ToSlice()
	if err != nil {
		return err
	}
	if want := []float64{1, 3, 2, 4}; !slices.Equal(got, want) {
		return fmt.Errorf("Einsum(\"ij->ji\") after zeroing its operand = %v, want the copy %v", got, want)
	}
	return nil
})

// apiArange: Arange[float32](1, 1.3, 0.1) has 3 elements, its length from
// the float32 arguments ((1.3f − 1)/0.1f = 2.99999…); NumPy's
// arange(1, 1.3, 0.1, dtype=float32) takes float64 arguments
// ((1.3 − 1)/0.1 = 3.0000000000000004) and has 4: [1 1.1 1.2 1.3000001].
var apiArange = func() error {
	got, err := read(gpuarr.Arange[float32](1, 1.3, 0.1))
	if err != nil {
		return err
	}
	if len(got) != 3 || got[0] != 1 || got[1] != float32(1+float64(float32(0.1))) {
		return fmt.Errorf("Arange[float32](1, 1.3, 0.1) = %v, want 3 elements 1, 1.1, 1.2 (NumPy's has 4)", got)
	}
	return nil
}

// apiStr: String formats each element as %v does, right-aligned: float32
// [1 2.5] prints "[  1 2.5]" (NumPy's str: "[1.  2.5]").
var apiStr = withArrays(func(h *held) error {
	x, err := vec[float32](h, 1, 2.5)
	if err != nil {
		return err
	}
	s := x.String()
	if !strings.HasSuffix(s, "[  1 2.5]") {
		return fmt.Errorf("String of float32 [1 2.5] = %q, want it to end in %q (NumPy: %q)", s, "[  1 2.5]", "[1.  2.5]")
	}
	return nil
})

// ------------------------------------------------------------ sort, scan, index

// apiCumsumNarrow: Cumsum and Cumprod of int8 … uint32 fail with
// ErrArgument naming CumsumAs (CumprodAs); CumsumAs[int64] is NumPy's
// cumsum (np.cumsum(int8 [100 100 100]) = int64 [100 200 300]).
var apiCumsumNarrow = withArrays(func(h *held) error {
	x, err := vec[int8](h, 100, 100, 100)
	if err != nil {
		return err
	}
	err = errOf(gpuarr.Cumsum(x))
	if err := wantErr("Cumsum of int8", err, gpuarr.ErrArgument, "CumsumAs"); err != nil {
		return err
	}
	err = errOf(gpuarr.Cumprod(x))
	if err := wantErr("Cumprod of int8", err, gpuarr.ErrArgument, "CumprodAs"); err != nil {
		return err
	}
	u, err := vec[uint32](h, 1<<31, 1<<31)
	if err != nil {
		return err
	}
	err = errOf(gpuarr.Cumsum(u))
	if err := wantErr("Cumsum of uint32", err, gpuarr.ErrArgument, "CumsumAs"); err != nil {
		return err
	}
	s, err := read(gpuarr.CumsumAs[int64](x))
	if err != nil {
		return fmt.Errorf("CumsumAs[int64]: %w", err)
	}
	p, err := read(gpuarr.CumprodAs[int64](x))
	if err != nil {
		return fmt.Errorf("CumprodAs[int64]: %w", err)
	}
	if !slices.Equal(s, []int64{100, 200, 300}) || !slices.Equal(p, []int64{100, 10000, 1000000}) {
		return fmt.Errorf("CumsumAs, CumprodAs[int64] of int8 [100 100 100] = %v, %v, want NumPy's [100 200 300], [100 10000 1000000]", s, p)
	}
	return nil
})

// apiCumsumFloat32: Cumsum of float32 [1 2⁻²⁴ 2⁻²⁴] accumulates in
// float64: [1 1 1+2⁻²³]; NumPy's float32 running sum is [1 1 1].
var apiCumsumFloat32 = withArrays(func(h *held) error {
	x, err := vec[float32](h, 1, 0x1p-24, 0x1p-24)
	if err != nil {
		return err
	}
	got, err := read(gpuarr.Cumsum(x))
	if err != nil {
		return err
	}
	if want := []float32{1, 1, 1 + 0x1p-23}; !slices.Equal(got, want) {
		return fmt.Errorf("Cumsum of float32 [1 2⁻²⁴ 2⁻²⁴] = %v, want %v (NumPy: [1 1 1])", got, want)
	}
	return nil
})

// apiSortFloats: Sort gives -0 as +0 and every NaN as the canonical NaN
// (NumPy keeps -0.0 and the payload); Argsort's positions are exact.
var apiSortFloats = withArrays(func(h *held) error {
	payload := math.Float32frombits(0xffc00123) // a negative NaN with a payload
	x, err := vec(h, payload, float32(math.Copysign(0, -1)), 2, -1)
	if err != nil {
		return err
	}
	got, err := read(gpuarr.Sort(x))
	if err != nil {
		return err
	}
	bits := make([]uint32, len(got))
	for i, v := range got {
		bits[i] = math.Float32bits(v)
	}
	if want := []uint32{math.Float32bits(-1), 0, math.Float32bits(2), 0x7fc00000}; !slices.Equal(bits, want) {
		return fmt.Errorf("Sort of float32 [NaN(0xffc00123) -0 2 -1] bits = %#x, want %#x", bits, want)
	}
	idx, err := read(gpuarr.Argsort(x))
	if err != nil {
		return err
	}
	if want := []int64{3, 1, 2, 0}; !slices.Equal(idx, want) {
		return fmt.Errorf("Argsort of [NaN -0 2 -1] = %v, want %v", idx, want)
	}
	return nil
})

// apiDescending: Descending orders numbers down, NaN last, ties in their
// order: Argsort([1 3 NaN 3 2], Descending()) = [1 3 4 0 2], not the
// reverse of the ascending [0 4 1 3 2]; NumPy has no such option.
var apiDescending = withArrays(func(h *held) error {
	x, err := vec(h, 1, 3, math.NaN(), 3, 2)
	if err != nil {
		return err
	}
	idx, err := read(gpuarr.Argsort(x, gpuarr.Descending()))
	if err != nil {
		return err
	}
	if want := []int64{1, 3, 4, 0, 2}; !slices.Equal(idx, want) {
		return fmt.Errorf("Argsort([1 3 NaN 3 2], Descending()) = %v, want %v", idx, want)
	}
	v, err := read(gpuarr.Sort(x, gpuarr.Descending()))
	if err != nil {
		return err
	}
	if !slices.Equal(v[:4], []float64{3, 3, 2, 1}) || !math.IsNaN(v[4]) {
		return fmt.Errorf("Sort([1 3 NaN 3 2], Descending()) = %v, want [3 3 2 1 NaN]", v)
	}
	return nil
})

// apiIndexRange: an index out of range is not an error at the call (NumPy
// raises IndexError there) but ErrIndex from the next host wait; the bad
// index is skipped, never written through.
var apiIndexRange = withArrays(func(h *held) error {
	x, err := vec[float32](h, 1, 2, 3)
	if err != nil {
		return err
	}
	idx, err := vec[int64](h, 0, 7)
	if err != nil {
		return err
	}
	if err := gpuarr.Synchronize(); err != nil {
		return fmt.Errorf("before: %w", err)
	}
	if err := gpuarr.Put(x, idx, gpuarr.Scalar[float32](9)); err != nil {
		return fmt.Errorf("Put with index 7 into 3 elements failed at the call (%w), want the error at the next host wait", err)
	}
	_, err = x.ToSlice()
	if err := wantErr("ToSlice after Put with index 7 into 3 elements", err, gpuarr.ErrIndex, "7"); err != nil {
		return err
	}
	got, err := x.ToSlice()
	if err != nil {
		return fmt.Errorf("the second ToSlice: %w (the index error is reported once)", err)
	}
	if !slices.Equal(got, []float32{9, 2, 3}) {
		return fmt.Errorf("after Put(x, [0 7], 9): x = %v, want [9 2 3] (index 7 skipped)", got)
	}
	t, err := gpuarr.Take(x, idx)
	h.add(t)
	if err != nil {
		return fmt.Errorf("Take with index 7 of 3 elements failed at the call (%w), want the error at the next host wait", err)
	}
	_, err = t.ToSlice()
	return wantErr("ToSlice of Take with index 7 of 3 elements", err, gpuarr.ErrIndex)
})

// apiPutRepeated: with repeated indices Deterministic() makes the last
// value land, as NumPy's does; without it one of them lands.
var apiPutRepeated = withArrays(func(h *held) error {
	idx, err := vec[int32](h, 1, 1, 1)
	if err != nil {
		return err
	}
	v, err := vec[int32](h, 5, 6, 7)
	if err != nil {
		return err
	}
	for _, det := range []bool{true, false} {
		x, err := vec[int32](h, 0, 0)
		if err != nil {
			return err
		}
		var opts []gpuarr.Option
		if det {
			opts = append(opts, gpuarr.Deterministic())
		}
		if err := gpuarr.Put(x, idx, v, opts...); err != nil {
			return err
		}
		got, err := x.ToSlice()
		if err != nil {
			return err
		}
		if got[0] != 0 || det && got[1] != 7 || !slices.Contains([]int32{5, 6, 7}, got[1]) {
			return fmt.Errorf("Put(x, [1 1 1], [5 6 7]) (Deterministic %v) = %v, want [0 7] deterministically, else [0 5|6|7]", det, got)
		}
	}
	return nil
})

// apiPutFewer: values broadcast to the indices' shape (one value fills
// them all), else ErrShape; NumPy repeats them cyclically
// (np.put(zeros(4), [0 1 2 3], [7 8]) gives [7 8 7 8]).
var apiPutFewer = withArrays(func(h *held) error {
	x, err := vec[float32](h, 0, 0, 0, 0)
	if err != nil {
		return err
	}
	idx, err := vec[int64](h, 0, 1, 2, 3)
	if err != nil {
		return err
	}
	two, err := vec[float32](h, 7, 8)
	if err != nil {
		return err
	}
	if err := wantErr("Put of 2 values at 4 indices", gpuarr.Put(x, idx, two), gpuarr.ErrShape); err != nil {
		return err
	}
	one, err := vec[float32](h, 7)
	if err != nil {
		return err
	}
	if err := gpuarr.Put(x, idx, one); err != nil {
		return fmt.Errorf("Put of 1 value at 4 indices: %w", err)
	}
	got, err := x.ToSlice()
	if err != nil {
		return err
	}
	if !slices.Equal(got, []float32{7, 7, 7, 7}) {
		return fmt.Errorf("Put of [7] at [0 1 2 3] = %v, want [7 7 7 7]", got)
	}
	return nil
})

// apiIndexAddFloats: IndexAdd of 1e16, 1, -1e16 at one index gives 0 in
// index order (Deterministic, as NumPy's add.at: 1e16+1 rounds to 1e16),
// else 0 or 1 depending on the order the atomic adds ran in.
var apiIndexAddFloats = withArrays(func(h *held) error {
	idx, err := vec[int64](h, 0, 0, 0)
	if err != nil {
		return err
	}
	v, err := vec(h, 1e16, 1, -1e16)
	if err != nil {
		return err
	}
	for _, det := range []bool{true, false} {
		x, err := vec(h, 0.0)
		if err != nil {
			return err
		}
		var opts []gpuarr.Option
		if det {
			opts = append(opts, gpuarr.Deterministic())
		}
		if err := gpuarr.IndexAdd(x, idx, v, opts...); err != nil {
			return err
		}
		got, err := x.ToSlice()
		if err != nil {
			return err
		}
		if det && got[0] != 0 || got[0] != 0 && got[0] != 1 {
			return fmt.Errorf("IndexAdd(0, [0 0 0], [1e16 1 -1e16]) (Deterministic %v) = %v, want NumPy's 0 deterministically, else 0 or 1", det, got[0])
		}
	}
	return nil
})

// apiMaskedSelect: the mask broadcasts with x (NumPy's x[m] needs m of x's
// shape: IndexError for a 2×3 x and a mask of 3).
var apiMaskedSelect = withArrays(func(h *held) error {
	x, err := mat[float32](h, 2, 3, 1, 2, 3, 4, 5, 6)
	if err != nil {
		return err
	}
	m, err := vec[float32](h, 1, 0, 1)
	if err != nil {
		return err
	}
	got, err := read(gpuarr.MaskedSelect[float32](x, gpuarr.NotEqual[float32](m, gpuarr.Scalar[float32](0))))
	if err != nil {
		return err
	}
	if want := []float32{1, 3, 4, 6}; !slices.Equal(got, want) {
		return fmt.Errorf("MaskedSelect of [[1 2 3] [4 5 6]] with the mask [t f t] = %v, want %v", got, want)
	}
	return nil
})

// apiHistogramEdges: the edges of float32 data are float64 holding
// NumPy's float32 edges exactly (NumPy's are float32: [0 0.33333334
// 0.6666667 1] in 3 bins over [0, 1]); the counts are NumPy's [1 1 2] for
// float32 [0 1 0.33333334 0.6666667].
var apiHistogramEdges = withArrays(func(h *held) error {
	x, err := vec(h, 0, 1, float32(1.0/3), float32(2.0/3))
	if err != nil {
		return err
	}
	counts, edges, err := gpuarr.Histogram(x, 3)
	h.add(counts)
	h.add(edges)
	if err != nil {
		return err
	}
	c, err := counts.ToSlice()
	if err != nil {
		return err
	}
	e, err := edges.ToSlice()
	if err != nil {
		return err
	}
	if !slices.Equal(c, []int64{1, 1, 2}) {
		return fmt.Errorf("Histogram counts of float32 [0 1 ⅓ ⅔] = %v, want NumPy's [1 1 2]", c)
	}
	if want := []float64{0, float64(float32(0.33333334)), float64(float32(0.6666667)), 1}; !slices.Equal(e, want) {
		return fmt.Errorf("Histogram edges of float32 data over [0, 1] in 3 bins = %v, want NumPy's float32 edges as float64 %v", e, want)
	}
	return nil
})

// apiBincountWeights: the sums are float64 in any order: 1e16, 1, -1e16
// into one bin give 0 (NumPy's index order) or 1; exact sums are exact.
var apiBincountWeights = withArrays(func(h *held) error {
	x, err := vec[int32](h, 0, 0, 0, 2, 2)
	if err != nil {
		return err
	}
	w, err := vec(h, 1e16, 1, -1e16, 0.5, float64(float32(0.1)))
	if err != nil {
		return err
	}
	got, err := read(gpuarr.BincountWeights(x, w))
	if err != nil {
		return err
	}
	if len(got) != 3 || got[0] != 0 && got[0] != 1 || got[1] != 0 || got[2] != 0.5+float64(float32(0.1)) {
		return fmt.Errorf("BincountWeights([0 0 0 2 2], [1e16 1 -1e16 0.5 0.1f]) = %v, want [0|1 0 0.6000000014901161]", got)
	}
	return nil
})

// apiSortHuge: Sort, Argsort and Unique of 2³² elements (a broadcast view
// of one) fail with ErrShape at once, before any copy.
var apiSortHuge = withArrays(func(h *held) error {
	one, err := vec[uint8](h, 1)
	if err != nil {
		return err
	}
	big, err := one.BroadcastTo(gpuarr.Shape{1 << 32})
	h.add(big)
	if err != nil {
		return err
	}
	err = errOf(gpuarr.Sort(big))
	if err := wantErr("Sort of 2³² elements", err, gpuarr.ErrShape); err != nil {
		return err
	}
	err = errOf(gpuarr.Argsort(big))
	if err := wantErr("Argsort of 2³² elements", err, gpuarr.ErrShape); err != nil {
		return err
	}
	err = errOf(gpuarr.Unique(big))
	return wantErr("Unique of 2³² elements", err, gpuarr.ErrShape)
})
