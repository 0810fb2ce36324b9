package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

const caseJIT = "first use of a fresh expression (JIT)"

// tree is a random elementwise expression over two arrays x and y and
// scalars: its shape is what the kernel cache keys on, so random trees
// drawn from a seed taken from the clock are shapes no earlier run (nor the
// driver's on-disk JIT cache) has seen.
type tree struct {
	op   int // one of the op* constants
	v    float32
	l, r *tree
}

const (
	opX = iota
	opY
	opScalar
	opNeg
	opAbs
	opAdd
	opSub
	opMul
	opMax
	opMin
	nOps
)

func randomTree(rng *rand.Rand, depth int) *tree {
	if depth <= 0 {
		t := &tree{op: rng.IntN(opScalar + 1)}
		if t.op == opScalar {
			t.v = float32(rng.IntN(7)+1) / 4
		}
		return t
	}
	t := &tree{op: opNeg + rng.IntN(nOps-opNeg)}
	t.l = randomTree(rng, depth-1-rng.IntN(2))
	if t.op >= opAdd {
		t.r = randomTree(rng, depth-1-rng.IntN(2))
	}
	return t
}

// readsArray reports whether t reads x or y: a tree of scalars alone
// evaluates to one element, not to an array of the operands' shape.
func (t *tree) readsArray() bool {
	if t == nil {
		return false
	}
	return t.op == opX || t.op == opY || t.l.readsArray() || t.r.readsArray()
}

func (t *tree) expr(x, y *gpuarr.Array[float32]) gpuarr.Operand[float32] {
	switch t.op {
	case opX:
		return x
	case opY:
		return y
	case opScalar:
		return gpuarr.Scalar(t.v)
	case opNeg:
		return gpuarr.Neg(t.l.expr(x, y))
	case opAbs:
		return gpuarr.Abs(t.l.expr(x, y))
	}
	l, r := t.l.expr(x, y), t.r.expr(x, y)
	switch t.op {
	case opAdd:
		return gpuarr.Add(l, r)
	case opSub:
		return gpuarr.Sub(l, r)
	case opMul:
		return gpuarr.Mul(l, r)
	case opMax:
		return gpuarr.Maximum(l, r)
	}
	return gpuarr.Minimum(l, r)
}

// value computes the tree on the host for x and y (float64: the check
// allows for rounding).
func (t *tree) value(x, y float64) float64 {
	switch t.op {
	case opX:
		return x
	case opY:
		return y
	case opScalar:
		return float64(t.v)
	case opNeg:
		return -t.l.value(x, y)
	case opAbs:
		return math.Abs(t.l.value(x, y))
	}
	l, r := t.l.value(x, y), t.r.value(x, y)
	switch t.op {
	case opAdd:
		return l + r
	case opSub:
		return l - r
	case opMul:
		return l * r
	case opMax:
		return math.Max(l, r)
	}
	return math.Min(l, r)
}

// benchJIT evaluates cfg.freshExprs expressions of shapes not compiled
// before: for each, the compile time the kernel cache records
// (ReadKernelStats, generation and JIT), the wall time of that first Eval
// up to a synchronized result, and the same for a second Eval of the same
// shape (a cache hit).
func benchJIT(rep *report.Report, dev *device.Device, cfg config) error {
	s := dev.DefaultStream()
	const n = 1024
	const xv, yv = 1.5, -0.75
	arrs, err := arrays(s, gpuarr.Shape{n}, xv, yv)
	if err != nil {
		return err
	}
	defer release(arrs...)
	x, y := arrs[0], arrs[1]
	if err := s.Synchronize(); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(cfg.seed), 0x6b65726e656c73))
	var compileNs, firstNs, hitNs []float64
	evalSync := func(t *tree) (*gpuarr.Array[float32], time.Duration, error) {
		start := time.Now()
		r, err := gpuarr.Eval(t.expr(x, y))
		if err != nil {
			return nil, 0, err
		}
		if err := s.Synchronize(); err != nil {
			r.Release()
			return nil, 0, err
		}
		return r, time.Since(start), nil
	}
	for tries := 0; len(compileNs) < cfg.freshExprs && tries < 10*cfg.freshExprs; tries++ {
		t := randomTree(rng, 6)
		if !t.readsArray() {
			continue
		}
		before := gpuarr.ReadKernelStats()
		r, wall, err := evalSync(t)
		if err != nil {
			return err
		}
		after := gpuarr.ReadKernelStats()
		compiles := after.Compiles - before.Compiles
		if compiles == 0 { // a shape seen before (or one the lowering folds into one)
			r.Release()
			continue
		}
		got, err := r.ToSlice()
		r.Release()
		if err != nil {
			return err
		}
		if len(got) != n {
			return fmt.Errorf("fresh expression %d: %d elements, want %d", len(compileNs), len(got), n)
		}
		if want := t.value(xv, yv); math.Abs(float64(got[0])-want) > 1e-4*(1+math.Abs(want)) || got[n-1] != got[0] {
			return fmt.Errorf("fresh expression %d: got %v (and %v at the end), want %v", len(compileNs), got[0], got[n-1], want)
		}
		r2, hit, err := evalSync(t)
		if err != nil {
			return err
		}
		r2.Release()
		compileNs = append(compileNs, float64((after.CompileTime-before.CompileTime).Nanoseconds())/float64(compiles))
		firstNs = append(firstNs, float64(wall.Nanoseconds()))
		hitNs = append(hitNs, float64(hit.Nanoseconds()))
	}
	if len(compileNs) < cfg.freshExprs {
		return fmt.Errorf("drew only %d fresh expression shapes of %d", len(compileNs), cfg.freshExprs)
	}
	size := fmt.Sprint(n)
	add(rep, caseJIT, "compile: ReadKernelStats CompileTime / Compiles (PTX generation + JIT + load)", size, compileNs, nil)
	add(rep, caseJIT, "first Eval + Synchronize, wall (compile included)", size, firstNs, nil)
	add(rep, caseJIT, "second Eval of the same shape + Synchronize, wall (cache hit)", size, hitNs, nil)
	cache := os.Getenv("CUDA_CACHE_DISABLE")
	if cache == "" {
		cache = "unset"
	}
	rep.Note("JIT: %d random expression trees (depth ≤ 6 over two arrays and scalars: Neg, Abs, Add, Sub, Mul, Maximum, Minimum), seed %d, each a shape this process had not compiled; drawn afresh from the clock on each run so the driver's on-disk JIT cache has not seen their PTX either (CUDA_CACHE_DISABLE %s). Each result was checked against the host.",
		len(compileNs), cfg.seed, cache)
	return nil
}
