package kernels

import (
	"encoding/binary"
	"math"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// Counting kernels: Bincount and Histogram. Blocks count into shared
// memory when the bins fit (histShared of them) and add their counts to
// the result with one atomic per bin; else every element adds to the
// result atomically. The result is zeroed first (by the caller).
//
//	bincount   counts[x[i]] += 1 (int64), or += w[i] (float64, weights):
//	           params x, w, counts, n, nbins (u64). Values outside
//	           [0, nbins) are skipped (the caller rules them out).
//	           Variant: a = x's type, b = weights' type (Invalid: none),
//	           c = shared.
//	histogram  the bin of x[i] in [lo, hi] by NumPy's rule (see
//	           Histogram), counts[bin] += 1: params x, counts, edges
//	           (bins+1 values of the computation type), n, bins (u64).
//	           Variant: a = x's type, b = the computation type (float32
//	           or float64), c = shared.
const histShared = 2048

func init() {
	generators[kBincount] = generator{name: "bincount", ptx: bincountPTX, host: bincountHost}
	generators[kHistogram] = generator{name: "histogram", ptx: histogramPTX, host: histogramHost}
}

// histLoop emits a grid-stride loop over n elements calling body(i).
func (g *ptx) histLoop(n string, body func(i string)) {
	tid, ntid := g.wide(g.special("tid.x")), g.wide(g.special("ntid.x"))
	cx, ncx := g.wide(g.special("ctaid.x")), g.wide(g.special("nctaid.x"))
	i, stride := g.r64(), g.r64()
	g.op("mad.lo.u64 %s, %s, %s, %s", i, cx, ntid, tid)
	g.op("mul.lo.u64 %s, %s, %s", stride, ncx, ntid)
	loop, done := g.label("elem"), g.label("elems_done")
	g.at(loop)
	p := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", p, i, n)
	g.op("@%s bra %s", p, done)
	body(i)
	g.op("add.u64 %s, %s, %s", i, i, stride)
	g.op("bra %s", loop)
	g.at(done)
}

// sharedBins declares the block's bins (8 bytes each), clears them and
// returns their shared address.
func (g *ptx) sharedBins(nbins string) string {
	sh := g.sharedAddr(g.sharedArray("hist_bins", 16, 8*histShared))
	tid := g.special("tid.x")
	ntid := g.special("ntid.x")
	b := g.r32()
	g.op("mov.u32 %s, %s", b, tid)
	loop, done := g.label("clear"), g.label("cleared")
	g.at(loop)
	p := g.pred()
	n32 := g.r32()
	g.op("cvt.u32.u64 %s, %s", n32, nbins)
	g.op("setp.ge.u32 %s, %s, %s", p, b, n32)
	g.op("@%s bra %s", p, done)
	a, zero := g.r32(), g.r64()
	g.op("mad.lo.u32 %s, %s, 8, %s", a, b, sh)
	g.op("mov.u64 %s, 0", zero)
	g.op("st.shared.u64 [%s], %s", a, zero)
	g.op("add.u32 %s, %s, %s", b, b, ntid)
	g.op("bra %s", loop)
	g.at(done)
	g.op("bar.sync 0")
	return sh
}

// flushBins adds the block's bins to out (u64 counts or f64 sums).
func (g *ptx) flushBins(sh, out, nbins string, float bool) {
	g.op("bar.sync 0")
	tid := g.special("tid.x")
	ntid := g.special("ntid.x")
	b := g.r32()
	g.op("mov.u32 %s, %s", b, tid)
	loop, done := g.label("flush"), g.label("flushed")
	g.at(loop)
	p := g.pred()
	n32 := g.r32()
	g.op("cvt.u32.u64 %s, %s", n32, nbins)
	g.op("setp.ge.u32 %s, %s, %s", p, b, n32)
	g.op("@%s bra %s", p, done)
	a := g.r32()
	g.op("mad.lo.u32 %s, %s, 8, %s", a, b, sh)
	v := g.r64()
	g.op("ld.shared.u64 %s, [%s]", v, a)
	nz := g.pred()
	g.op("setp.ne.u64 %s, %s, 0", nz, v)
	dst := g.addr(out, g.wide(b), 8)
	if float {
		f := g.reg(clsF64)
		g.op("mov.b64 %s, %s", f, v)
		g.op("@%s red.global.add.f64 [%s], %s", nz, dst, f)
	} else {
		g.op("@%s red.global.add.u64 [%s], %s", nz, dst, v)
	}
	g.op("add.u32 %s, %s, %s", b, b, ntid)
	g.op("bra %s", loop)
	g.at(done)
}

// toF64 converts a value of type t held as loaded (elemRegs[0]) to f64.
func (g *ptx) toF64(v string, t dtype.DType) string {
	f := g.reg(clsF64)
	switch {
	case t == dtype.Float64:
		g.op("mov.b64 %s, %s", f, v)
	case t == dtype.Float32:
		f32 := g.reg(clsF32)
		g.op("mov.b32 %s, %s", f32, v)
		g.op("cvt.f64.f32 %s, %s", f, f32)
	case t.Size() == 8:
		g.op("cvt.rn.f64.%s %s, %s", memType(t), f, v)
	case t.IsSigned():
		s := g.r32()
		g.op("cvt.s32.%s %s, %s", memType(t), s, v)
		g.op("cvt.rn.f64.s32 %s, %s", f, s)
	default:
		g.op("cvt.rn.f64.u32 %s, %s", f, v)
	}
	return f
}

func bincountPTX(v variant, entry, header string) string {
	it, wt, shared := dtype.DType(v.a), dtype.DType(v.b), v.c != 0
	weighted := wt != dtype.Invalid
	g := newPTX(entry)
	x, w, counts := g.global("x"), g.global("w"), g.global("counts")
	n, nbins := g.param("u64", "n"), g.param("u64", "nbins")
	var sh string
	if shared {
		sh = g.sharedBins(nbins)
	}
	g.histLoop(n, func(i string) {
		j := g.loadIndex(g.addr(x, i, it.Size()), it, "")
		in := g.pred()
		g.op("setp.lt.u64 %s, %s, %s", in, j, nbins) // negative ones are huge
		var f string
		if weighted {
			f = g.toF64(g.loadElem(g.addr(w, i, wt.Size()), wt.Size(), in)[0], wt)
		}
		if shared {
			j32, a := g.r32(), g.r32()
			g.op("cvt.u32.u64 %s, %s", j32, j)
			g.op("mad.lo.u32 %s, %s, 8, %s", a, j32, sh)
			if weighted {
				g.op("@%s red.shared.add.f64 [%s], %s", in, a, f)
			} else {
				g.op("@%s red.shared.add.u64 [%s], %s", in, a, g.one64())
			}
			return
		}
		dst := g.addr(counts, j, 8)
		if weighted {
			g.op("@%s red.global.add.f64 [%s], %s", in, dst, f)
		} else {
			g.op("@%s red.global.add.u64 [%s], %s", in, dst, g.one64())
		}
	})
	if shared {
		g.flushBins(sh, counts, nbins, weighted)
	}
	return g.module(header)
}

func bincountHost(v variant) hostkernel.Kernel {
	it, wt := dtype.DType(v.a), dtype.DType(v.b)
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		n, nbins := a.U64(3), a.U64(4)
		x, err := bytesAt(l, a.Ptr(0), n, uint64(it.Size()))
		if err != nil {
			return err
		}
		var w []byte
		if wt != dtype.Invalid {
			if w, err = bytesAt(l, a.Ptr(1), n, uint64(wt.Size())); err != nil {
				return err
			}
		}
		counts, err := bytesAt(l, a.Ptr(2), nbins, 8)
		if err != nil {
			return err
		}
		le := binary.LittleEndian
		for i := uint64(0); i < n; i++ {
			j := uint64(readInt(x, int(i), it))
			if j >= nbins {
				continue
			}
			if w == nil {
				le.PutUint64(counts[8*j:], le.Uint64(counts[8*j:])+1)
				continue
			}
			s := math.Float64frombits(le.Uint64(counts[8*j:])) + readFloat(w, i, wt)
			le.PutUint64(counts[8*j:], math.Float64bits(s))
		}
		return nil
	}
}

// readFloat reads element i of type t as a float64.
func readFloat(b []byte, i uint64, t dtype.DType) float64 {
	switch t {
	case dtype.Float32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	case dtype.Float64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	case dtype.Uint64:
		return float64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return float64(readInt(b, int(i), t))
}

func histogramPTX(v variant, entry, header string) string {
	t, ct, shared := dtype.DType(v.a), dtype.DType(v.b), v.c != 0
	g := newPTX(entry)
	x, counts, edges := g.global("x"), g.global("counts"), g.global("edges")
	n, bins := g.param("u64", "n"), g.param("u64", "bins")
	var sh string
	if shared {
		sh = g.sharedBins(bins)
	}
	cty, cls := "f64", clsF64
	if ct == dtype.Float32 {
		cty, cls = "f32", clsF32
	}
	edge := func(i string) string {
		r := g.reg(cls)
		g.op("ld.global.%s %s, [%s]", cty, r, g.addr(edges, i, ct.Size()))
		return r
	}
	zero := g.r64()
	g.op("mov.u64 %s, 0", zero)
	lo, hi := edge(zero), edge(bins)
	span, nb := g.reg(cls), g.reg(cls)
	g.op("sub.rn.%s %s, %s, %s", cty, span, hi, lo)
	g.op("cvt.rn.%s.u64 %s, %s", cty, nb, bins)
	last := g.r64()
	g.op("sub.u64 %s, %s, 1", last, bins)
	g.histLoop(n, func(i string) {
		raw := g.loadElem(g.addr(x, i, t.Size()), t.Size(), "")[0]
		f := g.toF64(raw, t)
		val := f
		if ct == dtype.Float32 {
			val = g.reg(clsF32)
			g.op("cvt.rn.f32.f64 %s, %s", val, f)
		}
		keep, k1, k2 := g.pred(), g.pred(), g.pred()
		g.op("setp.ge.%s %s, %s, %s", cty, k1, val, lo)
		g.op("setp.le.%s %s, %s, %s", cty, k2, val, hi)
		g.op("and.pred %s, %s, %s", keep, k1, k2)
		skip := g.label("skip")
		g.op("@!%s bra %s", keep, skip)
		q := g.reg(cls)
		g.op("sub.rn.%s %s, %s, %s", cty, q, val, lo)
		g.op("div.rn.%s %s, %s, %s", cty, q, q, span)
		g.op("mul.rn.%s %s, %s, %s", cty, q, q, nb)
		b := g.r64()
		g.op("cvt.rzi.s64.%s %s, %s", cty, b, q)
		g.op("min.s64 %s, %s, %s", b, b, last)
		g.op("max.s64 %s, %s, 0", b, b)
		dec := g.pred()
		g.op("setp.lt.%s %s, %s, %s", cty, dec, val, edge(b))
		g.op("@%s sub.s64 %s, %s, 1", dec, b, b)
		g.op("max.s64 %s, %s, 0", b, b)
		b1 := g.r64()
		g.op("add.s64 %s, %s, 1", b1, b)
		inc, notLast, ge := g.pred(), g.pred(), g.pred()
		g.op("setp.ge.%s %s, %s, %s", cty, ge, val, edge(b1))
		g.op("setp.ne.s64 %s, %s, %s", notLast, b, last)
		g.op("and.pred %s, %s, %s", inc, ge, notLast)
		g.op("@%s add.s64 %s, %s, 1", inc, b, b)
		if shared {
			b32, a := g.r32(), g.r32()
			g.op("cvt.u32.u64 %s, %s", b32, b)
			g.op("mad.lo.u32 %s, %s, 8, %s", a, b32, sh)
			g.op("red.shared.add.u64 [%s], %s", a, g.one64())
		} else {
			g.op("red.global.add.u64 [%s], %s", g.addr(counts, b, 8), g.one64())
		}
		g.at(skip)
	})
	if shared {
		g.flushBins(sh, counts, bins, false)
	}
	return g.module(header)
}

func histogramHost(v variant) hostkernel.Kernel {
	t, ct := dtype.DType(v.a), dtype.DType(v.b)
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		n, bins := a.U64(3), a.U64(4)
		vw := views{l: l}
		x := vw.bytes(a.Ptr(0), n, uint64(t.Size()))
		counts := vw.bytes(a.Ptr(1), bins, 8)
		eb := vw.bytes(a.Ptr(2), bins+1, uint64(ct.Size()))
		if vw.err != nil {
			return vw.err
		}
		edges := make([]float64, bins+1)
		for i := range edges {
			edges[i] = readFloat(eb, uint64(i), ct)
		}
		le := binary.LittleEndian
		for i := uint64(0); i < n; i++ {
			b, ok := HistogramBin(readFloat(x, i, t), edges, ct == dtype.Float32)
			if ok {
				le.PutUint64(counts[8*b:], le.Uint64(counts[8*b:])+1)
			}
		}
		return nil
	}
}

// HistogramBin is NumPy's bin of v for the uniform bins edges (lo, ...,
// hi), computed in float32 (f32) or float64: the last bin holds hi; values
// outside [lo, hi] and NaN have none.
func HistogramBin(v float64, edges []float64, f32 bool) (int, bool) {
	r := func(x float64) float64 {
		if f32 {
			return float64(float32(x))
		}
		return x
	}
	v = r(v)
	bins := len(edges) - 1
	lo, hi := edges[0], edges[bins]
	if !(v >= lo && v <= hi) {
		return 0, false
	}
	q := r(r(r(v-lo)/r(hi-lo)) * float64(bins))
	b := min(max(int(q), 0), bins-1)
	if v < edges[b] {
		b = max(b-1, 0)
	}
	if b != bins-1 && v >= edges[b+1] {
		b++
	}
	return b, true
}

// Count is one Bincount or Histogram launch over N elements of X (type
// T) into Out (zeroed), with NBins bins.
type Count struct {
	X, W, Out, Edges *lifetime.Handle
	T, WT, CT        dtype.DType
	N, NBins         int
	Histogram        bool
}

// Run queues the counting kernel on s.
func (a *Count) Run(call string, s *device.Stream) error {
	if a.N == 0 || a.NBins == 0 {
		return nil
	}
	for _, t := range []dtype.DType{a.T, a.WT} {
		if t != dtype.Invalid && !countable(t) {
			return errArgument(call, "counting %s values is not supported", t)
		}
	}
	shared := int32(0)
	if a.NBins <= histShared {
		shared = 1
	}
	v := variant{kind: kBincount, a: int32(a.T), b: int32(a.WT), c: shared}
	if a.Histogram {
		v = variant{kind: kHistogram, a: int32(a.T), b: int32(a.CT), c: shared}
	}
	k, err := kernel(s.Device(), v)
	if err != nil {
		return wrap(call, err)
	}
	cfg := grid1D(s.Device(), a.N, gatherBlock, 4)
	o := lifetime.Claim{Call: call}
	o.Add(a.X, tracking.Read, s)
	o.Add(a.Out, tracking.ReadWrite, s)
	wp, ep := device.Ptr(0), device.Ptr(0)
	if a.W != nil {
		o.Add(a.W, tracking.Read, s)
		wp = a.W.Ptr()
	}
	if a.Edges != nil {
		o.Add(a.Edges, tracking.Read, s)
		ep = a.Edges.Ptr()
	}
	if err := o.Begin(true); err != nil {
		return err
	}
	if a.Histogram {
		err = s.Launch(k, cfg, a.X.Ptr(), a.Out.Ptr(), ep, uint64(a.N), uint64(a.NBins))
	} else {
		err = s.Launch(k, cfg, a.X.Ptr(), wp, a.Out.Ptr(), uint64(a.N), uint64(a.NBins))
	}
	o.End()
	return wrap(call, err)
}

// one64 is a register holding 1 (u64).
func (g *ptx) one64() string {
	r := g.r64()
	g.op("mov.u64 %s, 1", r)
	return r
}

// countable reports whether the counting kernels read values of type t
// (toF64 converts them).
func countable(t dtype.DType) bool { return t.IsInt() || t == dtype.Float32 || t == dtype.Float64 }
