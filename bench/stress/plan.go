package main

import (
	"fmt"
	"math/rand/v2"
)

// kind is one of the three hazards a trial provokes.
type kind int

const (
	producerConsumer kind = iota // written on A, read on B, no manual sync
	writeAfterRead               // read on B (late), overwritten on A at once
	freeReuse                    // read on B (late), released, memory reused on C
	numKinds
)

var kindNames = [numKinds]string{"producer-consumer", "write-after-read", "free-reuse"}

func (k kind) String() string { return kindNames[k] }

// dtype is a trial's element type.
type dtype int

const (
	u32 dtype = iota
	f32
	i64
	numDtypes
)

var dtypeNames = [numDtypes]string{"uint32", "float32", "int64"}

// writeMethod is how an array gets its contents on a stream.
type writeMethod int

const (
	wFill    writeMethod = iota // uint32: fill kernel, then a spin kernel writes element 0 late
	wVAdd                       // float32: vadd kernel of two Full arrays
	wExpr                       // EvalInto(x, FMA(iota, k, c))
	wCopy                       // Copy from an array made by FromSlice
	wHost                       // CopyFromHost
	wAddSelf                    // EvalInto(x, x + 2048): overwrites only (reads the old contents)
	numWrites
)

var writeNames = [numWrites]string{"fill-kernel", "vadd-kernel", "expr", "copy", "host", "add-self"}

// readMethod is how a consumer reads an array on its stream.
type readMethod int

const (
	rCopyKernel readMethod = iota // uint32: copy kernel into a new array
	rVAdd                         // float32: vadd kernel x + x
	rExpr                         // Eval(2x + 1)
	rCopy                         // Copy into a new array
	rClone                        // Clone
	rSum                          // Sum, then Item
	rHost                         // ToSlice (no stream: the host waits for the writer)
	numReads
)

var readNames = [numReads]string{"copy-kernel", "vadd-kernel", "expr", "copy", "clone", "sum", "host"}

// Contents are small non-negative integers, exact in every element type
// and in every partial sum of float32 (below 2²⁴): first contents lie in
// [0, 2048), second ones (overwrites, reused memory) in [2048, 4096), so a
// reader that sees the wrong generation, or poisoned memory, is caught.
const (
	maxElems = 1024
	band     = 2048
)

// write is one planned write: its method and parameters. Its contents are
// want(old) for an array of n elements.
type write struct {
	method writeMethod
	v, k   int64   // fill: v; vadd: v + k; expr: i*k + c
	c      int64   // expr constant
	data   []int64 // copy and host data
}

// want returns the contents the write leaves (old: the contents before,
// for wAddSelf).
func (w write) want(n int, old []int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		switch w.method {
		case wFill:
			out[i] = w.v
		case wVAdd:
			out[i] = w.v + w.k
		case wExpr:
			out[i] = int64(i)*w.k + w.c
		case wCopy, wHost:
			out[i] = w.data[i]
		case wAddSelf:
			out[i] = old[i] + band
		}
	}
	if w.method == wFill {
		out[0] = w.v + 1
	}
	return out
}

// plan is everything random about one trial, drawn up front from the
// trial's own generator (seed, index), so a failing trial can be rerun.
type plan struct {
	index   int
	kind    kind
	dtype   dtype
	n       int
	a, b, c int        // stream indices: writer, reader, reuser (all different)
	first   write      // the first contents (in [0, 2048))
	second  write      // overwrite (write-after-read) or the reused array's contents
	read    readMethod // the consumer's read
	spinW   uint64     // ns the first write is held back on A
	spinR   uint64     // ns the read is held back on B (write-after-read, free-reuse)
	relByC  bool       // free-reuse: the reader's goroutine releases the array
	alloc   bool       // free-reuse: the new array is made by an allocating call (Eval) when it can be
}

func newPlan(seed uint64, index, streams int, maxSpin uint64) plan {
	r := rand.New(rand.NewPCG(seed, uint64(index)))
	p := plan{index: index, kind: kind(index % int(numKinds)), dtype: dtype(r.IntN(int(numDtypes)))}
	if r.IntN(4) == 0 {
		p.n = 1 + r.IntN(16)
	} else {
		p.n = 1 + r.IntN(maxElems)
	}
	perm := r.Perm(streams)
	p.a, p.b, p.c = perm[0], perm[1], perm[2]
	spin := func() uint64 {
		if maxSpin == 0 || r.IntN(8) == 0 {
			return 0
		}
		return r.Uint64N(maxSpin)
	}
	p.spinW, p.spinR = spin(), spin()
	p.first = randomWrite(r, p.dtype, p.n, 0, false)
	p.second = randomWrite(r, p.dtype, p.n, band, p.kind == writeAfterRead)
	p.read = randomRead(r, p.dtype, p.kind == producerConsumer)
	p.relByC = r.IntN(2) == 0
	p.alloc = r.IntN(2) == 0
	return p
}

// randomWrite picks a write valid for dt with contents in [lo, lo+2048);
// overwrite allows wAddSelf (the old contents are in the lower band).
func randomWrite(r *rand.Rand, dt dtype, n int, lo int64, overwrite bool) write {
	methods := []writeMethod{wExpr, wCopy, wHost}
	switch dt {
	case u32:
		methods = append(methods, wFill, wFill)
	case f32:
		methods = append(methods, wVAdd, wVAdd)
	}
	if overwrite {
		methods = append(methods, wAddSelf)
	}
	w := write{method: methods[r.IntN(len(methods))]}
	switch w.method {
	case wFill:
		w.v = lo + r.Int64N(band-1)
	case wVAdd:
		w.v, w.k = lo+r.Int64N(band/2), r.Int64N(band/2)
	case wExpr:
		w.k, w.c = r.Int64N(2), lo+r.Int64N(band-maxElems)
	case wCopy, wHost:
		w.data = make([]int64, n)
		for i := range w.data {
			w.data[i] = lo + r.Int64N(band)
		}
	}
	return w
}

// randomRead picks a read valid for dt; host reads only where nothing
// needs the read to be late (producer-consumer).
func randomRead(r *rand.Rand, dt dtype, host bool) readMethod {
	methods := []readMethod{rExpr, rCopy, rClone, rSum}
	switch dt {
	case u32:
		methods = append(methods, rCopyKernel, rCopyKernel)
	case f32:
		methods = append(methods, rVAdd, rVAdd)
	}
	if host {
		methods = append(methods, rHost)
	}
	return methods[r.IntN(len(methods))]
}

func (p plan) String() string {
	s := fmt.Sprintf("trial %d %s %s n=%d A=s%d B=s%d", p.index, p.kind, dtypeNames[p.dtype], p.n, p.a, p.b)
	if p.kind == freeReuse {
		s += fmt.Sprintf(" C=s%d", p.c)
	}
	s += fmt.Sprintf(" write=%s spin=%dns read=%s", writeNames[p.first.method], p.spinW, readNames[p.read])
	switch p.kind {
	case writeAfterRead:
		s += fmt.Sprintf(" read-spin=%dns overwrite=%s", p.spinR, writeNames[p.second.method])
	case freeReuse:
		s += fmt.Sprintf(" read-spin=%dns released-by=%s reuse-write=%s alloc=%v", p.spinR, map[bool]string{true: "reader", false: "writer"}[p.relByC], writeNames[p.second.method], p.alloc)
	}
	return s
}
