package ptxgen

import (
	"bytes"
	le "encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/fusion/hosteval"
	"github.com/gpuarr/gpuarr/internal/ptxsim"
)

// The generated PTX of the representative programs runs in the PTX
// interpreter (internal/ptxsim) and must write what the host evaluator
// writes for the same launch: so CI checks the code the GPU would run,
// not only its text.

// arenaMem is a ptxsim.Arena as a host kernel's memory.
type arenaMem struct{ a *ptxsim.Arena }

func (m arenaMem) Bytes(p hostkernel.Ptr, n uint64) ([]byte, error) { return m.a.Bytes(uint64(p), n) }

// simLaunch is one launch of p: its arguments and the allocations of its
// outputs, in an arena that is cloned for each back end.
type simLaunch struct {
	arena      *ptxsim.Arena
	args       hostkernel.Args
	raw        []uint64
	out, out2  uint64
	outBytes   int
	out2Bytes  int
	grid, blk  uint32
	exactFloat bool
}

// simArgs builds a launch of p over a small iteration space with random
// inputs: elementwise over n elements, reductions over groups × glen.
func simArgs(t *testing.T, p *expr.Program, rng *rand.Rand) *simLaunch {
	// One part per group: the back ends may split a group's positions
	// between parts differently, but not the whole group.
	const bpg = 1
	n, groups, glen := 450, 3, 150
	if p.Vector > 1 && p.Reduce != expr.NoReduce {
		groups, glen = 1, n // vector reductions have one group
	}
	ls := &simLaunch{arena: new(ptxsim.Arena), grid: 2, blk: 64}
	dims := map[int][]int{0: nil, 1: {n}, 2: {15, 30}, 3: {5, 9, 10}}[p.Rank]
	outN := n
	if p.Reduce != expr.NoReduce {
		outN = groups
		if p.Stage == expr.Partial {
			outN = groups * bpg
		}
		ls.grid = uint32(outN)
	}
	add := func(k hostkernel.ArgKind, v uint64) {
		require.True(t, ls.args.Append(k, v))
		ls.raw = append(ls.raw, v)
	}
	for _, prm := range p.Params() {
		switch {
		case prm.Name == "out":
			ls.outBytes = outN * p.OutType().Size()
			ls.out = ls.arena.Alloc(ls.outBytes)
			add(hostkernel.ArgKind(1), ls.out)
		case prm.Name == "out2":
			ls.out2Bytes = outN * 8
			ls.out2 = ls.arena.Alloc(ls.out2Bytes)
			add(hostkernel.ArgKind(1), ls.out2)
		case prm.Name == "n", prm.Name == "count":
			add(hostkernel.ArgKind(5), uint64(n))
		case prm.Name == "groups":
			add(hostkernel.ArgKind(5), uint64(groups))
		case prm.Name == "glen":
			add(hostkernel.ArgKind(5), uint64(glen))
		case prm.Name == "bpg":
			add(hostkernel.ArgKind(5), bpg)
		case strings.HasPrefix(prm.Name, "dim"):
			d := int(prm.Name[3] - '0')
			add(hostkernel.ArgKind(5), uint64(dims[d]))
		case strings.Contains(prm.Name, "_stride"):
			d := int(prm.Name[strings.Index(prm.Name, "stride")+6] - '0')
			st := 1
			for _, e := range dims[d+1:] {
				st *= e
			}
			if rng.IntN(4) == 0 {
				st = 0 // broadcast along this axis
			}
			add(hostkernel.ArgKind(4), uint64(int64(st)))
		case strings.HasSuffix(prm.Name, "_stream"):
			add(hostkernel.ArgKind(5), rng.Uint64())
		case strings.HasPrefix(prm.Name, "in"):
			i := int(prm.Name[2] - '0')
			in := p.Inputs[i]
			if in.Kind == expr.Random {
				add(hostkernel.ArgKind(5), rng.Uint64())
				continue
			}
			sz := in.T.Size()
			ptr := ls.arena.Alloc(n * sz)
			b := ls.arena.Slice(ptr)
			for k := 0; k < n; k++ {
				v := randomBits(rng, in.T)
				if p.ArgIndex == i {
					v = uint64(k % glen) // positions
				}
				for j := 0; j < sz; j++ {
					b[k*sz+j] = byte(v >> (8 * j))
				}
			}
			add(hostkernel.ArgKind(1), ptr)
		case strings.HasPrefix(prm.Name, "s"):
			v := randomBits(rng, expr.ParamType(p.Scalars[int(prm.Name[1]-'0')]))
			switch prm.T {
			case dtype.Float32:
				add(hostkernel.ArgKind(6), v)
			case dtype.Float64:
				add(hostkernel.ArgKind(7), v)
			case dtype.Int32:
				add(hostkernel.ArgKind(2), v&math.MaxUint32)
			case dtype.Uint32:
				add(hostkernel.ArgKind(3), v&math.MaxUint32)
			default:
				add(hostkernel.ArgKind(5), v)
			}
		default:
			t.Fatalf("parameter %s", prm.Name)
		}
	}
	return ls
}

// randomBits is a value of type t as its bits: small integers, and floats
// with a few special values.
func randomBits(rng *rand.Rand, t dtype.DType) uint64 {
	switch t {
	case dtype.Float32:
		x := float32(rng.NormFloat64() * 3)
		if rng.IntN(40) == 0 {
			x = float32(math.NaN())
		}
		return uint64(math.Float32bits(x))
	case dtype.Float64:
		x := rng.NormFloat64() * 3
		if rng.IntN(40) == 0 {
			x = math.Inf(1)
		}
		return math.Float64bits(x)
	}
	v := uint64(rng.Int64N(200) - 100)
	if rng.IntN(20) == 0 {
		v = rng.Uint64()
	}
	if t.Size() < 8 {
		v &= 1<<(8*t.Size()) - 1
	}
	return v
}

// clone copies an arena (allocations at the same addresses).
func cloneArena(a *ptxsim.Arena, ptrs []uint64) *ptxsim.Arena {
	c := new(ptxsim.Arena)
	for _, p := range ptrs {
		b := a.Slice(p)
		q := c.Alloc(len(b))
		if q != p {
			panic("arena addresses differ")
		}
		copy(c.Slice(q), b)
	}
	return c
}

func TestSimMatchesHostEvaluator(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	ps := programs()
	names := make([]string, 0, len(ps))
	for name := range ps {
		names = append(names, name)
	}
	slices.Sort(names)
	if testing.Short() {
		// Every kind of program, fewer types.
		var keep []string
		for _, n := range names {
			if !strings.HasSuffix(n, "int16") && !strings.HasSuffix(n, "uint16") && !strings.HasSuffix(n, "uint32") && !strings.HasSuffix(n, "int8") {
				keep = append(keep, n)
			}
		}
		names = keep
	}
	for _, name := range names {
		p := ps[name]
		if hosteval.Check(p) != nil {
			continue // a structural test's program no array launch makes
		}
		ptx, err := Generate(p, genHeader)
		require.NoError(t, err, name)
		mod, err := ptxsim.Parse(ptx)
		require.NoError(t, err, "%s\n%s", name, numberLines(ptx))
		ls := simArgs(t, p, rng)
		var ptrs []uint64
		for p := uint64(0x7f0000000000); ; {
			if _, err := ls.arena.Bytes(p, 1); err != nil {
				break
			}
			ptrs = append(ptrs, p)
			p = (p + uint64(len(ls.arena.Slice(p))) + 256 + 255) &^ 255
		}
		host := cloneArena(ls.arena, ptrs)

		l := hostkernel.NewLaunch(p.EntryName(), nil, arenaMem{host})
		l.Grid.X, l.Block.X = ls.grid, max(ls.blk, 256)
		l.Args = ls.args
		require.NoError(t, hosteval.Kernel(p)(l), name)

		err = mod.Run(p.EntryName(), ptxsim.Launch{Grid: ptxsim.Dim3{X: ls.grid}, Block: ptxsim.Dim3{X: max(ls.blk, 256)},
			Params: ls.raw, Mem: ls.arena, Seed: rng.Uint64() | 1})
		require.NoError(t, err, "%s\n%s", name, numberLines(ptx))

		want, got := host.Slice(ls.out)[:ls.outBytes], ls.arena.Slice(ls.out)[:ls.outBytes]
		if !bytes.Equal(want, got) {
			compareValues(t, name, p, want, got)
		}
		if ls.out2 != 0 {
			require.Equal(t, host.Slice(ls.out2)[:ls.out2Bytes], ls.arena.Slice(ls.out2)[:ls.out2Bytes], "%s: out2", name)
		}
	}
}

// compareValues accepts NaNs with other payloads and float results that
// differ only by the order of a reduction's float64 sums or a math
// function's last bits.
func compareValues(t *testing.T, name string, p *expr.Program, want, got []byte) {
	ot := p.OutType()
	sz := ot.Size()
	loose := p.Reduce != expr.NoReduce || strings.Contains(name, "exp") || strings.Contains(name, "log") ||
		strings.Contains(name, "tanh") || strings.Contains(name, "pow") || strings.Contains(name, "normal") || strings.Contains(name, "consts")
	for i := 0; i+sz <= len(want); i += sz {
		w, g := want[i:i+sz], got[i:i+sz]
		if bytes.Equal(w, g) {
			continue
		}
		if ot.IsFloat() {
			var a, b float64
			if sz == 4 {
				a = float64(math.Float32frombits(le.LittleEndian.Uint32(w)))
				b = float64(math.Float32frombits(le.LittleEndian.Uint32(g)))
			} else {
				a = math.Float64frombits(le.LittleEndian.Uint64(w))
				b = math.Float64frombits(le.LittleEndian.Uint64(g))
			}
			if math.IsNaN(a) && math.IsNaN(b) || loose && math.Abs(a-b) <= 1e-5*math.Max(1, math.Abs(a)) {
				continue
			}
		}
		t.Fatalf("%s: element %d: host %x, simulated PTX %x\n%s", name, i/sz, w, g, p)
	}
}
