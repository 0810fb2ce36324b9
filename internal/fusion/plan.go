package fusion

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/cowmap"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// Plans: the lowering of an elementwise expression, remembered per
// expression shape.
//
// Lowering a tree (building its program, the program's key, hashing the
// key for the kernel cache) is most of what a cached EvalInto costs the
// host. For the usual expression (every array operand a contiguous array
// of the destination's shape, no random numbers) the program depends only
// on the tree's structure and types, its constants, the element count's
// index width and the operands' alignment (the vector width); the
// addresses, the element count and the scalar values are parameters. A
// short signature of exactly those inputs, built in one walk over the
// tree into stack memory, finds the kernel directly; a hit marshals the
// parameters and launches. Anything else (broadcast, strided or random
// operands, a capture on the stream, an empty destination, a tree too big
// for the walk's buffers) takes the full lowering, which also fills the
// plan cache.

// Limits of the signature walk; a bigger tree is lowered in full.
const (
	planMaxSig     = 96
	planMaxNodes   = 16
	planMaxLeaves  = 8
	planMaxScalars = 8
)

// planRef marks a node met before in the signature (a shared subtree);
// the index of its first visit follows. Op codes are all below it.
const planRef = 0xff

// planWalk is one walk over an expression: its signature and the
// parameters a plan's kernel takes, in the order the full lowering
// numbers them. It lives on the caller's stack.
type planWalk struct {
	nsig     int
	nmemo    int
	nleaves  int
	nscalars int
	sig      [planMaxSig]byte
	memo     [planMaxNodes]*Node
	leaves   [planMaxLeaves]*lifetime.Handle
	ltypes   [planMaxLeaves]dtype.DType
	scalars  [planMaxScalars]uint64
	stypes   [planMaxScalars]dtype.DType
}

// scan walks root for an evaluation into dst and reports whether a plan
// can run it (see above); when it can, w holds the signature.
func (w *planWalk) scan(root *Node, dst *lifetime.Handle) bool {
	if dst.Len() == 0 || !w.node(root, dst.Shape()) {
		return false
	}
	// The vector width, as lowered.vectorize decides it for these
	// operands (all contiguous): in the signature, since the kernel
	// depends on it. Sizes and widths are powers of two, so alignment is
	// a mask (no division on this path).
	v, outSize := 1, root.t.Size()
	if maxSize := outSize; maxSize >= 2 && !root.t.IsComplex() {
		for i := 0; i < w.nleaves; i++ {
			sz := w.ltypes[i].Size()
			if sz < 2 || w.ltypes[i].IsComplex() {
				maxSize = 0
				break
			}
			maxSize = max(maxSize, sz)
		}
		if maxSize > 0 {
			v = 16 / maxSize // 8, 4 or 2: a constant divided by a small power of two
			misaligned := uint64(dst.Ptr()) & uint64(v*outSize-1)
			for i := 0; i < w.nleaves; i++ {
				misaligned |= uint64(w.leaves[i].Ptr()) & uint64(v*w.ltypes[i].Size()-1)
			}
			if misaligned != 0 {
				v = 1
			}
		}
	}
	wide := byte(0)
	if uint64(dst.Len()) >= math.MaxInt32 {
		wide = 1
	}
	return w.put2(byte(v), wide)
}

// put2 and put3 append to the signature, reporting false when it is full
// (byte by byte: a copy costs more than the walk).
func (w *planWalk) put2(a, b byte) bool {
	i := w.nsig
	if i+2 > len(w.sig) {
		return false
	}
	w.sig[i], w.sig[i+1] = a, b
	w.nsig = i + 2
	return true
}

func (w *planWalk) put3(a, b, c byte) bool {
	i := w.nsig
	if i+3 > len(w.sig) {
		return false
	}
	w.sig[i], w.sig[i+1], w.sig[i+2] = a, b, c
	w.nsig = i + 3
	return true
}

// node adds n's subtree to the walk: pre-order, a node met before as a
// reference to its first visit (the full lowering computes it once), an
// array met before (through another node) as the same input.
func (w *planWalk) node(n *Node, space []int) bool {
	if n == nil || n.err != nil {
		return false // the full lowering reports it
	}
	for i := 0; i < w.nmemo; i++ {
		if w.memo[i] == n {
			return w.put2(planRef, byte(i))
		}
	}
	if w.nmemo == len(w.memo) {
		return false
	}
	w.memo[w.nmemo] = n
	w.nmemo++
	switch n.op {
	case expr.OpInput:
		c := n.arr
		if !c.Contiguous() || !slices.Equal(c.Shape(), space) {
			return false
		}
		i := 0
		for i < w.nleaves && w.leaves[i] != c {
			i++
		}
		if i == w.nleaves {
			if i == len(w.leaves) {
				return false
			}
			w.leaves[i], w.ltypes[i] = c, n.t
			w.nleaves++
		}
		return w.put3(byte(n.op), byte(n.t), byte(i))
	case expr.OpScalar:
		ts, bits, k := scalarParams(n)
		if w.nscalars+k > len(w.scalars) {
			return false
		}
		for j := range k {
			w.scalars[w.nscalars], w.stypes[w.nscalars] = bits[j], ts[j]
			w.nscalars++
		}
		return w.put2(byte(n.op), byte(n.t))
	case expr.OpConst:
		if !w.put2(byte(n.op), byte(n.t)) || w.nsig+16 > len(w.sig) {
			return false
		}
		binary.LittleEndian.PutUint64(w.sig[w.nsig:], math.Float64bits(n.value))
		w.nsig += 8
		if n.t.IsComplex() {
			binary.LittleEndian.PutUint64(w.sig[w.nsig:], math.Float64bits(n.ivalue))
			w.nsig += 8
		}
		return true
	case expr.OpRandom, expr.OpIota:
		return false // indexed by position: always strided
	}
	if !w.put2(byte(n.op), byte(n.t)) {
		return false
	}
	for k := 0; k < n.op.Arity(); k++ {
		if !w.node(n.args[k], space) {
			return false
		}
	}
	return true
}

// key is the signature (valid until w changes).
func (w *planWalk) key() []byte { return w.sig[:w.nsig] }

// plan is what a signature lowers to: the kernel and its vector width.
// Immutable once made.
type plan struct {
	sig    string
	k      *device.Kernel
	vector int
	// what the walk of any tree with this signature yields, checked
	// when the plan is made
	leaves, scalars int
}

// planCache maps signatures to plans, per device, like kernelCache:
// a lookaside of recent plans in front of a copy-on-write map.
type planCache struct {
	m      cowmap.Map[string, *plan]
	recent [recentPlans]atomic.Pointer[plan]
}

const recentPlans = 16

// find returns the plan for sig, or nil.
func (pc *planCache) find(sig []byte) *plan {
	slot := &pc.recent[recentSlot(sig)%recentPlans]
	if p := slot.Load(); p != nil && p.sig == string(sig) {
		return p
	}
	p, _ := pc.m.Load(string(sig))
	if p != nil {
		slot.Store(p)
	}
	return p
}

// remember records the plan the full lowering l found for w's signature,
// when l is what a plan stands for (no axes, the walk's operands, the same
// vector width): a disagreement leaves the expression to full lowering.
func (pc *planCache) remember(w *planWalk, l *lowered, k *device.Kernel) {
	if len(l.dims) != 0 || l.prog.Rank != 0 || len(l.leaves) != w.nleaves || len(l.scalars) != w.nscalars ||
		l.prog.Vector != int(w.sig[w.nsig-2]) || l.prog.Index64 != (w.sig[w.nsig-1] == 1) {
		return
	}
	for i, lf := range l.leaves {
		if lf.c != w.leaves[i] || lf.strided {
			return
		}
	}
	p := &plan{sig: string(w.key()), k: k, vector: l.prog.Vector, leaves: w.nleaves, scalars: w.nscalars}
	pc.m.Store(p.sig, p)
	pc.recent[recentSlot(w.key())%recentPlans].Store(p)
}

// run launches p's kernel over dst with w's operands on s, claiming them
// like any operation.
func (w *planWalk) run(call string, p *plan, dst *lifetime.Handle, s *device.Stream) error {
	kernelStats.hits.Add(1)
	a := takeArgs()
	ok := a.Append(device.ArgPtr, uint64(dst.Ptr())) && a.Append(device.ArgU64, uint64(dst.Len()))
	for i := 0; i < w.nleaves; i++ {
		ok = ok && a.Append(device.ArgPtr, uint64(w.leaves[i].Ptr()))
	}
	for i := 0; i < w.nscalars; i++ {
		ok = ok && appendScalarArg(a, w.stypes[i], w.scalars[i])
	}
	if !ok {
		putArgs(a)
		return fmt.Errorf("gpuarr.%s: the expression has too many operands for one kernel's parameters: %w", call, arg.ErrArgument)
	}
	v := uint64(p.vector)
	cfg := elementwiseLaunch(uint64(dst.Len()), v)
	o := lifetime.Claim{Call: call}
	for i := 0; i < w.nleaves; i++ {
		o.Add(w.leaves[i], tracking.Read, s)
	}
	o.Add(dst, tracking.Write, s)
	if err := o.BeginLaunch(); err != nil {
		putArgs(a)
		return err
	}
	err := o.LaunchArgs(s, p.k, cfg, a)
	o.End()
	putArgs(a)
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return nil
}

// Argument buffers for plan launches: one spare taken with an atomic
// swap, a pool behind it. Each is an allocation of its own, holding no Go
// pointers (cgo is handed its address).
var (
	spareArgs atomic.Pointer[device.Args]
	argsPool  = sync.Pool{New: func() any { return new(device.Args) }}
)

func takeArgs() *device.Args {
	a := spareArgs.Swap(nil)
	if a == nil {
		a = argsPool.Get().(*device.Args)
	}
	a.Reset()
	return a
}

func putArgs(a *device.Args) {
	if !spareArgs.CompareAndSwap(nil, a) {
		argsPool.Put(a)
	}
}

// PlanSignature is the signature of root evaluated into dst, or "" when a
// plan cannot run it (it takes the full lowering). For tests.
func PlanSignature(root *Node, dst *lifetime.Handle) string {
	var w planWalk
	if !w.scan(root, dst) {
		return ""
	}
	return string(w.key())
}

// PlanCached reports whether dev's plan cache holds sig. For tests.
func PlanCached(dev *device.Device, sig string) bool {
	return stateOf(dev).plans.find([]byte(sig)) != nil
}
