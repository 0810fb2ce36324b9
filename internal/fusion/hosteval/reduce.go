package hosteval

import (
	"cmp"
	"slices"
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
)

// A reduction's iteration space is groups × glen. Its units are what one
// output element reduces: a group in the Final stage, a part of a group in
// the Partial stage, where the parts are contiguous runs of partLen
// positions (the last ones may be empty). Units tile the iteration space
// in order, so a goroutine given the elements [lo, hi) walks them chunk
// by chunk: units wholly inside its range it writes itself; a unit cut by
// the range's ends leaves a piece, and pieces are merged in element order
// once every goroutine is done. Units with no elements get the identity.

// piece is one goroutine's accumulator for part of a unit.
type piece struct {
	unit, first uint64
	acc         accumulator
}

type pieces struct {
	mu   sync.Mutex
	list []piece
}

func (ps *pieces) add(p piece) {
	ps.mu.Lock()
	ps.list = append(ps.list, p)
	ps.mu.Unlock()
}

// shifter is an accumulator that sums deviations from its group's value
// at position 0 (Var and Std over values).
type shifter interface{ setShift(k float64) }

// shiftOf is the value at element i (a group's first) as a float64: from
// the chunk's values at vals (elements pos, pos+1, …) when i is among
// them, else evaluated alone.
func (pr *program) shiftOf(ls *launch, vals unsafe.Pointer, pos, i uint64) float64 {
	if i < pos {
		fr := pr.getFrame(ls)
		pr.evalChunk(fr, ls, i, 1)
		v := pr.shiftOf(ls, fr.col[pr.value], i, i)
		pr.putFrame(fr)
		return v
	}
	if pr.red.t == dtype.Float32 {
		return float64(*(*float32)(unsafe.Add(vals, uintptr(i-pos)*4)))
	}
	return *(*float64)(unsafe.Add(vals, uintptr(i-pos)*8))
}

func (pr *program) reduce(l *hostkernel.Launch, ls *launch) {
	var ps pieces
	if ls.n > 0 {
		l.ParallelFor(ls.n, func(lo, hi uint64) {
			fr := pr.getFrame(ls)
			pr.reduceRange(fr, ls, newAccumulator(pr.red), lo, hi, &ps)
			pr.putFrame(fr)
		})
	}
	// Merge the pieces of each cut unit, in element order.
	slices.SortFunc(ps.list, func(a, b piece) int {
		return cmp.Or(cmp.Compare(a.unit, b.unit), cmp.Compare(a.first, b.first))
	})
	for i := 0; i < len(ps.list); {
		j, acc := i+1, ps.list[i].acc
		for ; j < len(ps.list) && ps.list[j].unit == ps.list[i].unit; j++ {
			acc.merge(ps.list[j].acc)
		}
		acc.write(ls, ps.list[i].unit)
		i = j
	}
	// Units with no elements: every unit when glen is 0, else the parts
	// past the end of each group.
	nonEmpty := uint64(0)
	if ls.glen > 0 {
		nonEmpty = (ls.glen + ls.partLen - 1) / ls.partLen
	}
	if nonEmpty < ls.parts {
		id := newAccumulator(pr.red)
		for g := range ls.groups {
			for p := nonEmpty; p < ls.parts; p++ {
				id.write(ls, g*ls.parts+p)
			}
		}
	}
}

// reduceRange reduces the elements [lo, hi) (lo < hi).
func (pr *program) reduceRange(fr *frame, ls *launch, acc accumulator, lo, hi uint64, ps *pieces) {
	size := uintptr(pr.red.t.Size())
	var (
		unit, start, end uint64 // the current unit and its elements
		kBase            uint64 // its group's first element
		open             bool
	)
	flush := func() {
		if start >= lo && end <= hi {
			acc.write(ls, unit)
		} else {
			ps.add(piece{unit: unit, first: max(start, lo), acc: acc.clone()})
		}
	}
	for pos := lo; pos < hi; {
		n := int(min(chunk, hi-pos))
		pr.evalChunk(fr, ls, pos, n)
		vals := fr.col[pr.value]
		var positions, thirds []int64
		if pr.argPos >= 0 {
			positions = col[int64](fr.col[pr.argPos], n)
		}
		if pr.third >= 0 {
			thirds = col[int64](fr.col[pr.third], n)
		}
		for j := 0; j < n; {
			i := pos + uint64(j)
			if !open || i >= end {
				if open {
					flush()
				}
				g := i / ls.glen
				kBase = g * ls.glen
				p := (i - kBase) / ls.partLen
				unit = g*ls.parts + p
				start = kBase + p*ls.partLen
				end = kBase + min((p+1)*ls.partLen, ls.glen)
				open = true
				acc.reset()
				if sh, ok := acc.(shifter); ok && pr.red.shifts {
					sh.setShift(pr.shiftOf(ls, vals, pos, kBase))
				}
			}
			m := int(min(end, pos+uint64(n)) - i)
			var seg, seg3 []int64
			if positions != nil {
				seg = positions[j : j+m]
			}
			if thirds != nil {
				seg3 = thirds[j : j+m]
			}
			acc.fold(unsafe.Add(vals, uintptr(j)*size), seg, seg3, int64(i-kBase), m)
			j += m
		}
		pos += uint64(n)
	}
	if open {
		flush()
	}
}
