package kernels

import (
	"encoding/binary"
	"sort"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// The search kernel: SearchSorted. Each query v[i] is binary-searched in
// the sorted a (n elements) by the sort order (keys, NaN last): out[i] is
// the first position whose key is ≥ v's (left) or > v's (right), as
// int64. Parameters: a, v, out, n, m (u64). Variant: a = element type, b =
// right.
func init() {
	generators[kSearch] = generator{name: "search", ptx: searchPTX, host: searchHost}
}

func searchPTX(v variant, entry, header string) string {
	t, right := dtype.DType(v.a), v.b != 0
	w := 8 * t.Size()
	g := newPTX(entry)
	a, q, out := g.global("a"), g.global("v"), g.global("out")
	n, m := g.param("u64", "n"), g.param("u64", "m")
	tid, ntid := g.wide(g.special("tid.x")), g.wide(g.special("ntid.x"))
	cx, ncx := g.wide(g.special("ctaid.x")), g.wide(g.special("nctaid.x"))
	i, stride := g.r64(), g.r64()
	g.op("mad.lo.u64 %s, %s, %s, %s", i, cx, ntid, tid)
	g.op("mul.lo.u64 %s, %s, %s", stride, ncx, ntid)
	loop, done := g.label("query"), g.label("done")
	g.at(loop)
	p := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", p, i, m)
	g.op("@%s bra %s", p, done)
	kv := g.emitKeyOf(g.loadRawKey(g.addr(q, i, t.Size()), t, ""), t, false)
	lo, hi := g.r64(), g.r64()
	g.op("mov.u64 %s, 0", lo)
	g.op("mov.u64 %s, %s", hi, n)
	bl, bdone := g.label("bisect"), g.label("bisect_done")
	g.at(bl)
	pb := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", pb, lo, hi)
	g.op("@%s bra %s", pb, bdone)
	mid := g.r64()
	g.op("sub.u64 %s, %s, %s", mid, hi, lo)
	g.op("shr.u64 %s, %s, 1", mid, mid)
	g.op("add.u64 %s, %s, %s", mid, mid, lo)
	km := g.emitKeyOf(g.loadRawKey(g.addr(a, mid, t.Size()), t, ""), t, false)
	below := g.pred()
	cmp := "lt"
	if right {
		cmp = "le"
	}
	g.op("setp.%s.u%d %s, %s, %s", cmp, max(w, 32), below, km, kv)
	g.op("@%s add.u64 %s, %s, 1", below, lo, mid)
	g.op("@!%s mov.u64 %s, %s", below, hi, mid)
	g.op("bra %s", bl)
	g.at(bdone)
	g.op("st.global.u64 [%s], %s", g.addr(out, i, 8), lo)
	g.op("add.u64 %s, %s, %s", i, i, stride)
	g.op("bra %s", loop)
	g.at(done)
	return g.module(header)
}

func searchHost(v variant) hostkernel.Kernel {
	t, right := dtype.DType(v.a), v.b != 0
	size := t.Size()
	return func(l *hostkernel.Launch) error {
		args := &l.Args
		n, m := args.U64(3), args.U64(4)
		vw := views{l: l}
		a := vw.bytes(args.Ptr(0), n, uint64(size))
		q := vw.bytes(args.Ptr(1), m, uint64(size))
		out := vw.bytes(args.Ptr(2), m, 8)
		if vw.err != nil {
			return vw.err
		}
		l.ParallelFor(m, func(lo, hi uint64) {
			for i := lo; i < hi; i++ {
				kv := keyOf(readBits(q, i, size), t, false)
				p := sort.Search(int(n), func(j int) bool {
					k := keyOf(readBits(a, uint64(j), size), t, false)
					if right {
						return k > kv
					}
					return k >= kv
				})
				binary.LittleEndian.PutUint64(out[8*i:], uint64(p))
			}
		})
		return nil
	}
}

// Search is one SearchSorted: for each of the M queries of V, its
// insertion position in the N sorted elements of A (type T), into Out
// (int64).
type Search struct {
	A, V, Out *lifetime.Handle
	T         dtype.DType
	N, M      int
	Right     bool
}

// Run queues the search on s.
func (a *Search) Run(call string, s *device.Stream) error {
	if a.M == 0 {
		return nil
	}
	if _, err := keyBits(a.T); err != nil {
		return errArgument(call, "%v", err)
	}
	right := int32(0)
	if a.Right {
		right = 1
	}
	k, err := kernel(s.Device(), variant{kind: kSearch, a: int32(a.T), b: right})
	if err != nil {
		return wrap(call, err)
	}
	cfg := grid1D(s.Device(), a.M, gatherBlock, 1)
	o := lifetime.Claim{Call: call}
	o.Add(a.A, tracking.Read, s)
	o.Add(a.V, tracking.Read, s)
	o.Add(a.Out, tracking.Write, s)
	if err := o.Begin(true); err != nil {
		return err
	}
	err = s.Launch(k, cfg, a.A.Ptr(), a.V.Ptr(), a.Out.Ptr(), uint64(a.N), uint64(a.M))
	o.End()
	return wrap(call, err)
}
