package hosteval

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// ScanKernel compiles scan s over program p (expr.Scan) into a host
// kernel taking s.Params(p): rows are scanned in order, each by one
// goroutine, chunk by chunk; a compaction walks the whole space in order.
// A program or scan it cannot run gives a kernel whose launches fail.
func ScanKernel(p *expr.Program, s expr.Scan) hostkernel.Kernel {
	fail := func(err error) hostkernel.Kernel {
		err = fmt.Errorf("hosteval: cannot run %s: %w", s.EntryName(p), err)
		return func(*hostkernel.Launch) error { return err }
	}
	if err := s.Validate(p); err != nil {
		return fail(err)
	}
	pr, err := compile(p)
	if err != nil {
		return fail(err)
	}
	// The value stays in the frame's scratch: the kernel writes out itself.
	if pr.out >= 0 {
		pr.owned[pr.out] = true
		pr.aliases = slices.DeleteFunc(pr.aliases, func(a int) bool { return a == pr.out })
		pr.out = -1
	}
	vt := p.ValueType()
	sc := &scanRun{pr: pr, s: s, vt: vt, acc: expr.ScanAcc(s.Op, vt)}
	sc.toAcc, sc.fromAcc = castFor(vt, sc.acc), castFor(sc.acc, vt)
	sc.step = scanStep(s.Op, sc.acc)
	return sc.run
}

type scanRun struct {
	pr             *program
	s              expr.Scan
	vt, acc        dtype.DType
	toAcc, fromAcc unaryK
	// step combines the accumulator (bits of acc) with a column's values
	// (acc typed) in place: each element becomes the combination up to
	// it (or before it, exclusive), and the running value is returned.
	step func(run uint64, c unsafe.Pointer, n int, exclusive bool) uint64
}

func (sc *scanRun) run(l *hostkernel.Launch) error {
	a := &l.Args
	if a.N != len(sc.s.Params(sc.pr.src)) {
		return fmt.Errorf("hosteval %s: %d arguments, want %d", sc.s.EntryName(sc.pr.src), a.N, len(sc.s.Params(sc.pr.src)))
	}
	n, rowLen, inner, capacity := a.U64(1), a.U64(2), a.U64(3), a.U64(5)
	ls := &launch{n: n}
	next, err := sc.pr.bindDims(a, ls, 6)
	if err == nil {
		err = sc.pr.bindInputs(l, ls, next)
	}
	if err != nil {
		return fmt.Errorf("hosteval %s: %w", sc.s.EntryName(sc.pr.src), err)
	}
	if n == 0 {
		return nil
	}
	if sc.s.Op == expr.ScanCompact {
		return sc.compact(l, ls, a.Ptr(0), capacity)
	}
	if rowLen == 0 || n%rowLen != 0 || inner == 0 || (n/rowLen)%inner != 0 {
		return fmt.Errorf("hosteval %s: %d elements in rows of %d with inner %d", sc.s.EntryName(sc.pr.src), n, rowLen, inner)
	}
	size := uint64(sc.vt.Size())
	outb, err := l.Bytes(a.Ptr(0), n*size)
	if err != nil {
		return fmt.Errorf("hosteval %s: out: %w", sc.s.EntryName(sc.pr.src), err)
	}
	rows := n / rowLen
	id := expr.ScanIdentity(sc.s.Op, sc.acc)
	l.ParallelFor(rows, func(lo, hi uint64) {
		fr := sc.pr.getFrame(ls)
		accCol := make([]uint64, chunk)
		outCol := make([]uint64, chunk)
		ac, oc := unsafe.Pointer(&accCol[0]), unsafe.Pointer(&outCol[0])
		ob := unsafe.Slice((*byte)(oc), chunk*8)
		for r := lo; r < hi; r++ {
			run := id
			for j0 := uint64(0); j0 < rowLen; j0 += chunk {
				cnt := int(min(chunk, rowLen-j0))
				t0 := r*rowLen + j0
				sc.pr.evalChunk(fr, ls, t0, cnt)
				sc.toAcc(ac, fr.col[sc.pr.value], cnt)
				run = sc.step(run, ac, cnt, sc.s.Exclusive)
				sc.fromAcc(oc, ac, cnt)
				for k := 0; k < cnt; k++ {
					j := j0 + uint64(k)
					off := r*rowLen + j
					if inner > 1 {
						o, i := r/inner, r%inner
						off = (o*rowLen+j)*inner + i
					}
					copy(outb[off*size:(off+1)*size], ob[uint64(k)*size:uint64(k+1)*size])
				}
			}
		}
		sc.pr.putFrame(fr)
	})
	return nil
}

// compact stores the selected elements in order, at most capacity.
func (sc *scanRun) compact(l *hostkernel.Launch, ls *launch, out hostkernel.Ptr, capacity uint64) error {
	size := uint64(sc.vt.Size())
	if sc.s.Positions {
		size = 8
	}
	outb, err := l.Bytes(out, max(capacity, 1)*size)
	if capacity == 0 {
		outb, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("hosteval %s: out: %w", sc.s.EntryName(sc.pr.src), err)
	}
	fr := sc.pr.getFrame(ls)
	defer sc.pr.putFrame(fr)
	k := uint64(0)
	for t0 := uint64(0); t0 < ls.n; t0 += chunk {
		cnt := int(min(chunk, ls.n-t0))
		sc.pr.evalChunk(fr, ls, t0, cnt)
		flags := col[bool](fr.col[sc.s.Flag], cnt)
		vals := unsafe.Slice((*byte)(fr.col[sc.pr.value]), cnt*sc.vt.Size())
		for j, f := range flags {
			if !f {
				continue
			}
			if k < capacity {
				if sc.s.Positions {
					*(*int64)(unsafe.Pointer(&outb[k*8])) = int64(t0) + int64(j)
				} else {
					copy(outb[k*size:(k+1)*size], vals[uint64(j)*size:uint64(j+1)*size])
				}
			}
			k++
		}
	}
	return nil
}

// scanStep is the in-place scan of a column of accumulators of type acc.
func scanStep(op expr.ScanOp, acc dtype.DType) func(uint64, unsafe.Pointer, int, bool) uint64 {
	switch acc {
	case dtype.Float32:
		return scanFloat[float32](op)
	case dtype.Float64:
		return scanFloat[float64](op)
	case dtype.Int8:
		return scanInt[int8](op)
	case dtype.Int16:
		return scanInt[int16](op)
	case dtype.Int32:
		return scanInt[int32](op)
	case dtype.Int64:
		return scanInt[int64](op)
	case dtype.Uint8:
		return scanInt[uint8](op)
	case dtype.Uint16:
		return scanInt[uint16](op)
	case dtype.Uint32:
		return scanInt[uint32](op)
	}
	return scanInt[uint64](op)
}

func scanFloat[T float](op expr.ScanOp) func(uint64, unsafe.Pointer, int, bool) uint64 {
	var f func(a, b T) T
	switch op {
	case expr.ScanSum, expr.ScanCompact:
		f = func(a, b T) T { return a + b }
	case expr.ScanProd:
		f = func(a, b T) T { return a * b }
	case expr.ScanMax:
		f = func(a, b T) T {
			if a != a || b != b {
				return T(math.NaN())
			}
			return max(a, b)
		}
	default:
		f = func(a, b T) T {
			if a != a || b != b {
				return T(math.NaN())
			}
			return min(a, b)
		}
	}
	return func(run uint64, c unsafe.Pointer, n int, exclusive bool) uint64 {
		r := fromBits[T](run)
		for i, v := range col[T](c, n) {
			next := f(r, v)
			if exclusive {
				col[T](c, n)[i] = r
			} else {
				col[T](c, n)[i] = next
			}
			r = next
		}
		return bitsOf(r)
	}
}

func scanInt[T integer](op expr.ScanOp) func(uint64, unsafe.Pointer, int, bool) uint64 {
	var f func(a, b T) T
	switch op {
	case expr.ScanSum, expr.ScanCompact:
		f = func(a, b T) T { return a + b }
	case expr.ScanProd:
		f = func(a, b T) T { return a * b }
	case expr.ScanMax:
		f = func(a, b T) T { return max(a, b) }
	default:
		f = func(a, b T) T { return min(a, b) }
	}
	return func(run uint64, c unsafe.Pointer, n int, exclusive bool) uint64 {
		r := fromBits[T](run)
		cs := col[T](c, n)
		for i, v := range cs {
			next := f(r, v)
			if exclusive {
				cs[i] = r
			} else {
				cs[i] = next
			}
			r = next
		}
		return bitsOf(r)
	}
}
