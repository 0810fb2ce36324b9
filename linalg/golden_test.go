package linalg_test

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/linalg"
)

// The differential suite: testdata/goldens.json.gz holds inputs and
// NumPy's (SciPy's for lu and cho_solve) outputs, written by
// testdata/gen_goldens.py. Each case runs on the selected device and is
// compared with the golden, within tolerances scaled by the case's
// condition number or norm; factorizations are also checked by their
// reconstruction and orthogonality.

type goldenArray struct {
	Shape []int `json:"shape"`
	Data  []any `json:"data"`
}

type goldenCase struct {
	Name    string                 `json:"name"`
	Op      string                 `json:"op"`
	DType   string                 `json:"dtype"`
	Inputs  map[string]goldenArray `json:"inputs"`
	Outputs map[string]goldenArray `json:"outputs"`
	Params  struct {
		Tri   string   `json:"tri"`
		Full  bool     `json:"full"`
		Mode  string   `json:"mode"`
		Rcond *float64 `json:"rcond"`
		Tol   *float64 `json:"tol"`
	} `json:"params"`
	Error *struct {
		Kind  string `json:"kind"`
		Index []int  `json:"index"`
		Info  int    `json:"info"`
	} `json:"error"`
	Scale float64 `json:"scale"`
}

func loadGoldens(t *testing.T) []goldenCase {
	t.Helper()
	f, err := os.Open("testdata/goldens.json.gz")
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	dec := json.NewDecoder(z)
	dec.UseNumber()
	var doc struct {
		Cases []goldenCase `json:"cases"`
	}
	require.NoError(t, dec.Decode(&doc))
	require.NotEmpty(t, doc.Cases)
	return doc.Cases
}

// values parses the data with T's rounding (float32 data is written with
// the digits that give back each float32).
func values[T linalg.Float](t *testing.T, g goldenArray) []T {
	t.Helper()
	var zero T
	bits := 64
	if _, ok := any(zero).(float32); ok {
		bits = 32
	}
	out := make([]T, len(g.Data))
	for i, d := range g.Data {
		var s string
		switch d := d.(type) {
		case json.Number:
			s = d.String()
		case string:
			s = d
		default:
			t.Fatalf("golden value %v of type %T", d, d)
		}
		v, err := strconv.ParseFloat(s, bits)
		require.NoError(t, err)
		out[i] = T(v)
	}
	return out
}

func upload[T linalg.Float](t *testing.T, g goldenArray) *gpuarr.Array[T] {
	t.Helper()
	a, err := gpuarr.FromSlice(values[T](t, g), gpuarr.Shape(g.Shape))
	require.NoError(t, err)
	t.Cleanup(func() { a.Release() })
	return a
}

// host reads a back as float64.
func host[T gpuarr.Numeric](t *testing.T, a *gpuarr.Array[T]) ([]float64, []int) {
	t.Helper()
	require.NotNil(t, a)
	v, err := a.ToSlice()
	require.NoError(t, err)
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out, a.Shape()
}

func epsOf[T linalg.Float]() float64 {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return 0x1p-23
	}
	return 0x1p-52
}

// closeTo checks got against want normwise: max |got−want| ≤ tol ·
// max(1, max |want|), with NaN and infinities required to match exactly.
func closeTo(t *testing.T, what string, got []float64, gotShape []int, want goldenArray, tol float64) {
	t.Helper()
	require.Equal(t, want.Shape, normShape(gotShape), "%s: shape", what)
	w := values[float64](t, want)
	scale := 1.0
	for _, x := range w {
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			scale = max(scale, math.Abs(x))
		}
	}
	worst, at := 0.0, -1
	for i := range w {
		g, x := got[i], w[i]
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if !(math.IsNaN(x) && math.IsNaN(g)) && g != x {
				t.Errorf("%s[%d] = %v, want %v", what, i, g, x)
			}
			continue
		}
		if d := math.Abs(g - x); d > worst || math.IsNaN(d) {
			worst, at = d, i
			if math.IsNaN(d) {
				worst = math.Inf(1)
			}
		}
	}
	if worst > tol*scale {
		t.Errorf("%s: max error %.3g (at %d: got %v, want %v) above %.3g·%.3g", what, worst, at, got[at], w[at], tol, scale)
	}
}

func normShape(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

func TestGoldens(t *testing.T) {
	for _, c := range loadGoldens(t) {
		t.Run(c.Name, func(t *testing.T) {
			switch c.DType {
			case "float32":
				runGolden[float32](t, c)
			case "float64":
				runGolden[float64](t, c)
			default:
				t.Fatalf("dtype %q", c.DType)
			}
		})
	}
}

func triangle(s string) linalg.Triangle {
	if s == "U" {
		return linalg.Upper
	}
	return linalg.Lower
}

func tolParam(p *float64) float64 {
	if p == nil {
		return linalg.DefaultTol
	}
	return *p
}

func runGolden[T linalg.Float](t *testing.T, c goldenCase) {
	eps := epsOf[T]()
	first := "a"
	if c.Op == "cholesky_solve" {
		first = "c"
	}
	a := upload[T](t, c.Inputs[first])
	ash := c.Inputs[first].Shape
	n := 1
	if len(ash) >= 2 {
		n = max(1, ash[len(ash)-1], ash[len(ash)-2])
	}
	// Solutions move with the condition number; values with the norm.
	solTol := 8 * float64(n) * eps * max(1, c.Scale)
	valTol := 8 * float64(n) * eps
	out := map[string]*gpuarr.Array[T]{}
	var rank64 *gpuarr.Array[int64]
	var rank int
	var err error
	switch c.Op {
	case "solve":
		out["x"], err = linalg.Solve(a, upload[T](t, c.Inputs["b"]))
	case "inv":
		out["x"], err = linalg.Inv(a)
	case "det":
		if _, ok := c.Outputs["det"]; ok {
			out["det"], err = linalg.Det(a)
			require.NoError(t, err)
		}
		out["sign"], out["logabsdet"], err = linalg.Slogdet(a)
	case "cholesky":
		out["l"], err = linalg.Cholesky(a, triangle(c.Params.Tri))
	case "cholesky_solve":
		out["x"], err = linalg.CholeskySolve(a, upload[T](t, c.Inputs["b"]), triangle(c.Params.Tri))
	case "lu":
		out["p"], out["l"], out["u"], err = linalg.LU(a)
	case "qr":
		mode := map[string]linalg.QRMode{"reduced": linalg.Reduced, "complete": linalg.Complete, "r": linalg.ROnly}[c.Params.Mode]
		out["q"], out["r"], err = linalg.QR(a, mode)
	case "svd":
		out["u"], out["s"], out["vh"], err = linalg.SVD(a, c.Params.Full)
	case "svdvals":
		out["s"], err = linalg.SVDVals(a)
	case "eigh":
		out["w"], out["v"], err = linalg.Eigh(a, triangle(c.Params.Tri))
	case "eigvalsh":
		out["w"], err = linalg.Eigvalsh(a, triangle(c.Params.Tri))
	case "lstsq":
		out["x"], out["residuals"], rank, out["s"], err = linalg.Lstsq(a, upload[T](t, c.Inputs["b"]), tolParam(c.Params.Rcond))
	case "pinv":
		out["x"], err = linalg.Pinv(a, tolParam(c.Params.Rcond))
	case "matrix_rank":
		rank64, err = linalg.MatrixRank(a, tolParam(c.Params.Tol))
	default:
		t.Fatalf("op %q", c.Op)
	}
	for _, x := range out {
		if x != nil {
			t.Cleanup(func() { x.Release() })
		}
	}
	if c.Error != nil {
		checkGoldenError(t, err, c)
		return
	}
	require.NoError(t, err)
	switch c.Op {
	case "solve", "inv", "cholesky_solve", "pinv":
		got, sh := host(t, out["x"])
		closeTo(t, "x", got, sh, c.Outputs["x"], solTol)
		if c.Op == "solve" {
			checkSolveResidual[T](t, c, got)
		}
	case "det":
		for _, k := range []string{"det", "sign", "logabsdet"} {
			if x := out[k]; x != nil {
				got, sh := host(t, x)
				tol := solTol
				if k == "logabsdet" {
					tol = solTol // an absolute error in the logarithm is a relative one in |det|
				}
				closeTo(t, k, got, sh, c.Outputs[k], tol)
			}
		}
	case "cholesky":
		got, sh := host(t, out["l"])
		closeTo(t, "l", got, sh, c.Outputs["l"], solTol)
		checkCholesky[T](t, c, got, sh)
	case "lu":
		for _, k := range []string{"p", "l", "u"} {
			got, sh := host(t, out[k])
			closeTo(t, k, got, sh, c.Outputs[k], solTol)
		}
		checkLU[T](t, c, out)
	case "qr":
		checkQR[T](t, c, out, valTol)
	case "svd", "svdvals":
		got, sh := host(t, out["s"])
		closeTo(t, "s", got, sh, c.Outputs["s"], valTol*max(1, c.Scale))
		if c.Op == "svd" {
			checkSVD[T](t, c, out, valTol)
		}
	case "eigh", "eigvalsh":
		got, sh := host(t, out["w"])
		closeTo(t, "w", got, sh, c.Outputs["w"], valTol*max(1, c.Scale))
		if c.Op == "eigh" {
			checkEigh[T](t, c, out, valTol)
		}
	case "lstsq":
		for _, k := range []string{"x", "residuals", "s"} {
			got, sh := host(t, out[k])
			closeTo(t, k, got, sh, c.Outputs[k], solTol)
		}
		want := values[float64](t, c.Outputs["rank"])
		assert.Equal(t, int(want[0]), rank, "rank")
	case "matrix_rank":
		got, sh := host(t, rank64)
		closeTo(t, "rank", got, sh, c.Outputs["rank"], 0)
	}
}

func checkGoldenError(t *testing.T, err error, c goldenCase) {
	t.Helper()
	require.Error(t, err)
	kind := map[string]error{"singular": linalg.ErrSingular, "notpd": linalg.ErrNotPositiveDefinite, "noconv": linalg.ErrNoConvergence}[c.Error.Kind]
	require.ErrorIs(t, err, kind)
	var e *linalg.Error
	require.True(t, errors.As(err, &e), "%v is not a *linalg.Error", err)
	assert.Equal(t, normShape(c.Error.Index), normShape(e.Index), "index")
	if c.Error.Info >= 0 {
		assert.Equal(t, c.Error.Info, e.Info, "info")
	}
	assert.Contains(t, err.Error(), "linalg.")
}

// checkSolveResidual checks the backward error the issue asks for:
// ‖a·x − b‖ / (‖a‖·‖x‖) ≤ n·ε (infinity norms), for each system.
func checkSolveResidual[T linalg.Float](t *testing.T, c goldenCase, x []float64) {
	ag, bg := c.Inputs["a"], c.Inputs["b"]
	a, b := values[T](t, ag), values[T](t, bg)
	n := ag.Shape[len(ag.Shape)-1]
	if n == 0 || len(x) == 0 {
		return
	}
	k := 1
	if len(bg.Shape) > 1 {
		k = bg.Shape[len(bg.Shape)-1]
	}
	count := len(x) / (n * k)
	aCount := len(a) / (n * n)
	bCount := len(b) / (n * k)
	eps := epsOf[T]()
	for i := range count {
		am := a[(i%aCount)*n*n:]
		bm := b[(i%bCount)*n*k:]
		xm := x[i*n*k:]
		var anorm, xnorm, rnorm float64
		for r := range n {
			var row float64
			for j := range n {
				row += math.Abs(float64(am[r*n+j]))
			}
			anorm = max(anorm, row)
		}
		for col := range k {
			for r := range n {
				xnorm = max(xnorm, math.Abs(xm[r*k+col]))
				s := -float64(bm[r*k+col])
				for j := range n {
					s += float64(am[r*n+j]) * xm[j*k+col]
				}
				rnorm = max(rnorm, math.Abs(s))
			}
		}
		if ratio := rnorm / (anorm * xnorm); ratio > float64(n)*eps {
			t.Errorf("system %d: ‖ax−b‖/(‖a‖‖x‖) = %.3g, above n·ε = %.3g", i, ratio, float64(n)*eps)
		}
	}
}

// rmat is a row-major stack of r×c float64 matrices.
type rmat struct {
	v    []float64
	r, c int
}

func stackOf(v []float64, sh []int) rmat {
	return rmat{v, sh[len(sh)-2], sh[len(sh)-1]}
}

func (m rmat) count() int {
	if m.r*m.c == 0 {
		return 0
	}
	return len(m.v) / (m.r * m.c)
}

func (m rmat) at(b, i, j int) float64 { return m.v[b*m.r*m.c+i*m.c+j] }

// mul is a·b for matrix b of each stack (bt: use bᵀ).
func mul(a rmat, b rmat, bt bool) rmat {
	br, bc := b.r, b.c
	if bt {
		br, bc = bc, br
	}
	out := rmat{make([]float64, a.count()*a.r*bc), a.r, bc}
	for s := range a.count() {
		for i := range a.r {
			for j := range bc {
				var sum float64
				for l := range a.c {
					bv := 0.0
					if bt {
						bv = b.at(s, j, l)
					} else {
						bv = b.at(s, l, j)
					}
					sum += a.at(s, i, l) * bv
				}
				out.v[s*a.r*bc+i*bc+j] = sum
			}
		}
	}
	_ = br
	return out
}

// maxDiff is max |a−b| over all elements.
func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
		if math.IsNaN(a[i] - b[i]) {
			return math.Inf(1)
		}
	}
	return d
}

func maxAbs(a []float64) float64 {
	m := 0.0
	for _, x := range a {
		m = max(m, math.Abs(x))
	}
	return m
}

// orthonormalCols checks QᵀQ = I for the columns of each matrix.
func orthonormalCols(t *testing.T, what string, q rmat, tol float64) {
	t.Helper()
	qtq := mul(transposeStack(q), q, false)
	for s := range qtq.count() {
		for i := range qtq.r {
			for j := range qtq.c {
				want := 0.0
				if i == j {
					want = 1
				}
				if d := math.Abs(qtq.at(s, i, j) - want); d > tol {
					t.Errorf("%s: (QᵀQ)[%d][%d,%d] off the identity by %.3g, above %.3g", what, s, i, j, d, tol)
					return
				}
			}
		}
	}
}

func transposeStack(m rmat) rmat {
	out := rmat{make([]float64, len(m.v)), m.c, m.r}
	for s := range m.count() {
		for i := range m.r {
			for j := range m.c {
				out.v[s*m.r*m.c+j*m.r+i] = m.at(s, i, j)
			}
		}
	}
	return out
}

func checkReconstruction(t *testing.T, what string, got, a []float64, tol float64) {
	t.Helper()
	if d := maxDiff(got, a); d > tol*max(1, maxAbs(a)) {
		t.Errorf("%s: reconstruction off by %.3g, above %.3g·%.3g", what, d, tol, max(1, maxAbs(a)))
	}
}

func checkCholesky[T linalg.Float](t *testing.T, c goldenCase, l []float64, sh []int) {
	if len(l) == 0 {
		return
	}
	lm := stackOf(l, sh)
	var llt rmat
	if c.Params.Tri == "U" {
		llt = mul(transposeStack(lm), lm, false)
	} else {
		llt = mul(lm, lm, true)
	}
	a := values[float64](t, c.Inputs["a"])
	// Only the triangle read counts (the golden may hold garbage in the
	// other): compare the symmetric matrix it defines.
	am := stackOf(a, c.Inputs["a"].Shape)
	for s := range am.count() {
		for i := range am.r {
			for j := range am.c {
				if (c.Params.Tri == "U") == (i > j) {
					am.v[s*am.r*am.c+i*am.c+j] = am.at(s, j, i)
				}
			}
		}
	}
	checkReconstruction(t, "L·Lᵀ", llt.v, am.v, 8*float64(lm.r)*epsOf[T]())
	for s := range lm.count() {
		for i := range lm.r {
			for j := range lm.c {
				if (c.Params.Tri == "U") == (i > j) && i != j {
					require.Zero(t, lm.at(s, i, j), "the other triangle of the factor")
				}
			}
		}
	}
}

func checkLU[T linalg.Float](t *testing.T, c goldenCase, out map[string]*gpuarr.Array[T]) {
	p, psh := host(t, out["p"])
	l, lsh := host(t, out["l"])
	u, ush := host(t, out["u"])
	if len(l) == 0 || len(u) == 0 {
		return
	}
	plu := mul(stackOf(p, psh), mul(stackOf(l, lsh), stackOf(u, ush), false), false)
	checkReconstruction(t, "P·L·U", plu.v, values[float64](t, c.Inputs["a"]), 8*float64(max(lsh[len(lsh)-2], ush[len(ush)-1]))*epsOf[T]())
}

// signs aligns each column i of x with column i of ref (their dot
// product made nonnegative) and returns x with its columns flipped.
func alignCols(x, ref rmat) rmat {
	out := rmat{append([]float64(nil), x.v...), x.r, x.c}
	for s := range x.count() {
		for j := range min(x.c, ref.c) {
			dot := 0.0
			for i := range x.r {
				dot += x.at(s, i, j) * ref.at(s, i, j)
			}
			if dot < 0 {
				for i := range x.r {
					out.v[s*x.r*x.c+i*x.c+j] = -x.at(s, i, j)
				}
			}
		}
	}
	return out
}

func checkQR[T linalg.Float](t *testing.T, c goldenCase, out map[string]*gpuarr.Array[T], tol float64) {
	a := values[float64](t, c.Inputs["a"])
	r, rsh := host(t, out["r"])
	require.Equal(t, c.Outputs["r"].Shape, normShape(rsh))
	rm := stackOf(r, rsh)
	for s := range rm.count() {
		for i := range rm.r {
			for j := range min(i, rm.c) {
				require.Zero(t, rm.at(s, i, j), "R below its diagonal")
			}
		}
	}
	wr := stackOf(values[float64](t, c.Outputs["r"]), c.Outputs["r"].Shape)
	// R's rows are unique up to sign: align them with NumPy's.
	aligned := transposeStack(alignCols(transposeStack(rm), transposeStack(wr)))
	closeTo(t, "r (rows up to sign)", aligned.v, rsh, c.Outputs["r"], tol*max(1, c.Scale))
	if c.Params.Mode == "r" {
		require.Nil(t, out["q"])
		return
	}
	q, qsh := host(t, out["q"])
	require.Equal(t, c.Outputs["q"].Shape, normShape(qsh))
	qm := stackOf(q, qsh)
	orthonormalCols(t, "Q", qm, tol)
	if len(r) > 0 && len(q) > 0 {
		checkReconstruction(t, "Q·R", mul(qm, rm, false).v, a, tol)
	}
}

// gapTol is the tolerance for singular or eigen vector i of a spectrum
// vals (sorted either way), or 0 when the vector is not determined well
// enough to compare (a near-multiple value).
func gapTol(vals []float64, i int, tol, scale float64) float64 {
	gap := math.Inf(1)
	if i > 0 {
		gap = math.Abs(vals[i] - vals[i-1])
	}
	if i+1 < len(vals) {
		gap = min(gap, math.Abs(vals[i+1]-vals[i]))
	}
	vt := tol * scale / gap
	if vt > 0.05 {
		return 0
	}
	return max(vt, tol)
}

// compareVectors compares columns of got with those of want up to sign,
// each with its gap's tolerance.
func compareVectors(t *testing.T, what string, got, want rmat, vals []float64, perMatrix int, tol, scale float64) {
	t.Helper()
	aligned := alignCols(got, want)
	for s := range got.count() {
		sv := vals[s*perMatrix : (s+1)*perMatrix]
		for j := range min(got.c, len(sv)) {
			vt := gapTol(sv, j, tol, scale)
			if vt == 0 {
				continue
			}
			for i := range got.r {
				if d := math.Abs(aligned.at(s, i, j) - want.at(s, i, j)); d > 8*vt {
					t.Errorf("%s: matrix %d vector %d element %d off by %.3g, above %.3g", what, s, j, i, d, 8*vt)
					return
				}
			}
		}
	}
}

func checkSVD[T linalg.Float](t *testing.T, c goldenCase, out map[string]*gpuarr.Array[T], tol float64) {
	a := values[float64](t, c.Inputs["a"])
	u, ush := host(t, out["u"])
	s, _ := host(t, out["s"])
	vh, vsh := host(t, out["vh"])
	require.Equal(t, c.Outputs["u"].Shape, normShape(ush))
	require.Equal(t, c.Outputs["vh"].Shape, normShape(vsh))
	um, vm := stackOf(u, ush), stackOf(vh, vsh)
	orthonormalCols(t, "U", um, tol)
	orthonormalCols(t, "Vᵀ rows", transposeStack(vm), tol)
	k := min(c.Inputs["a"].Shape[len(ush)-2], c.Inputs["a"].Shape[len(ush)-1])
	if k == 0 || len(a) == 0 {
		return
	}
	// u[:, :k]·diag(s)·vh[:k, :].
	count := um.count()
	us := rmat{make([]float64, count*um.r*k), um.r, k}
	for b := range count {
		for i := range um.r {
			for j := range k {
				us.v[b*um.r*k+i*k+j] = um.at(b, i, j) * s[b*k+j]
			}
		}
	}
	vk := rmat{make([]float64, count*k*vm.c), k, vm.c}
	for b := range count {
		copy(vk.v[b*k*vm.c:(b+1)*k*vm.c], vm.v[b*vm.r*vm.c:b*vm.r*vm.c+k*vm.c])
	}
	checkReconstruction(t, "U·S·Vᵀ", mul(us, vk, false).v, a, tol*max(1, c.Scale))
	ws := values[float64](t, c.Outputs["s"])
	compareVectors(t, "u", um, stackOf(values[float64](t, c.Outputs["u"]), c.Outputs["u"].Shape), ws, k, tol, c.Scale)
	compareVectors(t, "vh", transposeStack(vm), transposeStack(stackOf(values[float64](t, c.Outputs["vh"]), c.Outputs["vh"].Shape)), ws, k, tol, c.Scale)
}

func checkEigh[T linalg.Float](t *testing.T, c goldenCase, out map[string]*gpuarr.Array[T], tol float64) {
	w, _ := host(t, out["w"])
	v, vsh := host(t, out["v"])
	if len(v) == 0 {
		require.Equal(t, c.Outputs["v"].Shape, normShape(vsh))
		return
	}
	vm := stackOf(v, vsh)
	orthonormalCols(t, "V", vm, tol)
	sym := c.Inputs["a"]
	if g, ok := c.Outputs["sym"]; ok {
		sym = g
	}
	am := stackOf(values[float64](t, sym), sym.Shape)
	av := mul(am, vm, false)
	vw := rmat{append([]float64(nil), v...), vm.r, vm.c}
	for b := range vm.count() {
		for i := range vm.r {
			for j := range vm.c {
				vw.v[b*vm.r*vm.c+i*vm.c+j] *= w[b*vm.c+j]
			}
		}
	}
	checkReconstruction(t, "A·V − V·diag(w)", av.v, vw.v, tol*max(1, c.Scale))
	compareVectors(t, "v", vm, stackOf(values[float64](t, c.Outputs["v"]), c.Outputs["v"].Shape), values[float64](t, c.Outputs["w"]), vm.c, tol, c.Scale)
}

func TestGoldenFileCoversEveryFunction(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range loadGoldens(t) {
		seen[c.Op+"/"+c.DType] = true
	}
	for _, op := range []string{"solve", "inv", "det", "cholesky", "cholesky_solve", "lu", "qr", "svd", "svdvals",
		"eigh", "eigvalsh", "lstsq", "pinv", "matrix_rank"} {
		for _, dt := range []string{"float32", "float64"} {
			assert.True(t, seen[op+"/"+dt], fmt.Sprintf("no golden for %s %s", op, dt))
		}
	}
}
