package gpuarr_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// The array language against NumPy: testdata/lang_goldens.json.gz holds
// inputs and NumPy's (SciPy's for logsumexp) outputs, written by
// testdata/gen_lang.py. Each case runs on the selected device.

type langArray struct {
	Shape []int `json:"shape"`
	Data  []any `json:"data"`
}

type langCase struct {
	Op      string          `json:"op"`
	DType   string          `json:"dtype"`
	Inputs  []langArray     `json:"inputs"`
	Outputs []langArray     `json:"outputs"`
	Params  json.RawMessage `json:"params"`
}

// langParams are every case's parameters (each op reads its own).
type langParams struct {
	Items    [][]any `json:"items"`
	First    [][]any `json:"first"`
	Second   [][]any `json:"second"`
	New      []int   `json:"new"`
	View     bool    `json:"view"`
	Axes     []int   `json:"axes"`
	To       []int   `json:"to"`
	Offset   int     `json:"offset"`
	Axis1    int     `json:"axis1"`
	Axis2    int     `json:"axis2"`
	Shift    int     `json:"shift"`
	K        int     `json:"k"`
	Start    any     `json:"start"`
	Stop     any     `json:"stop"`
	Step     any     `json:"step"`
	Num      int     `json:"num"`
	Endpoint bool    `json:"endpoint"`
	N        int     `json:"n"`
	M        int     `json:"m"`
	Ddof     int     `json:"ddof"`
	KeepDims bool    `json:"keepdims"`
	Scale    float64 `json:"scale"`
	Ord      any     `json:"ord"`
	Subs     string  `json:"subs"`
	TA       string  `json:"ta"`
	TB       string  `json:"tb"`
}

func loadLangGoldens(t *testing.T) []langCase {
	t.Helper()
	f, err := os.Open("testdata/lang_goldens.json.gz")
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	var doc struct {
		Cases []langCase `json:"cases"`
	}
	require.NoError(t, json.NewDecoder(z).Decode(&doc))
	require.NotEmpty(t, doc.Cases)
	return doc.Cases
}

// num parses a golden number ("nan", "inf", "-inf" or a JSON number).
func num(v any) float64 {
	switch v := v.(type) {
	case float64:
		return v
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			panic(err)
		}
		return f
	case nil:
		return math.NaN()
	}
	panic(fmt.Sprintf("golden number %v", v))
}

func goldenData[T gpuarr.Numeric](g langArray) []T {
	out := make([]T, len(g.Data))
	for i, d := range g.Data {
		out[i] = T(num(d))
	}
	return out
}

func goldenFloats(g langArray) []float64 {
	out := make([]float64, len(g.Data))
	for i, d := range g.Data {
		out[i] = num(d)
	}
	return out
}

// goldenIndex turns the generator's items into gpuarr's Index values.
func goldenIndex(items [][]any) []gpuarr.Index {
	var idx []gpuarr.Index
	for _, it := range items {
		switch it[0] {
		case "at":
			idx = append(idx, gpuarr.At(int(num(it[1]))))
		case "colon":
			idx = append(idx, gpuarr.Colon)
		case "newaxis":
			idx = append(idx, gpuarr.NewAxis)
		case "ellipsis":
			idx = append(idx, gpuarr.Ellipsis)
		case "s":
			var r gpuarr.Range
			start, stop := it[1], it[2]
			switch {
			case start != nil && stop != nil:
				r = gpuarr.S(int(num(start)), int(num(stop)))
			case start != nil:
				r = gpuarr.From(int(num(start)))
			case stop != nil:
				r = gpuarr.To(int(num(stop)))
			default:
				r = gpuarr.Every(1)
			}
			if len(it) > 3 && it[3] != nil {
				r = r.Step(int(num(it[3])))
			}
			idx = append(idx, r)
		default:
			panic(fmt.Sprintf("item %v", it))
		}
	}
	return idx
}

// axisOpts are Axis options for axes (nil: none).
func axisOpts(axes []int) []gpuarr.Option {
	var o []gpuarr.Option
	for _, a := range axes {
		o = append(o, gpuarr.Axis(a))
	}
	return o
}

// closeTo asserts got matches want elementwise: NaN where NaN, equal
// infinities, else within rel·|want| + abs.
func closeTo[T gpuarr.Numeric](t *testing.T, want []float64, got []T, rel, abs float64, msg string) {
	t.Helper()
	require.Len(t, got, len(want), msg)
	for i, w := range want {
		g := float64(got[i])
		switch {
		case math.IsNaN(w):
			require.True(t, math.IsNaN(g), "%s: element %d is %v, want NaN", msg, i, g)
		case math.IsInf(w, 0):
			require.Equal(t, w, g, "%s: element %d", msg, i)
		default:
			require.InDelta(t, w, g, rel*math.Abs(w)+abs, "%s: element %d", msg, i)
		}
	}
}

func TestLanguageGoldens(t *testing.T) {
	counts := map[string]int{}
	for i, c := range loadLangGoldens(t) {
		var p langParams
		require.NoError(t, json.Unmarshal(c.Params, &p))
		name := fmt.Sprintf("%d %s %s %s", i, c.Op, c.DType, c.Params)
		switch c.DType {
		case "float32":
			runLangCase[float32](t, name, c, p)
		case "float64":
			runLangCase[float64](t, name, c, p)
		case "int32":
			runLangCase[int32](t, name, c, p)
		case "int64":
			runLangCase[int64](t, name, c, p)
		case "uint8":
			runLangCase[uint8](t, name, c, p)
		default:
			t.Fatalf("%s: dtype %s", name, c.DType)
		}
		counts[c.Op]++
	}
	t.Logf("cases per op: %v", counts)
}

// langTolerance is the relative tolerance for T's results.
func langTolerance[T gpuarr.Numeric]() float64 {
	var z T
	switch any(z).(type) {
	case float32:
		return 4e-6
	case float64:
		return 1e-12
	}
	return 0
}

func runLangCase[T gpuarr.Numeric](t *testing.T, name string, c langCase, p langParams) {
	var in []*gpuarr.Array[T]
	for _, g := range c.Inputs {
		a := must(gpuarr.FromSlice(goldenData[T](g), gpuarr.Shape(g.Shape)))
		defer a.Release()
		in = append(in, a)
	}
	want := c.Outputs[0]
	rel := langTolerance[T]()
	abs := rel * 1e-3
	switch c.Op {
	case "matmul", "dot", "einsum":
		// Sums of products of inputs in [-2, 2]: errors scale with Σ|products|.
		abs = rel * 16
	}
	check := func(got *gpuarr.Array[T], err error) {
		t.Helper()
		require.NoError(t, err, name)
		defer got.Release()
		requireShape(t, want.Shape, got, name)
		closeTo(t, goldenFloats(want), values(t, got), rel, abs, name)
	}
	switch c.Op {
	case "index":
		v, err := in[0].Index(goldenIndex(p.Items)...)
		require.NoError(t, err, name)
		requireShape(t, want.Shape, v, name)
		assert.Equal(t, goldenData[T](want), values(t, v), name)
		// x[items] = -(x[items] + 1000), through the view.
		require.NoError(t, gpuarr.EvalInto(v, gpuarr.Neg(gpuarr.Add(v, gpuarr.Scalar(T(100)*T(10))))), name)
		assert.Equal(t, goldenData[T](c.Outputs[1]), values(t, in[0]), name)
		require.NoError(t, v.Release())
	case "index2":
		v1 := must(in[0].Index(goldenIndex(p.First)...))
		defer v1.Release()
		check(v1.Index(goldenIndex(p.Second)...))
	case "reshape_view", "reshape_t":
		var v *gpuarr.Array[T]
		if c.Op == "reshape_t" {
			v = must(in[0].Transpose())
		} else {
			v = must(in[0].Index(goldenIndex(p.Items)...))
		}
		defer v.Release()
		r := must(v.Reshape(gpuarr.Shape(p.New)))
		defer r.Release()
		requireShape(t, want.Shape, r, name)
		assert.Equal(t, goldenData[T](want), values(t, r), name)
		// A view writes through to x, NumPy's copy does not.
		before := values(t, in[0])
		require.NoError(t, gpuarr.EvalInto(r, gpuarr.Scalar[T](77)), name)
		changed := false
		for i, x := range values(t, in[0]) {
			changed = changed || x != before[i]
		}
		assert.Equal(t, p.View, changed, "%s: a view exactly when NumPy's reshape gives one", name)
	case "squeeze":
		check(in[0].Squeeze(p.Axes...))
	case "expand_dims":
		check(in[0].ExpandDims(p.Axes...))
	case "flip":
		check(in[0].Flip(p.Axes...))
	case "broadcast_to":
		check(in[0].BroadcastTo(gpuarr.Shape(p.To)))
	case "diagonal":
		check(in[0].Diagonal(p.Offset, p.Axis1, p.Axis2))
	case "roll":
		check(gpuarr.Roll(in[0], p.Shift, axisOpts(p.Axes)...))
	case "roll_view":
		v := must(must(in[0].Permute(2, 0, 1)).Flip(0))
		defer v.Release()
		check(gpuarr.Roll(v, p.Shift, axisOpts(p.Axes)...))
	case "triu":
		check(gpuarr.Eval(gpuarr.Triu[T](in[0], p.K)))
	case "tril":
		check(gpuarr.Eval(gpuarr.Tril[T](in[0], p.K)))
	case "arange":
		check(gpuarr.Arange(T(num(p.Start)), T(num(p.Stop)), T(num(p.Step))))
	case "eye":
		check(gpuarr.Eye[T](p.N, p.M, p.K))
	default:
		runLangFloatCase[T](t, name, c, p, in, check)
	}
}

// runLangFloatCase runs the cases that take float element types.
func runLangFloatCase[T gpuarr.Numeric](t *testing.T, name string, c langCase, p langParams, in []*gpuarr.Array[T], check func(*gpuarr.Array[T], error)) {
	switch any(in).(type) {
	case []*gpuarr.Array[float32]:
		runFloat(t, name, c, p, any(in).([]*gpuarr.Array[float32]), any(check).(func(*gpuarr.Array[float32], error)))
	case []*gpuarr.Array[float64]:
		runFloat(t, name, c, p, any(in).([]*gpuarr.Array[float64]), any(check).(func(*gpuarr.Array[float64], error)))
	default:
		t.Fatalf("%s: op %s of a non-float type", name, c.Op)
	}
}

func runFloat[T gpuarr.Float](t *testing.T, name string, c langCase, p langParams, in []*gpuarr.Array[T], check func(*gpuarr.Array[T], error)) {
	var x *gpuarr.Array[T]
	if len(in) > 0 {
		x = in[0]
	}
	red := axisOpts(p.Axes)
	if p.KeepDims {
		red = append(red, gpuarr.KeepDims())
	}
	switch c.Op {
	case "linspace":
		check(gpuarr.Linspace(T(num(p.Start)), T(num(p.Stop)), p.Num, gpuarr.Endpoint(p.Endpoint)))
	case "var":
		check(gpuarr.Var[T](x, append(red, gpuarr.Ddof(p.Ddof))...))
	case "std":
		check(gpuarr.Std[T](x, append(red, gpuarr.Ddof(p.Ddof))...))
	case "nansum":
		check(gpuarr.NanSum[T](x, red...))
	case "nanmean":
		check(gpuarr.NanMean[T](x, red...))
	case "nanmin":
		check(gpuarr.NanMin[T](x, red...))
	case "nanmax":
		check(gpuarr.NanMax[T](x, red...))
	case "logsumexp":
		check(gpuarr.LogSumExp[T](gpuarr.Mul(x, gpuarr.Scalar(T(p.Scale))), red...))
	case "any", "all":
		f := gpuarr.Any
		if c.Op == "all" {
			f = gpuarr.All
		}
		got, err := f(x, red...)
		require.NoError(t, err, name)
		defer got.Release()
		requireShape(t, c.Outputs[0].Shape, got, name)
		closeTo(t, goldenFloats(c.Outputs[0]), values(t, got), 0, 0, name)
	case "matmul":
		a, b := goldenView(t, in[0], p.TA), goldenView(t, in[1], p.TB)
		check(gpuarr.Matmul(a, b))
		// MatmulInto a transposed view of a fresh array.
		if len(c.Outputs[0].Shape) >= 2 {
			sh := gpuarr.Shape(c.Outputs[0].Shape)
			tsh := append(append(gpuarr.Shape{}, sh[:len(sh)-2]...), sh[len(sh)-1], sh[len(sh)-2])
			buf := must(gpuarr.Full[T](tsh, 5))
			defer buf.Release()
			cv := must(buf.Index(gpuarr.Ellipsis))
			perm := make([]int, len(sh))
			for i := range perm {
				perm[i] = i
			}
			perm[len(sh)-1], perm[len(sh)-2] = len(sh)-2, len(sh)-1
			ct := must(cv.Permute(perm...))
			defer ct.Release()
			require.NoError(t, gpuarr.MatmulInto(ct, a, b), name)
			closeTo(t, goldenFloats(c.Outputs[0]), values(t, ct), langTolerance[T](), langTolerance[T]()*16, name+" MatmulInto a transposed view")
		}
	case "dot":
		check(gpuarr.Dot(in[0], in[1]))
	case "outer":
		check(gpuarr.Outer(in[0], in[1]))
	case "einsum":
		check(gpuarr.Einsum(p.Subs, in))
	case "norm":
		if p.Ord != nil {
			red = append(red, gpuarr.Ord(num(p.Ord)))
		}
		check(gpuarr.Norm[T](x, red...))
	default:
		t.Fatalf("%s: unknown op", name)
	}
}

// requireShape asserts a's shape is want (a scalar's nil and [] alike).
func requireShape[T gpuarr.Numeric](t *testing.T, want []int, a *gpuarr.Array[T], msg string) {
	t.Helper()
	require.True(t, gpuarr.Shape(want).Equal(a.Shape()), "%s: shape %v, want %v", msg, a.Shape(), want)
}

// goldenView is the view of x the generator's transform names: "t" swaps
// the last two axes, "f" reverses the last, "s" takes every other row.
func goldenView[T gpuarr.Float](t *testing.T, x *gpuarr.Array[T], how string) *gpuarr.Array[T] {
	t.Helper()
	var v *gpuarr.Array[T]
	switch r := x.Rank(); how {
	case "":
		return x
	case "t":
		perm := make([]int, r)
		for i := range perm {
			perm[i] = i
		}
		perm[r-1], perm[r-2] = r-2, r-1
		v = must(x.Permute(perm...))
	case "f":
		v = must(x.Index(gpuarr.Ellipsis, gpuarr.Every(-1)))
	case "s":
		v = must(x.Index(gpuarr.Ellipsis, gpuarr.Every(2), gpuarr.Colon))
	}
	t.Cleanup(func() { _ = v.Release() })
	return v
}
