package main

import (
	"fmt"
	"math/rand/v2"
)

// kind is one of the hazards a trial provokes; each exercises one path
// of the array layer's tracking (paths says which).
type kind int

const (
	producerConsumer kind = iota // written on A, read on B, no manual sync
	writeAfterRead               // read on B (late), overwritten on A at once
	freeReuse                    // read on B (late), released, memory reused on C
	fanOut                       // written on A, read on B, then on C: C waits on the event B's read recorded
	multiFree                    // read on B and C (late), released, memory reused on A
	graphReplay                  // a captured graph replayed on B between a write on A and a read on C
	unifiedArray                 // a unified array written on A, read and written by the CPU, read on B, released
	collectiveOp                 // an all-reduce over every device between writes and reads on other streams
	numKinds
)

var kindNames = [numKinds]string{"producer-consumer", "write-after-read", "free-reuse", "fan-out", "multi-free",
	"graph-replay", "unified", "collective"}

func (k kind) String() string { return kindNames[k] }

// paths names the tracking path each kind exercises, for the report.
var paths = [numKinds]string{
	"hand-off: the writer's event recorded and waited for in one call",
	"a write waits for the reads other streams issued before it",
	"free while another stream's read is queued; the memory reused on a third stream",
	"a second reader waits on the event the first one recorded (waitOn's stream wait)",
	"free after reads on two streams (RecordUse); the memory reused on the block's own stream",
	"graph replay ordered after its inputs' writer and before its outputs' reader; the graph and its pool closed while the replay is queued",
	"unified arrays: GPU write, CPU view, CPU write, GPU read, free while the read is queued, a view outliving its dropped array",
	"collectives on every device: ordered after each rank's writer and before its reader, then freed while read",
}

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
	second  write      // overwrite (write-after-read, graph-replay), the reused array's or the CPU's contents
	read    readMethod // the consumer's read
	read2   readMethod // fan-out, multi-free: the read on C
	spinW   uint64     // ns the first write is held back on A
	spinR   uint64     // ns the read is held back on B (and on C: multi-free)
	relByC  bool       // free-reuse, multi-free: the reader's goroutine releases the array; graph-replay: close the graph at once
	alloc   bool       // free-reuse, multi-free: the new array is made by an allocating call (Eval) when it can be
	drop    bool       // unified: drop the array after making a view, collect, reuse its memory, read the view
	ranks   []write    // collective: each rank's first contents
}

// dropEvery: one unified trial in dropEvery drops its array and collects
// (a full garbage collection per such trial).
const dropEvery = 4

func newPlan(seed uint64, index, streams, ranks int, maxSpin uint64) plan {
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
	// Kernels and the iota arrays exist on the first device only: a
	// collective's ranks on other devices write by copies.
	local := p.kind != collectiveOp
	p.first = randomWrite(r, p.dtype, p.n, 0, false, local)
	p.second = randomWrite(r, p.dtype, p.n, band, p.kind == writeAfterRead || p.kind == graphReplay, true)
	p.read = randomRead(r, p.dtype, p.kind == producerConsumer || p.kind == fanOut, local)
	p.read2 = randomRead(r, p.dtype, false, true)
	p.relByC = r.IntN(2) == 0
	p.alloc = r.IntN(2) == 0
	p.drop = r.IntN(dropEvery) == 0
	if p.kind == collectiveOp {
		// Contents in [0, 2048/ranks) per rank: the sum stays in the
		// first band.
		for range ranks {
			p.ranks = append(p.ranks, randomWrite(r, p.dtype, p.n, 0, false, false).scaled(ranks))
		}
	}
	return p
}

// randomWrite picks a write valid for dt with contents in [lo, lo+2048);
// overwrite allows wAddSelf (the old contents are in the lower band);
// local allows the writes that use the test kernels and the iota arrays
// (of the first device).
func randomWrite(r *rand.Rand, dt dtype, n int, lo int64, overwrite, local bool) write {
	methods := []writeMethod{wCopy, wHost}
	if local {
		methods = append(methods, wExpr)
		switch dt {
		case u32:
			methods = append(methods, wFill, wFill)
		case f32:
			methods = append(methods, wVAdd, wVAdd)
		}
		if overwrite {
			methods = append(methods, wAddSelf)
		}
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

// scaled divides a copy's contents by k (wCopy and wHost only), so that
// the sum of k such writes stays below 2048.
func (w write) scaled(k int) write {
	data := make([]int64, len(w.data))
	for i, v := range w.data {
		data[i] = v / int64(k)
	}
	w.data = data
	return w
}

// randomRead picks a read valid for dt; host reads only where nothing
// needs the read to be late (host); the kernel reads only where local (the
// test kernels are the first device's).
func randomRead(r *rand.Rand, dt dtype, host, local bool) readMethod {
	methods := []readMethod{rExpr, rCopy, rClone, rSum}
	if local {
		switch dt {
		case u32:
			methods = append(methods, rCopyKernel, rCopyKernel)
		case f32:
			methods = append(methods, rVAdd, rVAdd)
		}
	}
	if host {
		methods = append(methods, rHost)
	}
	return methods[r.IntN(len(methods))]
}

func (p plan) String() string {
	s := fmt.Sprintf("trial %d %s %s n=%d A=s%d B=s%d", p.index, p.kind, dtypeNames[p.dtype], p.n, p.a, p.b)
	switch p.kind {
	case freeReuse, fanOut, multiFree, graphReplay:
		s += fmt.Sprintf(" C=s%d", p.c)
	}
	s += fmt.Sprintf(" write=%s spin=%dns read=%s", writeNames[p.first.method], p.spinW, readNames[p.read])
	who := map[bool]string{true: "reader", false: "writer"}
	switch p.kind {
	case writeAfterRead:
		s += fmt.Sprintf(" read-spin=%dns overwrite=%s", p.spinR, writeNames[p.second.method])
	case freeReuse:
		s += fmt.Sprintf(" read-spin=%dns released-by=%s reuse-write=%s alloc=%v", p.spinR, who[p.relByC], writeNames[p.second.method], p.alloc)
	case fanOut:
		s += fmt.Sprintf(" read-on-C=%s", readNames[p.read2])
	case multiFree:
		s += fmt.Sprintf(" read-on-C=%s read-spin=%dns released-by=%s reuse-write=%s alloc=%v", readNames[p.read2], p.spinR, who[p.relByC],
			writeNames[p.second.method], p.alloc)
	case graphReplay:
		s += fmt.Sprintf(" overwrite=%s close-at-once=%v", writeNames[p.second.method], p.relByC)
	case unifiedArray:
		s += fmt.Sprintf(" read-spin=%dns cpu-write=%s drop-view=%v", p.spinR, writeNames[p.second.method], p.drop)
	case collectiveOp:
		ws := make([]string, len(p.ranks))
		for i, w := range p.ranks {
			ws[i] = writeNames[w.method]
		}
		s += fmt.Sprintf(" rank-writes=%v", ws)
	}
	return s
}
