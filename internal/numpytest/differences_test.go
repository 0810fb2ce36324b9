package numpytest_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// The intended differences from NumPy: one entry per row of the table in
// gpuarr's package doc (gpuarr/numpy.go), named by the row's first words.
// A golden case with "diff": key holds NumPy's answer; the entry runs the
// case under gpuarr's documented behaviour instead (computing gpuarr's
// answer from the operands, or expecting the error the row names) and
// checks NumPy's answer against what the row says NumPy does, so every
// row is exercised against NumPy. TestDifferencesCoverTheTable keeps this
// list and the table in step.

type difference struct {
	// row is the start of the row's first column in gpuarr/numpy.go.
	row string
	// elsewhere names the test that exercises a row outside this suite.
	elsewhere string
	// rewrite turns the case's tree into what a gpuarr user writes.
	rewrite func(n *node) *node
	// check judges gpuarr's result (got, or err) for a case of the row;
	// nil: the (rewritten) case is compared with NumPy's answer as usual.
	check func(r *diffRun) error
	// api checks the row through gpuarr's API on its own small arrays,
	// with NumPy's answer written in (TestDifferencesThroughTheAPI).
	api func() error
}

// diffRun is a case of a difference as it ran.
type diffRun struct {
	c      *goldenCase
	inputs []hostArray
	got    []hostArray
	err    error
	// eval runs another tree on the case's inputs.
	eval func(n *node) ([]hostArray, error)
}

var differences = map[string]difference{
	"narrow-sum":    {row: "Sum, Prod of int8 … int32,", check: checkNarrowSum},
	"int-mean":      {row: "Mean of integers", check: checkIntMean},
	"mean-empty":    {row: "Mean, Var, Std, NanMean,", check: checkMeanEmpty, api: apiMeanEmpty},
	"int-div":       {row: "Div of integers", check: checkIntDiv},
	"promotion":     {row: "mixed element types", rewrite: castToPromoted},
	"clip":          {row: "clip with array bounds", rewrite: clipAsMinMax},
	"cast-saturate": {row: "Cast of floats to integers", check: checkCastSaturate},
	"linalg-tol": {row: "linalg.Lstsq, Pinv,",
		elsewhere: "linalg.TestGoldens: the lstsq and pinv cases with rcond -1 (linalg/testdata)"},
	"linalg-rank-empty": {row: "linalg.MatrixRank of an",
		elsewhere: "linalg.TestGoldens and linalg's argument tests"},
	"fft-repeated-axes": {row: "fft.fftn, ifftn, rfftn, …",
		elsewhere: "fft.TestErrors: the \"twice\" case"},
	"fft-real-pair": {row: "fft.rfft, irfft (and the",
		elsewhere: "fft.TestErrors: the \"rfft pair\" and \"irfft pair\" cases; fft.TestGoldens"},

	// checked through the API (differences_api_test.go) and, where a call
	// does not compile, by the type checker (differences_compile_test.go)
	"var-int":          {row: "Var, Std of integers", api: apiVarInt},
	"nan-int":          {row: "nansum, nanmean, nanmin,", api: apiNanInt},
	"any-all":          {row: "any, all", api: apiAnyAll},
	"norm-float32":     {row: "linalg.norm of float32", api: apiNormFloat32},
	"norm-svd":         {row: "linalg.norm ord=2, -2,", api: apiNormSVD},
	"triu-vector":      {row: "triu, tril of a vector", api: apiTriuVector},
	"diagonal":         {row: "diagonal", api: apiDiagonal},
	"einsum":           {row: "einsum", api: apiEinsum},
	"arange-float32":   {row: "arange with float32 params", api: apiArange},
	"str":              {row: "str(array)", api: apiStr},
	"bool-sum":         {row: "Sum, Mean of bool", api: apiBoolSum},
	"complex-cast":     {row: "Cast of complex to real", api: apiComplexCast},
	"complex-order":    {row: "Min, Max, ArgMin, ArgMax,", api: apiComplexOrder},
	"complex-abs":      {row: "abs of complex", api: apiComplexAbs},
	"float16-sum":      {row: "Sum, Mean of float16", api: apiFloat16Sum},
	"bfloat16":         {row: "bfloat16", api: apiBFloat16},
	"cumsum-narrow":    {row: "Cumsum, Cumprod of int8 …", api: apiCumsumNarrow},
	"cumsum-float32":   {row: "Cumsum, Cumprod of float32", api: apiCumsumFloat32},
	"sort-floats":      {row: "Sort of floats (values)", api: apiSortFloats},
	"descending":       {row: "Sort, Argsort Descending", api: apiDescending},
	"index-range":      {row: "an index out of range", api: apiIndexRange},
	"put-repeated":     {row: "Put with repeated indices", api: apiPutRepeated},
	"put-fewer":        {row: "Put with fewer values than", api: apiPutFewer},
	"indexadd-floats":  {row: "IndexAdd of floats at", api: apiIndexAddFloats},
	"masked-select":    {row: "MaskedSelect", api: apiMaskedSelect},
	"histogram-edges":  {row: "Histogram edges of float32", check: checkHistogramEdges, api: apiHistogramEdges},
	"bincount-weights": {row: "BincountWeights", api: apiBincountWeights},
	"sort-huge":        {row: "Sort, Argsort, Unique of", api: apiSortHuge},
}

// checkNarrowSum: Sum and Prod of int8 … uint32 fail with ErrArgument,
// naming SumAs/ProdAs; SumAs[int64] (ProdAs) is NumPy's sum (prod).
func checkNarrowSum(r *diffRun) error {
	as := r.c.Expr.Op + "As"
	if !errors.Is(r.err, gpuarr.ErrArgument) || !strings.Contains(r.err.Error(), as) {
		return fmt.Errorf("%s of %s: error %v, want one matching ErrArgument that names %s", r.c.Expr.Op, r.c.Expr.T, r.err, as)
	}
	alt := *r.c.Expr
	alt.Op, alt.T = as, r.c.Expr.R // NumPy's result type: int64 or uint64
	got, err := r.eval(&alt)
	if err != nil {
		return fmt.Errorf("%s[%s]: %w", as, alt.T, err)
	}
	want, err := r.c.Out[0].host()
	if err != nil {
		return err
	}
	if err := compareArrays(want, got[0], tolerance{}, false); err != nil {
		return fmt.Errorf("%s[%s] is not NumPy's %s: %w", as, alt.T, strings.ToLower(r.c.Expr.Op), err)
	}
	return nil
}

// checkIntMean: Mean of integers is the exact mean truncated toward zero,
// in T; NumPy's float64 mean agrees with the exact one; MeanAs[float64]
// is the exact mean within an ulp.
func checkIntMean(r *diffRun) error {
	if r.err != nil {
		return r.err
	}
	x, err := operandHost(r, r.c.Expr.A[0])
	if err != nil {
		return err
	}
	npMean, err := r.c.Out[0].host()
	if err != nil {
		return err
	}
	f := formats[x.t]
	groups := groupIndices(x.shape, axesOf(r.c.Expr, len(x.shape)))
	want := hostArray{t: x.t, shape: npMean.shape, raw: make([]byte, len(groups)*f.size)}
	means := make([]*big.Rat, len(groups))
	maxAbs := 0.0
	for g, idx := range groups {
		sum := new(big.Int)
		for _, i := range idx {
			v := f.integer(x.raw, i)
			sum.Add(sum, v)
			fv, _ := new(big.Float).SetInt(v).Float64()
			maxAbs = math.Max(maxAbs, math.Abs(fv))
		}
		means[g] = new(big.Rat).SetFrac(sum, big.NewInt(int64(len(idx))))
		putInt(want.raw[g*f.size:], f.size, new(big.Int).Quo(sum, big.NewInt(int64(len(idx)))))
	}
	// NumPy's answer is the float64 mean (its own summation error aside)
	df := formats["float64"]
	for g, m := range means {
		exact, _ := m.Float64()
		npv := df.float(npMean.raw, g)
		if slack := float64(len(groups[g])+2)*0x1p-52*maxAbs + 1e-9; math.Abs(npv-exact) > slack {
			return fmt.Errorf("golden: NumPy's mean %v is not the mean %v: the golden file does not match its row", npv, exact)
		}
	}
	if err := compareArrays(want, r.got[0], tolerance{}, false); err != nil {
		return fmt.Errorf("Mean of %s is not the truncated exact mean: %w", x.t, err)
	}
	alt := *r.c.Expr
	alt.Op, alt.T, alt.R = "MeanAs", "float64", "float64"
	got, err := r.eval(&alt)
	if err != nil {
		return fmt.Errorf("MeanAs[float64]: %w", err)
	}
	exact := hostArray{t: "float64", shape: npMean.shape, raw: make([]byte, 8*len(means))}
	for g, m := range means {
		v, _ := m.Float64()
		putFloat64(exact.raw[8*g:], v)
	}
	if err := compareArrays(exact, got[0], tolerance{ulps: 1, why: "1 ulp"}, false); err != nil {
		return fmt.Errorf("MeanAs[float64] is not the exact mean: %w", err)
	}
	return nil
}

// checkMeanEmpty: where NumPy's mean of no elements is NaN, gpuarr fails
// with ErrShape.
func checkMeanEmpty(r *diffRun) error {
	want, err := r.c.Out[0].host()
	if err != nil {
		return err
	}
	df := formats["float64"]
	for i := 0; i < want.len(); i++ {
		if !math.IsNaN(df.float(want.raw, i)) {
			return fmt.Errorf("golden: NumPy's mean[%d] = %v, want NaN: the golden file does not match its row", i, df.float(want.raw, i))
		}
	}
	if want.len() > 0 && !errors.Is(r.err, gpuarr.ErrShape) {
		return fmt.Errorf("Mean of no elements: error %v, want one matching ErrShape", r.err)
	}
	return nil
}

// checkIntDiv: Div of integers truncates toward zero (x/0 is 0, MinInt/-1
// is MinInt); NumPy's // (the golden) floors, and agrees where both
// operands have one sign or the division is exact.
func checkIntDiv(r *diffRun) error {
	if r.err != nil {
		return r.err
	}
	a, err := operandHost(r, r.c.Expr.A[0])
	if err != nil {
		return err
	}
	b, err := operandHost(r, r.c.Expr.A[1])
	if err != nil {
		return err
	}
	floor, err := r.c.Out[0].host()
	if err != nil {
		return err
	}
	f := formats[floor.t]
	want := hostArray{t: floor.t, shape: floor.shape, raw: make([]byte, len(floor.raw))}
	idx := make([]int, len(floor.shape))
	for i := 0; i < floor.len(); i++ {
		unflatten(i, floor.shape, idx)
		x := f.integer(a.raw, broadcastIndex(a.shape, floor.shape, idx))
		y := f.integer(b.raw, broadcastIndex(b.shape, floor.shape, idx))
		q, fl := new(big.Int), new(big.Int)
		if y.Sign() != 0 {
			var m big.Int
			q.QuoRem(x, y, &m)
			fl.Set(q)
			if m.Sign() != 0 && (x.Sign() < 0) != (y.Sign() < 0) {
				fl.Sub(fl, big.NewInt(1))
			}
		}
		putInt(want.raw[i*f.size:], f.size, q) // wraps MinInt/-1 to MinInt
		np := f.integer(floor.raw, i)
		var wrapped [8]byte
		putInt(wrapped[:], f.size, fl)
		if np.Cmp(f.integer(wrapped[:], 0)) != 0 {
			return fmt.Errorf("golden: NumPy's %v // %v = %v, want the floor %v: the golden file does not match its row", x, y, np, fl)
		}
	}
	if err := compareArrays(want, r.got[0], tolerance{}, false); err != nil {
		return fmt.Errorf("Div of %s is not Go's truncating division: %w", floor.t, err)
	}
	return nil
}

// checkCastSaturate: Cast of floats to integers truncates, saturates at
// the type's range and gives 0 for NaN; NumPy's answer (undefined out of
// range) agrees in range.
func checkCastSaturate(r *diffRun) error {
	if r.err != nil {
		return r.err
	}
	x, err := operandHost(r, r.c.Expr.A[0])
	if err != nil {
		return err
	}
	np, err := r.c.Out[0].host()
	if err != nil {
		return err
	}
	xf, f := formats[x.t], formats[np.t]
	lo, hi := intRange(f)
	want := hostArray{t: np.t, shape: np.shape, raw: make([]byte, len(np.raw))}
	for i := 0; i < np.len(); i++ {
		v := xf.float(x.raw, i)
		var q *big.Int
		inRange := false
		switch {
		case math.IsNaN(v):
			q = new(big.Int)
		case math.IsInf(v, 1):
			q = hi
		case math.IsInf(v, -1):
			q = lo
		default:
			q, _ = new(big.Float).SetFloat64(math.Trunc(v)).Int(nil)
			switch {
			case q.Cmp(lo) < 0:
				q = lo
			case q.Cmp(hi) > 0:
				q = hi
			default:
				inRange = true
			}
		}
		putInt(want.raw[i*f.size:], f.size, q)
		if inRange && f.integer(np.raw, i).Cmp(q) != 0 {
			return fmt.Errorf("golden: NumPy casts %v to %v, want %v in range: the golden file does not match its row", v, f.integer(np.raw, i), q)
		}
	}
	if err := compareArrays(want, r.got[0], tolerance{}, false); err != nil {
		return fmt.Errorf("Cast from %s to %s does not saturate: %w", x.t, np.t, err)
	}
	return nil
}

// checkHistogramEdges: Histogram of float32 data counts as NumPy does;
// its edges are float64 holding NumPy's float32 edges exactly.
func checkHistogramEdges(r *diffRun) error {
	if r.err != nil {
		return r.err
	}
	if len(r.got) != 2 || len(r.c.Out) != 2 {
		return fmt.Errorf("Histogram: %d results (golden %d), want counts and edges", len(r.got), len(r.c.Out))
	}
	counts, err := r.c.Out[0].host()
	if err != nil {
		return err
	}
	if err := compareArrays(counts, r.got[0], tolerance{}, false); err != nil {
		return fmt.Errorf("Histogram counts: %w", err)
	}
	np, err := r.c.Out[1].host()
	if err != nil {
		return err
	}
	if np.t != "float32" {
		return fmt.Errorf("golden: NumPy's edges are %s, want float32: the golden file does not match its row", np.t)
	}
	f := formats[np.t]
	want := hostArray{t: "float64", shape: np.shape, raw: make([]byte, 8*np.len())}
	for i := 0; i < np.len(); i++ {
		putFloat64(want.raw[8*i:], f.float(np.raw, i))
	}
	if err := compareArrays(want, r.got[1], tolerance{}, false); err != nil {
		return fmt.Errorf("Histogram edges are not NumPy's float32 edges as float64: %w", err)
	}
	return nil
}

// castToPromoted writes out the Cast a Go user needs where NumPy promotes:
// each operand of another type than the node's (NumPy's promoted type)
// converted to it.
func castToPromoted(n *node) *node {
	m := *n
	m.A = make([]*node, len(n.A))
	for i, a := range n.A {
		if a.R != n.T {
			m.A[i] = &node{Op: "Cast", T: n.T, R: n.T, A: []*node{a}}
		} else {
			m.A[i] = a
		}
	}
	return &m
}

// clipAsMinMax writes NumPy's clip with array bounds as a gpuarr user
// does: Minimum(Maximum(x, lo), hi).
func clipAsMinMax(n *node) *node {
	mx := &node{Op: "Maximum", T: n.T, R: n.R, A: []*node{n.A[0], n.A[1]}}
	return &node{Op: "Minimum", T: n.T, R: n.R, A: []*node{mx, n.A[2]}}
}

// ------------------------------------------------------------ host math

// operandHost is the value of an operand that is an input or a scalar.
func operandHost(r *diffRun, n *node) (hostArray, error) {
	switch n.Op {
	case "in":
		return r.inputs[n.int("i")], nil
	case "Scalar":
		return hostArray{t: n.T, shape: []int{}, raw: n.bytes("v")}, nil
	}
	return hostArray{}, fmt.Errorf("difference cases take inputs or scalars as operands, not %s", n.Op)
}

func intRange(f format) (lo, hi *big.Int) {
	bits := uint(8 * f.size)
	if f.kind == kindUnsigned {
		return new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits), big.NewInt(1))
	}
	h := new(big.Int).Lsh(big.NewInt(1), bits-1)
	return new(big.Int).Neg(h), new(big.Int).Sub(h, big.NewInt(1))
}

func putFloat64(dst []byte, v float64) {
	b := math.Float64bits(v)
	for i := 0; i < 8; i++ {
		dst[i] = byte(b >> (8 * i))
	}
}

// unflatten writes the row-major multi-index of flat index i.
func unflatten(i int, shape, idx []int) {
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = i % shape[d]
		i /= shape[d]
	}
}

// broadcastIndex is the flat index in an operand of shape sh of the
// element that broadcasts to index idx of shape out.
func broadcastIndex(sh, out, idx []int) int {
	off := len(out) - len(sh)
	flat := 0
	for d, e := range sh {
		i := idx[off+d]
		if e == 1 {
			i = 0
		}
		flat = flat*e + i
	}
	return flat
}

// axesOf is a reduction node's axes (all of them without an axis
// attribute), non-negative.
func axesOf(n *node, rank int) []bool {
	red := make([]bool, rank)
	if !n.has("axis") {
		for d := range red {
			red[d] = true
		}
		return red
	}
	for _, a := range n.ints("axis") {
		if a < 0 {
			a += rank
		}
		red[a] = true
	}
	return red
}

// groupIndices lists, for each result element of a reduction over the
// axes marked in red (row-major over the kept axes), the flat indices of
// its elements.
func groupIndices(shape []int, red []bool) [][]int {
	var keptShape []int
	for d, e := range shape {
		if !red[d] {
			keptShape = append(keptShape, e)
		}
	}
	groups := 1
	for _, e := range keptShape {
		groups *= e
	}
	out := make([][]int, groups)
	n := 1
	for _, e := range shape {
		n *= e
	}
	idx := make([]int, len(shape))
	for i := 0; i < n; i++ {
		unflatten(i, shape, idx)
		g := 0
		for d, e := range shape {
			if !red[d] {
				g = g*e + idx[d]
			}
		}
		out[g] = append(out[g], i)
	}
	return out
}
