package kernels

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/indexcheck"
	"github.com/gpuarr/gpuarr/internal/ptxsim"
)

// Every kernel variant runs twice on the same random memory: as its Go
// twin and as its PTX in the PTX interpreter (internal/ptxsim, with a
// shuffled schedule); the memory must end the same. So CI checks the PTX
// of variants the array tests do not reach.

const simHeader = ".version 7.8\n.target sm_90\n.address_size 64\n"

type arenaMem struct{ a *ptxsim.Arena }

func (m arenaMem) Bytes(p hostkernel.Ptr, n uint64) ([]byte, error) { return m.a.Bytes(uint64(p), n) }

// simLaunch is one launch: its arena (every allocation compared after),
// arguments and geometry.
type simLaunch struct {
	arena       *ptxsim.Arena
	ptrs        []uint64
	args        hostkernel.Args
	raw         []uint64
	grid, block ptxsim.Dim3
	resident    int // blocks running at once (0: all)
}

func newSimLaunch() *simLaunch { return &simLaunch{arena: new(ptxsim.Arena)} }

// buf allocates n bytes filled by fill (nil: random bytes).
func (s *simLaunch) buf(n int, rng *rand.Rand) uint64 {
	p := s.arena.Alloc(max(n, 1))
	s.ptrs = append(s.ptrs, p)
	b := s.arena.Slice(p)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return p
}

// slot allocates a clean check slot.
func (s *simLaunch) slot() uint64 {
	p := s.arena.Alloc(indexcheck.SlotSize)
	s.ptrs = append(s.ptrs, p)
	binary.LittleEndian.PutUint64(s.arena.Slice(p), indexcheck.None)
	return p
}

func (s *simLaunch) u64(v uint64) { s.args.Append(hostkernel.ArgKind(5), v); s.raw = append(s.raw, v) }
func (s *simLaunch) u32(v uint32) {
	s.args.Append(hostkernel.ArgKind(3), uint64(v))
	s.raw = append(s.raw, uint64(v))
}
func (s *simLaunch) ptr(p uint64) { s.args.Append(hostkernel.ArgKind(1), p); s.raw = append(s.raw, p) }

// compare runs v's twin and PTX on copies of the launch's memory.
func (s *simLaunch) compare(t *testing.T, v variant, what string, seed uint64) {
	t.Helper()
	twin := new(ptxsim.Arena)
	for _, p := range s.ptrs {
		b := s.arena.Slice(p)
		q := twin.Alloc(len(b))
		require.Equal(t, p, q)
		copy(twin.Slice(q), b)
	}
	l := hostkernel.NewLaunch(v.entry(), nil, arenaMem{twin})
	l.Grid.X, l.Grid.Y, l.Grid.Z = s.grid.X, s.grid.Y, s.grid.Z
	l.Block.X, l.Block.Y, l.Block.Z = s.block.X, s.block.Y, s.block.Z
	l.Args = s.args
	require.NoError(t, generators[v.kind].host(v)(l), "%s: twin", what)
	src := v.source(simHeader)
	mod, err := ptxsim.Parse(src)
	require.NoError(t, err, "%s\n%s", what, src)
	err = mod.Run(v.entry(), ptxsim.Launch{Grid: s.grid, Block: s.block, Params: s.raw, Mem: s.arena, Seed: seed | 1, Resident: s.resident})
	require.NoError(t, err, "%s", what)
	for i, p := range s.ptrs {
		want, got := twin.Slice(p), s.arena.Slice(p)
		if !bytes.Equal(want, got) {
			for j := range want {
				if want[j] != got[j] {
					t.Fatalf("%s: allocation %d differs first at byte %d: twin %x, PTX %x", what, i, j, want[j:min(j+16, len(want))], got[j:min(j+16, len(got))])
				}
			}
		}
	}
}

// indices fills an index buffer of type it with values in [-2n, 2n) (a few
// out of range).
func indices(s *simLaunch, it dtype.DType, m, n int, rng *rand.Rand) uint64 {
	p := s.buf(m*it.Size(), rng)
	b := s.arena.Slice(p)
	for i := range m {
		v := int64(rng.IntN(2*n+1)) - int64(n)
		if rng.IntN(8) == 0 {
			v = int64(rng.IntN(4*n+1)) - int64(2*n)
		}
		if it.IsUnsigned() && v < 0 {
			v = -v
		}
		writeBits(b, uint64(i), it.Size(), uint64(v))
	}
	return p
}

var indexTypes = []dtype.DType{dtype.Int8, dtype.Int16, dtype.Int32, dtype.Int64, dtype.Uint8, dtype.Uint16, dtype.Uint32, dtype.Uint64}

func TestSimGatherAndScatter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, it := range indexTypes {
		for _, mode := range []int{ModeRaise, ModeClip, ModeWrap} {
			for _, size := range []int{1, 2, 4, 8, 16} {
				outer, n, m, inner := 1+rng.IntN(3), 1+rng.IntN(40), 1+rng.IntN(300), 1+rng.IntN(3)
				for layout := range 3 {
					s := newSimLaunch()
					rows, cols, xLen, idxLen := outer, m, outer*n, m
					switch layout {
					case gatherRows:
						rows, cols, xLen = outer*m, inner, outer*n*inner
					case gatherAlong:
						rows, cols, xLen, idxLen = outer, m*inner, outer*n*inner, outer*m*inner
					}
					out, x, idx := s.buf(rows*cols*size, rng), s.buf(xLen*size, rng), indices(s, it, idxLen, n, rng)
					slot := uint64(0)
					if mode == ModeRaise {
						slot = s.slot()
					}
					s.ptr(out)
					s.ptr(x)
					s.ptr(idx)
					for _, v := range []int{rows, cols, m, n, inner} {
						s.u64(uint64(v))
					}
					s.ptr(slot)
					s.grid, s.block = ptxsim.Dim3{X: 2, Y: 2}, ptxsim.Dim3{X: 64}
					what := fmt.Sprintf("gather %s mode %d size %d layout %d", it, mode, size, layout)
					s.compare(t, gatherVariant(size, it, mode, layout), what, rng.Uint64())
				}
				for layout := range 2 {
					for _, op := range []int{scatterPut, scatterAdd} {
						et := map[int]dtype.DType{1: dtype.Int8, 2: dtype.Uint16, 4: dtype.Int32, 8: dtype.Uint64}[size]
						if size == 16 || op == scatterAdd && size > 8 {
							continue
						}
						if op == scatterPut {
							// Repeated indices land in any order on a GPU: give each
							// destination one index.
							m = min(m, n)
						}
						s := newSimLaunch()
						rows, cols, xLen := outer, m, outer*n
						if layout == scatterRows {
							rows, cols, xLen = outer*m, inner, outer*n*inner
						}
						// Rounded up to whole 32-bit words, as pool blocks are: an 8-
						// or 16-bit add swaps the word that holds its element.
						x, src := s.buf((xLen*size+3)&^3, rng), s.buf(rows*cols*size, rng)
						idx := s.buf(m*it.Size(), rng)
						perm := rng.Perm(n)
						for i := range m {
							v := int64(perm[i%n])
							if op == scatterAdd {
								v = int64(rng.IntN(n))
							}
							if rng.IntN(10) == 0 {
								v = int64(n + rng.IntN(3))
							}
							if it.IsSigned() && rng.IntN(2) == 0 && v < int64(n) {
								v -= int64(n)
							}
							writeBits(s.arena.Slice(idx), uint64(i), it.Size(), uint64(v))
						}
						if mode == ModeWrap && op == scatterPut {
							continue // wrapped indices may repeat
						}
						slot := uint64(0)
						if mode == ModeRaise {
							slot = s.slot()
						}
						s.ptr(x)
						s.ptr(idx)
						s.ptr(src)
						for _, v := range []int{rows, cols, m, n, inner} {
							s.u64(uint64(v))
						}
						s.ptr(slot)
						s.grid, s.block = ptxsim.Dim3{X: 2, Y: 2}, ptxsim.Dim3{X: 64}
						what := fmt.Sprintf("scatter %s mode %d size %d layout %d op %d", it, mode, size, layout, op)
						if op == scatterPut && mode == ModeClip {
							continue // clipped indices may repeat
						}
						s.compare(t, scatterVariant(et, it, mode, layout, op), what, rng.Uint64())
					}
				}
			}
		}
	}
}

// sortTypes are the key types of the sort kernels.
var sortTypes = []dtype.DType{dtype.Int8, dtype.Uint8, dtype.Int16, dtype.Uint16, dtype.Float16, dtype.BFloat16,
	dtype.Int32, dtype.Uint32, dtype.Float32, dtype.Int64, dtype.Uint64, dtype.Float64}

// keyValues fills n elements of t with values that repeat, and NaNs and
// ±0 for floats.
func keyValues(s *simLaunch, t dtype.DType, n int, rng *rand.Rand) uint64 {
	p := s.buf(n*t.Size(), rng)
	b := s.arena.Slice(p)
	w := 8 * t.Size()
	for i := range n {
		v := rng.Uint64() & widthMask(w)
		if rng.IntN(3) == 0 {
			v = uint64(rng.IntN(4))
		}
		if t.IsFloat() && rng.IntN(10) == 0 {
			inf, nan := floatLayout(t)
			v = []uint64{nan, inf, inf | 1<<(w-1), 1 << (w - 1), nan | 1<<(w-1) | 1}[rng.IntN(5)]
		}
		writeBits(b, uint64(i), t.Size(), v)
	}
	return p
}

func TestSimRadixPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tt := range sortTypes {
		w := 8 * tt.Size()
		for _, c := range []struct {
			flags int
			shift int
		}{
			{sfRawIn | sfVals | sfGenVals | sfKeysOut | sfValsOut, 0},
			{sfRawIn | sfDesc | sfKeysOut, w - 8},
			{sfVals | sfKeysOut | sfKeysDecoded | sfValsFinal, w - 8},
			{sfDesc | sfVals | sfKeysOut | sfKeysDecoded, 0},
			{sfSegDigit | sfVals | sfKeysOut | sfValsOut, 0},
			{sfSegDigit | sfVals | sfValsFinal, 8},
		} {
			n := 1000 + rng.IntN(4000)
			rowLen := uint32(50 + rng.IntN(200))
			tiles := (n + sortTile - 1) / sortTile
			nb := 1 + rng.IntN(tiles)
			tpb := (tiles + nb - 1) / nb
			nb = (tiles + tpb - 1) / tpb
			ksize := w / 8
			if c.flags&sfRawIn != 0 {
				ksize = tt.Size()
			}
			up := newSimLaunch()
			var keys uint64
			if c.flags&sfRawIn != 0 {
				keys = keyValues(up, tt, n, rng)
			} else {
				keys = up.buf(n*ksize, rng)
			}
			vals := up.buf(n*4, rng)
			vb := up.arena.Slice(vals)
			for i := range n {
				binary.LittleEndian.PutUint32(vb[4*i:], uint32(rng.IntN(n)))
			}
			counts := up.buf(radixBins*nb*4, rng)
			for _, p := range []uint64{keys, vals, counts} {
				up.ptr(p)
			}
			for _, v := range []int{n, tpb, nb} {
				up.u64(uint64(v))
			}
			up.u32(rowLen)
			up.u32(uint32(c.shift))
			up.grid, up.block = ptxsim.Dim3{X: uint32(nb)}, ptxsim.Dim3{X: sortBlock}
			upFlags := c.flags & (sfRawIn | sfDesc | sfSegDigit | sfVals | sfGenVals)
			what := fmt.Sprintf("%s flags %#x shift %d", tt, c.flags, c.shift)
			up.compare(t, variant{kind: kRadixUp, a: int32(tt), b: int32(upFlags)}, "upsweep "+what, rng.Uint64())

			// The downsweep over the same input, with offsets scanned from
			// the twin's counts.
			down := newSimLaunch()
			dk := down.buf(n*ksize, rng)
			copy(down.arena.Slice(dk), up.arena.Slice(keys)[:n*ksize])
			dv := down.buf(n*4, rng)
			copy(down.arena.Slice(dv), up.arena.Slice(vals)[:n*4])
			outKeySize := w / 8
			if c.flags&sfKeysDecoded != 0 {
				outKeySize = tt.Size()
			}
			ko, vo := uint64(0), uint64(0)
			if c.flags&sfKeysOut != 0 {
				ko = down.buf(n*outKeySize, rng)
			}
			if c.flags&(sfValsOut|sfValsFinal) != 0 {
				vsize := 4
				if c.flags&sfValsFinal != 0 {
					vsize = 8
				}
				vo = down.buf(n*vsize, rng)
			}
			offs := down.buf(radixBins*nb*4, rng)
			cb, ob := up.arena.Slice(counts), down.arena.Slice(offs)
			run := uint32(0)
			for i := range radixBins * nb {
				binary.LittleEndian.PutUint32(ob[4*i:], run)
				run += binary.LittleEndian.Uint32(cb[4*i:])
			}
			for _, p := range []uint64{dk, dv, ko, vo, offs} {
				down.ptr(p)
			}
			for _, v := range []int{n, tpb, nb} {
				down.u64(uint64(v))
			}
			down.u32(rowLen)
			down.u32(uint32(c.shift))
			down.grid, down.block = ptxsim.Dim3{X: uint32(nb)}, ptxsim.Dim3{X: sortBlock}
			down.compare(t, variant{kind: kRadixDown, a: int32(tt), b: int32(c.flags)}, "downsweep "+what, rng.Uint64())
		}
	}
}

func TestSimBlockSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tt := range sortTypes {
		for _, items := range []int{1, 2, 4, 8} {
			for _, flags := range []int{sfKeysOut | sfValsFinal, sfDesc | sfKeysOut, sfValsFinal} {
				rows := 1 + rng.IntN(3)
				rowLen := sortBlock*items/2 + 1 + rng.IntN(sortBlock*items/2)
				s := newSimLaunch()
				keys := keyValues(s, tt, rows*rowLen, rng)
				ko, io := uint64(0), uint64(0)
				if flags&sfKeysOut != 0 {
					ko = s.buf(rows*rowLen*tt.Size(), rng)
				}
				if flags&sfValsFinal != 0 {
					io = s.buf(rows*rowLen*8, rng)
				}
				s.ptr(keys)
				s.ptr(ko)
				s.ptr(io)
				s.u64(uint64(rows))
				s.u64(uint64(rowLen))
				s.grid, s.block = ptxsim.Dim3{X: 2}, ptxsim.Dim3{X: sortBlock}
				what := fmt.Sprintf("block sort %s items %d flags %#x", tt, items, flags)
				s.compare(t, variant{kind: kBlockSort, a: int32(tt), b: int32(flags), c: int32(items)}, what, rng.Uint64())
			}
		}
	}
}

func TestSimSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tt := range sortTypes {
		for _, right := range []int32{0, 1} {
			n, m := rng.IntN(300), 1+rng.IntN(200)
			s := newSimLaunch()
			a := keyValues(s, tt, n, rng)
			// Sorted by key.
			ab := s.arena.Slice(a)
			vals := make([]uint64, n)
			for i := range vals {
				vals[i] = readBits(ab, uint64(i), tt.Size())
			}
			for i := 1; i < n; i++ {
				for j := i; j > 0 && keyOf(vals[j], tt, false) < keyOf(vals[j-1], tt, false); j-- {
					vals[j], vals[j-1] = vals[j-1], vals[j]
				}
			}
			for i, v := range vals {
				writeBits(ab, uint64(i), tt.Size(), v)
			}
			q := keyValues(s, tt, m, rng)
			out := s.buf(8*m, rng)
			s.ptr(a)
			s.ptr(q)
			s.ptr(out)
			s.u64(uint64(n))
			s.u64(uint64(m))
			s.grid, s.block = ptxsim.Dim3{X: 2}, ptxsim.Dim3{X: 64}
			s.compare(t, variant{kind: kSearch, a: int32(tt), b: right}, fmt.Sprintf("search %s right %d", tt, right), rng.Uint64())
		}
	}
}

func TestSimResolveAndOrdered(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, it := range indexTypes {
		for _, mode := range []int{ModeRaise, ModeClip, ModeWrap} {
			m, n := 1+rng.IntN(400), 1+rng.IntN(60)
			s := newSimLaunch()
			idx := indices(s, it, m, n, rng)
			pos := s.buf(4*m, rng)
			slot := uint64(0)
			if mode == ModeRaise {
				slot = s.slot()
			}
			s.ptr(idx)
			s.ptr(pos)
			s.u64(uint64(m))
			s.u64(uint64(n))
			s.ptr(slot)
			s.grid, s.block = ptxsim.Dim3{X: 2}, ptxsim.Dim3{X: 64}
			s.compare(t, variant{kind: kResolve, a: int32(it), b: int32(mode)}, fmt.Sprintf("resolve %s mode %d", it, mode), rng.Uint64())
		}
	}
	for _, et := range []dtype.DType{dtype.Int8, dtype.Uint16, dtype.Int32, dtype.Float32, dtype.Float64, dtype.Int64} {
		for _, op := range []int{scatterPut, scatterAdd} {
			outer, m, n, inner := 1+rng.IntN(3), 1+rng.IntN(300), 1+rng.IntN(40), 1+rng.IntN(3)
			s := newSimLaunch()
			size := et.Size()
			x, src := s.buf(outer*n*inner*size, rng), s.buf(outer*m*inner*size, rng)
			if et.IsFloat() {
				// Small integers: exact float sums in any order.
				for _, p := range []uint64{x, src} {
					b := s.arena.Slice(p)
					for i := 0; i+size <= len(b); i += size {
						f := float64(rng.IntN(100))
						if size == 4 {
							binary.LittleEndian.PutUint32(b[i:], math.Float32bits(float32(f)))
						} else {
							binary.LittleEndian.PutUint64(b[i:], math.Float64bits(f))
						}
					}
				}
			}
			sorted, perm := s.buf(4*m, rng), s.buf(8*m, rng)
			ps := make([]uint32, m)
			for i := range ps {
				ps[i] = uint32(rng.IntN(n + 1)) // n: a bad index, sorted last
			}
			for i := 1; i < m; i++ {
				for j := i; j > 0 && ps[j] < ps[j-1]; j-- {
					ps[j], ps[j-1] = ps[j-1], ps[j]
				}
			}
			order := rng.Perm(m)
			for i := range m {
				binary.LittleEndian.PutUint32(s.arena.Slice(sorted)[4*i:], ps[i])
				binary.LittleEndian.PutUint64(s.arena.Slice(perm)[8*i:], uint64(order[i]))
			}
			for _, p := range []uint64{x, src, sorted, perm} {
				s.ptr(p)
			}
			for _, v := range []int{outer * m, inner, m, n} {
				s.u64(uint64(v))
			}
			s.grid, s.block = ptxsim.Dim3{X: 2, Y: 3}, ptxsim.Dim3{X: 32}
			a := int32(et)
			if op == scatterPut {
				a = int32(size)
			}
			s.compare(t, variant{kind: kOrdered, a: a, b: int32(op)}, fmt.Sprintf("ordered %s op %d", et, op), rng.Uint64())
		}
	}
}

func TestSimJoinKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, unit := range []int{1, 2, 4, 8, 16} {
		rows, cols := 1+rng.IntN(20), 1+rng.IntN(100)
		dpitch, spitch := cols+rng.IntN(20), cols+rng.IntN(5)
		s := newSimLaunch()
		dst, src := s.buf(((rows-1)*dpitch+cols)*unit, rng), s.buf(((rows-1)*spitch+cols)*unit, rng)
		s.ptr(dst)
		s.ptr(src)
		for _, v := range []int{rows, cols, dpitch, spitch} {
			s.u64(uint64(v))
		}
		s.grid, s.block = ptxsim.Dim3{X: 2, Y: 2}, ptxsim.Dim3{X: 64}
		s.compare(t, variant{kind: kRowCopy, a: int32(unit)}, fmt.Sprintf("rowcopy %d", unit), rng.Uint64())
	}
	for _, size := range []int{1, 2, 4, 8, 16} {
		for mode := PadConstant; mode <= PadWrap; mode++ {
			for rank := 1; rank <= 3; rank++ {
				s := newSimLaunch()
				xd, od, bef := make([]int, rank), make([]int, rank), make([]int, rank)
				xn, on := 1, 1
				for d := range rank {
					xd[d] = 1 + rng.IntN(5)
					bef[d] = rng.IntN(7)
					od[d] = xd[d] + bef[d] + rng.IntN(7)
					xn, on = xn*xd[d], on*od[d]
				}
				out, x := s.buf(on*size, rng), s.buf(xn*size, rng)
				s.ptr(out)
				s.ptr(x)
				s.u64(uint64(on))
				s.u64(rng.Uint64())
				s.u64(rng.Uint64())
				for d := range rank {
					s.u64(uint64(od[d]))
					s.u64(uint64(xd[d]))
					s.u64(uint64(bef[d]))
				}
				s.grid, s.block = ptxsim.Dim3{X: 3}, ptxsim.Dim3{X: 64}
				s.compare(t, variant{kind: kPad, a: int32(size), b: int32(mode), c: int32(rank)},
					fmt.Sprintf("pad size %d mode %d rank %d", size, mode, rank), rng.Uint64())
			}
		}
	}
}

func TestSimCountKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, it := range indexTypes {
		for _, wt := range []dtype.DType{dtype.Invalid, dtype.Int32, dtype.Uint8} {
			for _, nbins := range []int{1 + rng.IntN(50), histShared + 1 + rng.IntN(100)} {
				n := 1 + rng.IntN(2000)
				s := newSimLaunch()
				x := indices(s, it, n, nbins, rng)
				w := uint64(0)
				if wt != dtype.Invalid {
					w = s.buf(n*wt.Size(), rng)
				}
				counts := s.buf(8*nbins, rng)
				if wt != dtype.Invalid {
					b := s.arena.Slice(counts)
					for i := range nbins {
						binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(float64(rng.IntN(9))))
					}
				}
				shared := int32(0)
				if nbins <= histShared {
					shared = 1
				}
				s.ptr(x)
				s.ptr(w)
				s.ptr(counts)
				s.u64(uint64(n))
				s.u64(uint64(nbins))
				s.grid, s.block = ptxsim.Dim3{X: 3}, ptxsim.Dim3{X: 64}
				s.compare(t, variant{kind: kBincount, a: int32(it), b: int32(wt), c: shared},
					fmt.Sprintf("bincount %s weights %s bins %d", it, wt, nbins), rng.Uint64())
			}
		}
	}
	for _, tt := range []dtype.DType{dtype.Int8, dtype.Uint32, dtype.Int64, dtype.Float32, dtype.Float64} {
		for _, ct := range []dtype.DType{dtype.Float32, dtype.Float64} {
			for _, bins := range []int{1 + rng.IntN(30), histShared + 5} {
				n := 1 + rng.IntN(2000)
				s := newSimLaunch()
				x := s.buf(n*tt.Size(), rng)
				xb := s.arena.Slice(x)
				for i := range n {
					f := rng.NormFloat64() * 50
					var v uint64
					switch {
					case tt == dtype.Float32:
						v = uint64(math.Float32bits(float32(f)))
					case tt == dtype.Float64:
						v = math.Float64bits(f)
					default:
						v = uint64(int64(f))
					}
					writeBits(xb, uint64(i), tt.Size(), v)
				}
				counts := s.buf(8*bins, rng)
				lo, hi := -40.0, 60.0
				if tt.IsUnsigned() {
					lo = 0
				}
				edges := histEdges(lo, hi, bins, ct == dtype.Float32)
				e := s.buf((bins+1)*ct.Size(), rng)
				eb := s.arena.Slice(e)
				for i, v := range edges {
					if ct == dtype.Float32 {
						binary.LittleEndian.PutUint32(eb[4*i:], math.Float32bits(float32(v)))
					} else {
						binary.LittleEndian.PutUint64(eb[8*i:], math.Float64bits(v))
					}
				}
				shared := int32(0)
				if bins <= histShared {
					shared = 1
				}
				s.ptr(x)
				s.ptr(counts)
				s.ptr(e)
				s.u64(uint64(n))
				s.u64(uint64(bins))
				s.grid, s.block = ptxsim.Dim3{X: 3}, ptxsim.Dim3{X: 64}
				s.compare(t, variant{kind: kHistogram, a: int32(tt), b: int32(ct), c: shared},
					fmt.Sprintf("histogram %s in %s, %d bins", tt, ct, bins), rng.Uint64())
			}
		}
	}
}

// histEdges is linspace(lo, hi, bins+1) as Histogram computes it.
func histEdges(lo, hi float64, bins int, f32 bool) []float64 {
	r := func(x float64) float64 {
		if f32 {
			return float64(float32(x))
		}
		return x
	}
	lo, hi = r(lo), r(hi)
	step := r(r(hi-lo) / float64(bins))
	edges := make([]float64, bins+1)
	for i := range edges {
		edges[i] = r(r(float64(i)*step) + lo)
	}
	edges[bins] = hi
	return edges
}

// The TopK selection's launches in order on one memory (each compared
// with its twin): passes over the key bytes and the positions, the
// collection and the ranking; few distinct values, so ties at the k-th
// element need the position passes.
func TestSimTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 6))
	for _, tt := range sortTypes {
		for _, desc := range []int32{0, 1} {
			n, k := 600+rng.IntN(600), 1+rng.IntN(120)
			s := newSimLaunch()
			x := keyValues(s, tt, n, rng)
			if rng.IntN(2) == 0 {
				xb := s.arena.Slice(x)
				for i := range n {
					writeBits(xb, uint64(i), tt.Size(), uint64(rng.IntN(3)))
				}
			}
			st := s.buf(topkStateBytes+16*k, rng)
			clear(s.arena.Slice(st)[:topkStateBytes])
			ck, cp := st+topkStateBytes, st+topkStateBytes+uint64(8*k)
			vals, idx := s.buf(k*tt.Size(), rng), s.buf(8*k, rng)
			launch := func(v variant, what string, grid, block uint32, args func()) {
				s.args, s.raw = hostkernel.Args{}, nil
				args()
				s.grid, s.block = ptxsim.Dim3{X: grid}, ptxsim.Dim3{X: block}
				s.compare(t, v, fmt.Sprintf("topk %s desc %d n %d k %d: %s", tt, desc, n, k, what), rng.Uint64())
			}
			pass := func(phase int32, shift int) {
				launch(variant{kind: kTopKPass, a: int32(tt), b: desc, c: phase}, fmt.Sprintf("pass %d shift %d", phase, shift), 3, topkBlock, func() {
					s.ptr(x)
					s.u64(uint64(n))
					s.ptr(st)
					s.u64(uint64(k))
					s.u32(uint32(shift))
				})
			}
			for shift := 8*tt.Size() - 8; shift >= 0; shift -= 8 {
				pass(0, shift)
			}
			for shift := 8; shift >= 0; shift -= 8 {
				pass(1, shift)
			}
			// The collection's slots go in atomic order: its candidates are
			// compared as a set, and the ranking then runs on the PTX's.
			s.args, s.raw = hostkernel.Args{}, nil
			s.ptr(x)
			s.u64(uint64(n))
			s.ptr(st)
			s.ptr(ck)
			s.ptr(cp)
			s.u64(uint64(k))
			cv := variant{kind: kTopKCollect, a: int32(tt), b: desc}
			twin := new(ptxsim.Arena)
			for _, p := range s.ptrs {
				q := twin.Alloc(len(s.arena.Slice(p)))
				copy(twin.Slice(q), s.arena.Slice(p))
			}
			l := hostkernel.NewLaunch(cv.entry(), nil, arenaMem{twin})
			l.Grid.X, l.Block.X, l.Block.Y, l.Block.Z, l.Grid.Y, l.Grid.Z = 2, 128, 1, 1, 1, 1
			l.Args = s.args
			require.NoError(t, generators[kTopKCollect].host(cv)(l))
			mod, err := ptxsim.Parse(cv.source(simHeader))
			require.NoError(t, err)
			require.NoError(t, mod.Run(cv.entry(), ptxsim.Launch{Grid: ptxsim.Dim3{X: 2}, Block: ptxsim.Dim3{X: 128}, Params: s.raw, Mem: s.arena, Seed: rng.Uint64() | 1}))
			pairs := func(a *ptxsim.Arena) map[[2]uint64]bool {
				m := map[[2]uint64]bool{}
				kb, pb := a.Slice(st)[topkStateBytes:], a.Slice(st)[topkStateBytes+8*k:]
				for j := range k {
					m[[2]uint64{binary.LittleEndian.Uint64(kb[8*j:]), binary.LittleEndian.Uint64(pb[8*j:])}] = true
				}
				return m
			}
			require.Equal(t, twin.Slice(st)[:topkStateBytes], s.arena.Slice(st)[:topkStateBytes], "collect: state")
			require.Equal(t, pairs(twin), pairs(s.arena), "collect: candidates")
			require.Len(t, pairs(twin), k)
			launch(variant{kind: kTopKFinish, a: int32(tt), b: desc}, "finish", 1, topkBlock, func() {
				s.ptr(ck)
				s.ptr(cp)
				s.ptr(vals)
				s.ptr(idx)
				s.u64(uint64(k))
			})
		}
	}
}
