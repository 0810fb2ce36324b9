package numpytest_test

import (
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// The golden files, written by gen/gen.py: testdata/<family>.json.gz,
// one file per family (trees, broadcast,
// casts, differences, math, intops, complex, reductions, reductions_new,
// views, views_new, matmul, errors, evalinto, sortscan), each
// {"version": 1, "cases": [...]}.
// A case:
//
//	id     family/function/type/n, unique
//	fn     the function the case is about (the counts are per fn)
//	in     inputs: {"t": type, "s": shape, "d": base64 of the little-endian
//	       elements} or, for long inputs, {"t", "s", "g": {"seed", "lo",
//	       "hi"}}: SplitMix64 values the runner recomputes
//	expr   the tree: nodes {"op", "t", "r", "a": [operands], "k": {attributes}};
//	       op is a key of the interpreter table (a Go-side name: "Add",
//	       "Step", "SumAs"), t the element type whose row runs it (the
//	       operand's, or the result's for a conversion), r the result's
//	       type; op "in" is input k.i
//	out    NumPy's results, in order (several for TopK, Unique, Split, ...)
//	err    instead of out: the sentinel the call must fail with
//	diff   a row of gpuarr's NumPy-differences table (doc.go's Intended
//	       differences)
//	n, scale  for tolerances: elements per reduced group (a product's
//	       inner extent) and, per result element, the magnitude the error
//	       bound scales with (Σ|x|, |Π|, (|A||B|)ᵢⱼ, Σx²/(n−ddof))
//	zs     the sign of a zero result is not compared
//
// The trees are built from gpuarr's exact operations (IEEE + − × ÷ √ and
// fused multiply-add, Minimum/Maximum, comparisons, Where, in-range Cast,
// Clamp) over views (Transpose, Permute, Step with negative steps, Slice,
// Reshape with −1), with broadcasting, rank-0 and empty arrays, scalars,
// and NaN, ±Inf, ±0, subnormal and extreme values. A function with a
// rounding error of its own (Exp, Pow, a reduction, a matrix product) is
// the root of its case, over such a tree: its error bound then holds as
// stated, with no error of other operations to propagate. float16 and
// bfloat16 cases have one rounding operation each (whether a fused chain
// rounds its intermediate results to the half type is the kernel's
// choice); bfloat16 is emulated in float32 by the generator.
//
// Op names and attributes.
//
// The goldens name functions by their Go-side names (NumPy's in the
// generator's references). The functions being added have cases already,
// pending until their rows land; their operands (a) and attributes (k),
// with NumPy's meaning:
//
//	unary math (Sin … Erfc, Floor, Ceil, Trunc, Round, Sign, Rsqrt, Cbrt,
//	  IsNaN, IsInf, IsFinite → bool, Real, Imag, Conj, Angle)   a: x
//	binary (Atan2, Hypot, Copysign, Fmin, Fmax, FloorDiv, Mod, Rem,
//	  BitAnd, BitOr, BitXor, LeftShift, RightShift)              a: x, y
//	BitNot                                                      a: x
//	Clip                      a: x, lo, hi (arrays that broadcast)
//	Var, Std                  k: axis [ints], keepdims, ddof
//	Any, All, CountNonzero, NanSum, NanMean, NanMax, NanMin, LogSumExp
//	                          k: axis [ints], keepdims
//	Norm                      k: ord (1, 2, "inf" or none), axis [one int],
//	                          keepdims: np.linalg.norm (without axis: a
//	                          1-D operand's vector norm, a 2-D operand's
//	                          matrix norm: Frobenius, 1 or inf)
//	PySlice                   k: axis, start, stop, step (Python's slice:
//	                          negatives count from the end, null is None)
//	Squeeze                   k: axis [ints] (none: every extent-1 axis)
//	ExpandDims                k: axis
//	ReshapeStrided            k: shape (Reshape of a strided view: a copy)
//	Ravel                     —
//	BroadcastTo               k: shape
//	Flip                      k: axis [ints] (none: every axis)
//	Roll                      k: shift, axis (none: the flattened array)
//	Diagonal                  k: offset, axis1, axis2
//	Triu, Tril                k: k
//	Eye                       k: n, m, k (no operands; t the element type)
//	Arange                    k: start, stop, step
//	Linspace                  k: start, stop, num, endpoint
//	ZerosLike, OnesLike       a: x;  FullLike also k: v (base64 scalar)
//	Matmul1D, MatmulBatched, MatmulStrided, Dot, Outer
//	                          a: x, y (np.matmul's 1-D and broadcast
//	                          batches; a stepped operand; np.dot, np.outer)
//	Einsum                    a: x, y; k: subscripts
//	Sort, Argsort             k: axis, descending (stable; NaN last)
//	TopK                      k: k, largest; along the last axis; results
//	                          values, indices (int64)
//	Unique                    results: sorted values, counts, inverse
//	                          (of the flattened array), int64
//	SearchSorted              a: sorted 1-D, values; k: side
//	Cumsum, Cumprod, Cummax, Cummin
//	                          k: axis (none: flattened), exclusive
//	Take                      a: x, indices (int64); k: axis (none:
//	                          flattened); an index out of range expects
//	                          the sentinel ErrIndex
//	TakeAlongAxis             a: x, indices; k: axis
//	Put                       a: x, flat indices, values → x after the put
//	IndexAdd                  a: x, indices, source; k: axis → x after it
//	MaskedSelect              a: x, mask → the selected elements, 1-D
//	Nonzero                   results: one int64 index array per axis
//	Concatenate, Stack        a: the arrays; k: axis
//	Split                     k: sections or indices, axis; one result
//	                          per part
//	Pad                       k: widths [[before, after] per axis], v
//	Bincount                  a: x[, weights float64]; k: minlength
//	Histogram                 k: bins, lo, hi; results counts, edges
//	EvalInto                  a: dst (an input), e: e computed into dst
//	                          (e may read dst itself: y = y*2 + x)
//	EvalIntoOverlap           the same, e reading another view of dst (its
//	                          transpose or reverse): NumPy's out= answer,
//	                          computed before any element is written

type goldenFile struct {
	Version   int               `json:"version"`
	Family    string            `json:"family"`
	Generator map[string]string `json:"generator"`
	Cases     []*goldenCase     `json:"cases"`
}

type goldenCase struct {
	ID    string        `json:"id"`
	Fn    string        `json:"fn"`
	In    []goldenArray `json:"in"`
	Expr  *node         `json:"expr"`
	Out   []goldenArray `json:"out"`
	Err   string        `json:"err"`
	Diff  string        `json:"diff"`
	N     int           `json:"n"`
	Scale *goldenArray  `json:"scale"`
	ZS    int           `json:"zs"`
	Note  string        `json:"note"`
}

// goldenArray is an array as the files hold it: its element type, shape
// and little-endian bytes (base64), or the recipe of generated values.
type goldenArray struct {
	T string   `json:"t"`
	S []int    `json:"s"`
	D string   `json:"d"`
	G *genSpec `json:"g"`
}

// genSpec is a generated input: SplitMix64 from Seed, floats lo + (hi −
// lo)·u with u = (x >> 11)·2⁻⁵³ rounded to the type, integers lo + x mod
// (hi − lo + 1).
type genSpec struct {
	Seed uint64      `json:"seed"`
	Lo   json.Number `json:"lo"`
	Hi   json.Number `json:"hi"`
}

// node is one call of the interpreter table: Op on operands A, run by the
// row of element type T (the operand's type, or the result's for a
// conversion), with result type R and attributes K.
type node struct {
	Op string                     `json:"op"`
	T  string                     `json:"t"`
	R  string                     `json:"r"`
	A  []*node                    `json:"a"`
	K  map[string]json.RawMessage `json:"k"`
}

// hostArray is an array's values on the host: type, shape and bytes.
type hostArray struct {
	t     string
	shape []int
	raw   []byte
}

func (h hostArray) len() int {
	n := 1
	for _, d := range h.shape {
		n *= d
	}
	return n
}

func loadGoldens(dir string) ([]*goldenFile, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json.gz"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	var files []*goldenFile
	for _, p := range paths {
		f, err := readGolden(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		files = append(files, f)
	}
	return files, nil
}

func readGolden(path string) (*goldenFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var g goldenFile
	if err := json.NewDecoder(z).Decode(&g); err != nil {
		return nil, err
	}
	if g.Version != 1 {
		return nil, fmt.Errorf("format version %d, this runner reads 1", g.Version)
	}
	return &g, nil
}

// host decodes a golden array (generating its values when it has a recipe).
func (g goldenArray) host() (hostArray, error) {
	f, ok := formats[g.T]
	if !ok {
		return hostArray{}, fmt.Errorf("unknown element type %q", g.T)
	}
	h := hostArray{t: g.T, shape: append([]int{}, g.S...)}
	if g.G != nil {
		raw, err := g.G.generate(g.T, h.len())
		if err != nil {
			return hostArray{}, err
		}
		h.raw = raw
	} else {
		raw, err := base64.StdEncoding.DecodeString(g.D)
		if err != nil {
			return hostArray{}, err
		}
		h.raw = raw
	}
	if len(h.raw) != h.len()*f.size {
		return hostArray{}, fmt.Errorf("%s%v: %d bytes, want %d", g.T, g.S, len(h.raw), h.len()*f.size)
	}
	return h, nil
}

func splitmix64(seed uint64, n int) []uint64 {
	out := make([]uint64, n)
	s := seed
	for i := range out {
		s += 0x9E3779B97F4A7C15
		z := s
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		out[i] = z ^ (z >> 31)
	}
	return out
}

// generate computes a generated input's bytes, as gen/numerics.py's
// generated does.
func (g *genSpec) generate(t string, n int) ([]byte, error) {
	f := formats[t]
	xs := splitmix64(g.Seed, n)
	raw := make([]byte, n*f.size)
	switch f.kind {
	case kindSigned, kindUnsigned:
		lo, ok1 := new(big.Int).SetString(g.Lo.String(), 10)
		hi, ok2 := new(big.Int).SetString(g.Hi.String(), 10)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("integer generator bounds %s, %s", g.Lo, g.Hi)
		}
		span := new(big.Int).Sub(hi, lo)
		span.Add(span, big.NewInt(1))
		v, x := new(big.Int), new(big.Int)
		for i, u := range xs {
			x.SetUint64(u)
			v.Mod(x, span)
			v.Add(v, lo)
			putInt(raw[i*f.size:], f.size, v)
		}
	case kindFloat:
		lo, err1 := strconv.ParseFloat(g.Lo.String(), 64)
		hi, err2 := strconv.ParseFloat(g.Hi.String(), 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("float generator bounds %s, %s", g.Lo, g.Hi)
		}
		d := hi - lo
		for i, u := range xs {
			v := lo + float64(d*(float64(u>>11)*0x1p-53))
			switch t {
			case "float32":
				binary.LittleEndian.PutUint32(raw[i*4:], math.Float32bits(float32(v)))
			case "float64":
				binary.LittleEndian.PutUint64(raw[i*8:], math.Float64bits(v))
			default:
				return nil, fmt.Errorf("generated %s inputs are not supported", t)
			}
		}
	default:
		return nil, fmt.Errorf("generated %s inputs are not supported", t)
	}
	return raw, nil
}

// putInt writes v (in range, or wrapped) as a size-byte little-endian
// two's complement integer.
func putInt(dst []byte, size int, v *big.Int) {
	m := new(big.Int).And(v, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(8*size)), big.NewInt(1)))
	b := m.Bytes() // big-endian, no sign
	for i := 0; i < size; i++ {
		var x byte
		if j := len(b) - 1 - i; j >= 0 {
			x = b[j]
		}
		dst[i] = x
	}
}

// Attribute access. A missing or malformed attribute is a defect of the
// golden file or of the interpreter row: it panics with attrError, which
// the runner reports as the case's failure.

type attrError struct{ msg string }

func (n *node) attr(key string, v any) {
	raw, ok := n.K[key]
	if !ok {
		panic(attrError{fmt.Sprintf("%s: no attribute %q", n.Op, key)})
	}
	if err := json.Unmarshal(raw, v); err != nil {
		panic(attrError{fmt.Sprintf("%s: attribute %q = %s: %v", n.Op, key, raw, err)})
	}
}

func (n *node) has(key string) bool {
	raw, ok := n.K[key]
	return ok && string(raw) != "null"
}

func (n *node) int(key string) int {
	var v int
	n.attr(key, &v)
	return v
}

func (n *node) ints(key string) []int {
	var v []int
	n.attr(key, &v)
	return v
}

func (n *node) bool(key string) bool {
	var v bool
	if !n.has(key) {
		return false
	}
	n.attr(key, &v)
	return v
}

func (n *node) str(key string) string {
	var v string
	n.attr(key, &v)
	return v
}

func (n *node) float(key string) float64 {
	var v float64
	n.attr(key, &v)
	return v
}

// bytes is a base64 attribute (a scalar's little-endian bytes).
func (n *node) bytes(key string) []byte {
	b, err := base64.StdEncoding.DecodeString(n.str(key))
	if err != nil {
		panic(attrError{fmt.Sprintf("%s: attribute %q: %v", n.Op, key, err)})
	}
	return b
}
