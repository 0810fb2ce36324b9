package fusion

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/layout"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// Lowering turns an expression tree into an expr.Program (what the kernel
// computes, the kernel cache's key) and the values its parameters take
// (addresses, dims, strides, scalar values, which are not in the key).

// maxKernelRank bounds the axes a kernel indexes after merging the ones
// that can be merged.
const maxKernelRank = 8

// leaf is one Memory, Random or Iota input.
type leaf struct {
	c       *lifetime.Handle
	rnd     *random
	iota    []int // an Iota input's shape (nil for the others)
	strides []int // element steps over the iteration space
	strided bool
}

type lowered struct {
	prog    expr.Program
	leaves  []leaf
	scalars []uint64
	memo    []memoEntry // the nodes built, in order
	space   []int       // iteration space, reduced axes last
	dims    []int       // space with mergeable axes merged (len = prog.Rank)
	n       int
	// outStrides: a strided destination's steps over the iteration space
	// (then over dims once collapsed); nil for a contiguous one.
	outStrides []int

	// Reused buffers: a lowered comes from a pool, so a materialization
	// of a cached expression allocates nothing here.
	strideBuf []int
	key       []byte
	// args is its own allocation, holding no Go pointers: cgo may not be
	// handed memory that contains them.
	args *device.Args
}

type memoEntry struct {
	n *Node
	val
}

// spareLowered is one idle lowered, taken with an atomic swap: a
// goroutine materializing expressions in a loop finds its own there, at a
// fraction of a sync.Pool's cost; concurrent materializations fall back
// to loweredPool.
var (
	spareLowered atomic.Pointer[lowered]
	loweredPool  = sync.Pool{New: func() any { return new(lowered) }}
)

// newLowered takes a lowered from the pool, empty, for space.
func newLowered(space []int) *lowered {
	l := spareLowered.Swap(nil)
	if l == nil {
		l = loweredPool.Get().(*lowered)
	}
	l.prog = expr.Program{Code: l.prog.Code[:0], Inputs: l.prog.Inputs[:0], Scalars: l.prog.Scalars[:0], ArgIndex: -1}
	l.leaves, l.scalars, l.memo = l.leaves[:0], l.scalars[:0], l.memo[:0]
	l.space = append(l.space[:0], space...)
	l.dims, l.strideBuf, l.outStrides = nil, l.strideBuf[:0], nil
	l.n = layout.Len(space)
	if l.args == nil {
		l.args = new(device.Args)
	}
	return l
}

// free returns l to the pool, dropping its references to arrays.
func (l *lowered) free() {
	clear(l.leaves)
	clear(l.memo)
	if !spareLowered.CompareAndSwap(nil, l) {
		loweredPool.Put(l)
	}
}

// lowerTree builds the program computing root over space (root's shape
// broadcasts to it), for a reduction when reduction is set. The axes in
// the bit set reduced (a reduction along them; 0 for none) move after the
// others, keeping their order, so that each group of the reduction is a
// run of the iteration space. outStrides (elementwise only) are a strided
// destination's steps over space, nil for a contiguous one. The caller
// frees the result.
func lowerTree(root *Node, space []int, reduced uint64, reduction bool, outStrides []int) (*lowered, error) {
	return lowerWith(space, reduced, outStrides, func(l *lowered) error {
		k, err := l.build(root)
		if err != nil {
			return err
		}
		l.finish(k, reduction)
		return nil
	})
}

// lowerWith is lowerTree with the instructions appended by build (several
// roots: a compaction's value and flag), which must leave the value the
// program computes as its last instruction.
func lowerWith(space []int, reduced uint64, outStrides []int, build func(l *lowered) error) (*lowered, error) {
	l := newLowered(space)
	if err := build(l); err != nil {
		l.free()
		return nil, err
	}
	permuted := !trailingAxes(reduced, len(space))
	anyStrided := outStrides != nil
	for i := range l.leaves {
		lf := &l.leaves[i]
		lf.strided = lf.c == nil || permuted || !lf.c.Contiguous() || !slices.Equal(lf.c.Shape(), space)
		l.prog.Inputs[i].Strided = lf.strided
		anyStrided = anyStrided || lf.strided
	}
	if !anyStrided {
		l.prog.Index64 = l.needs64()
		return l, nil
	}
	if outStrides != nil {
		l.outStrides = append([]int(nil), outStrides...)
		l.prog.OutStrided = true
	}
	// Strides over the iteration space, for every leaf (collapse needs
	// them all aligned).
	for i := range l.leaves {
		lf := &l.leaves[i]
		switch {
		case lf.rnd != nil:
			lf.strides = layout.BroadcastStrides(lf.rnd.shape, layout.RowMajorStrides(lf.rnd.shape), l.space)
		case lf.iota != nil:
			lf.strides = layout.BroadcastStrides(lf.iota, layout.RowMajorStrides(lf.iota), l.space)
		default:
			st := lf.c.Strides()
			if st == nil {
				st = layout.RowMajorStrides(lf.c.Shape())
			}
			lf.strides = layout.BroadcastStrides(lf.c.Shape(), st, l.space)
		}
	}
	if permuted {
		moveLast(l.space, reduced)
		for i := range l.leaves {
			moveLast(l.leaves[i].strides, reduced)
		}
	}
	if err := l.collapse(); err != nil {
		l.free()
		return nil, err
	}
	l.prog.Index64 = l.needs64()
	return l, nil
}

// trailingAxes reports whether the bit set axes is the last k of rank
// axes (k ≥ 0): reducing them needs no reordering.
func trailingAxes(axes uint64, rank int) bool {
	k := bits.OnesCount64(axes)
	if k == 0 {
		return true
	}
	return axes == (^uint64(0)>>(64-k))<<(rank-k)
}

// moveLast reorders v (one value per axis) so that the axes in the bit
// set axes come last, each part keeping its order.
func moveLast(v []int, axes uint64) {
	var buf [layout.MaxRank]int
	out := buf[:0]
	for d, x := range v {
		if axes&(1<<d) == 0 {
			out = append(out, x)
		}
	}
	for d, x := range v {
		if axes&(1<<d) != 0 {
			out = append(out, x)
		}
	}
	copy(v, out)
}

// build appends the instructions computing n (once per node) and returns
// n's entry in the memo, which says where its value is (see val).
func (l *lowered) build(n *Node) (int, error) {
	if n == nil {
		return 0, ErrNilExpr
	}
	if n.err != nil {
		return 0, n.err
	}
	for k := range l.memo {
		if l.memo[k].n == n {
			return k, nil
		}
	}
	var v val
	var err error
	switch n.op {
	case expr.OpInput:
		aux := len(l.leaves)
		for i, lf := range l.leaves {
			if lf.c == n.arr {
				aux = i
				break
			}
		}
		if aux == len(l.leaves) {
			l.leaves = append(l.leaves, leaf{c: n.arr})
			l.prog.Inputs = append(l.prog.Inputs, expr.Input{Kind: expr.Memory, T: n.t})
		}
		v = l.stored(n.t, l.emitLeaf(expr.OpInput, n.t, aux))
	case expr.OpRandom:
		aux := len(l.leaves)
		l.leaves = append(l.leaves, leaf{rnd: n.rnd})
		l.prog.Inputs = append(l.prog.Inputs, expr.Input{Kind: expr.Random, T: n.t, Normal: n.rnd.normal})
		v = plain(l.emitLeaf(expr.OpRandom, n.t, aux))
	case expr.OpIota:
		aux := len(l.leaves)
		l.leaves = append(l.leaves, leaf{iota: n.iota})
		l.prog.Inputs = append(l.prog.Inputs, expr.Input{Kind: expr.Iota, T: dtype.Int64})
		v = plain(l.emitLeaf(expr.OpIota, dtype.Int64, aux))
	case expr.OpScalar:
		v = l.scalar(n)
	case expr.OpConst:
		v = l.constant(n)
	default:
		var args [3]int
		for k := 0; k < n.op.Arity(); k++ {
			if args[k], err = l.build(n.args[k]); err != nil {
				return 0, err
			}
		}
		if v, err = l.operation(n, args); err != nil {
			return 0, err
		}
	}
	l.memo = append(l.memo, memoEntry{n, v})
	return len(l.memo) - 1, nil
}

// emit appends an instruction and returns its index.
func (l *lowered) emit(in expr.Instr) int32 {
	l.prog.Code = append(l.prog.Code, in)
	return int32(len(l.prog.Code) - 1)
}

func (l *lowered) emitLeaf(op expr.Op, t dtype.DType, aux int) int32 {
	return l.emit(expr.Instr{Op: op, T: t, A: -1, B: -1, C: -1, Aux: int32(aux)})
}

// finish makes the root's value the program's last instruction: for an
// elementwise program the value as stored (halves rounded, complex
// numbers whole), for a reduction the value reduced (halves in float32,
// Bool as uint8, complex numbers whole).
func (l *lowered) finish(root int, reduction bool) {
	t := l.memo[root].n.t
	var i int32
	switch {
	case reduction && expr.IsHalf(t):
		i = l.num(root)
	case reduction && t == dtype.Bool:
		i = l.op1(expr.OpCast, dtype.Uint8, l.num(root))
	default:
		i = l.whole(root)
	}
	if int(i) != len(l.prog.Code)-1 {
		i = l.op1(expr.OpCast, l.prog.Code[i].T, i) // a copy, to be last
	}
}

// collapse merges neighbouring axes that every strided leaf (and a
// strided destination) steps through as one (stride[d] =
// stride[d+1]·extent[d+1]) and drops extent-1 axes, so most views and
// broadcasts index with one or two axes.
func (l *lowered) collapse() error {
	dims := make([]int, 0, len(l.space))
	keep := make([]int, 0, len(l.space)) // which space axes survive, outermost first
	for d, e := range l.space {
		if e != 1 {
			keep = append(keep, d)
		}
	}
	strides := make([][]int, len(l.leaves))
	for i := range l.leaves {
		strides[i] = make([]int, 0, len(keep))
	}
	var outSt []int
	if l.outStrides != nil {
		outSt = make([]int, 0, len(keep))
	}
	for _, d := range keep {
		e := l.space[d]
		if len(dims) > 0 {
			last := len(dims) - 1
			merge := outSt == nil || outSt[last] == l.outStrides[d]*e
			for i, lf := range l.leaves {
				if !merge {
					break
				}
				if lf.strided && strides[i][last] != lf.strides[d]*e {
					merge = false
				}
			}
			if merge {
				dims[last] *= e
				for i, lf := range l.leaves {
					if lf.strided {
						strides[i][last] = lf.strides[d]
					}
				}
				if outSt != nil {
					outSt[last] = l.outStrides[d]
				}
				continue
			}
		}
		dims = append(dims, e)
		for i, lf := range l.leaves {
			strides[i] = append(strides[i], lf.strides[d])
		}
		if outSt != nil {
			outSt = append(outSt, l.outStrides[d])
		}
	}
	if len(dims) == 0 {
		// Everything has extent 1: one axis of one element.
		dims = append(dims, 1)
		for i := range strides {
			strides[i] = append(strides[i], 0)
		}
		if outSt != nil {
			outSt = append(outSt, 0)
		}
	}
	l.outStrides = outSt
	if len(dims) > maxKernelRank {
		return fmt.Errorf("the expression's operands need %d axes that cannot be merged, at most %d (make some operands contiguous with Clone): %w",
			len(dims), maxKernelRank, arg.ErrShape)
	}
	l.dims = dims
	for i := range l.leaves {
		l.leaves[i].strides = strides[i]
	}
	l.prog.Rank = len(dims)
	return nil
}

// needs64 reports whether some index or offset reaches 2³¹.
func (l *lowered) needs64() bool {
	if uint64(l.n) >= math.MaxInt32 {
		return true
	}
	spanOf := func(strides []int) uint64 {
		var span uint64
		for d, st := range strides {
			a := st
			if a < 0 {
				a = -a
			}
			span += uint64(a) * uint64(l.dims[d]-1)
		}
		return span
	}
	for _, lf := range l.leaves {
		if lf.strided && spanOf(lf.strides) >= math.MaxInt32 {
			return true
		}
	}
	return l.outStrides != nil && spanOf(l.outStrides) >= math.MaxInt32
}

// vectorize sets the program's vector width when every operand is
// contiguous, real, aligned for 16-byte accesses of the widest and every
// input at least 2 bytes wide (a 1-byte output, bool for one, is packed
// into 32-bit words). out is nil for a reduction (which writes one value
// per group).
func (l *lowered) vectorize(out *lifetime.Handle, outT dtype.DType) {
	l.prog.Vector = 1
	if l.prog.OutStrided {
		return
	}
	maxSize := 4 // a reduction's partial results are written one per group
	if out != nil {
		if maxSize = max(outT.Size(), 2); outT.IsComplex() {
			return
		}
	}
	// One pass over the inputs (parallel to the leaves): all contiguous,
	// real and at least 2 bytes wide.
	for i := range l.prog.Inputs {
		sz := l.prog.Inputs[i].T.Size()
		if l.leaves[i].strided || sz < 2 || l.prog.Inputs[i].T.IsComplex() {
			return
		}
		maxSize = max(maxSize, sz)
	}
	v := 16 / maxSize
	if out != nil && uint64(out.Ptr())%uint64(v*outT.Size()) != 0 {
		return
	}
	for i := range l.leaves {
		if uint64(l.leaves[i].c.Ptr())%uint64(v*l.prog.Inputs[i].T.Size()) != 0 {
			return
		}
	}
	l.prog.Vector = v
}

// appendLeafArgs marshals dims, inputs and scalars (the parameters after
// the kind-specific head).
func (l *lowered) appendLeafArgs(a *device.Args) bool {
	ok := true
	for _, d := range l.dims {
		ok = ok && a.Append(device.ArgU64, uint64(d))
	}
	for _, st := range l.outStrides {
		ok = ok && a.Append(device.ArgI64, uint64(int64(st)))
	}
	for _, lf := range l.leaves {
		switch {
		case lf.rnd != nil:
			ok = ok && a.Append(device.ArgU64, lf.rnd.seed) && a.Append(device.ArgU64, lf.rnd.stream)
		case lf.iota != nil: // no base
		default:
			ok = ok && a.Append(device.ArgPtr, uint64(lf.c.Ptr()))
		}
		if lf.strided {
			for _, st := range lf.strides {
				ok = ok && a.Append(device.ArgI64, uint64(int64(st)))
			}
		}
	}
	for j, t := range l.prog.Scalars {
		ok = ok && appendScalarArg(a, t, l.scalars[j])
	}
	return ok
}

// appendScalarArg marshals a scalar operand of type t (bits as in
// scalarBits) as its kernel parameter.
func appendScalarArg(a *device.Args, t dtype.DType, bits uint64) bool {
	switch expr.ParamType(t) {
	case dtype.Float32:
		return a.Append(device.ArgF32, bits)
	case dtype.Float64:
		return a.Append(device.ArgF64, bits)
	case dtype.Int32:
		return a.Append(device.ArgI32, bits)
	case dtype.Uint32:
		return a.Append(device.ArgU32, bits)
	case dtype.Int64:
		return a.Append(device.ArgI64, bits)
	}
	return a.Append(device.ArgU64, bits)
}

// addReads declares the program's array inputs to op o on stream s.
func (l *lowered) addReads(o *lifetime.Claim, s *device.Stream) {
	for _, lf := range l.leaves {
		if lf.c != nil {
			o.Add(lf.c, tracking.Read, s)
		}
	}
}
