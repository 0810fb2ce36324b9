package kernels

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// Joining kernels.
//
//	rowcopy  dst[r·dpitch + c] = src[r·spitch + c] for r < rows, c < cols,
//	         in units of a elements' bytes (the widest of 16, 8, 4, 2, 1
//	         that divides every size, pitch and address): params dst, src,
//	         rows, cols, dpitch, spitch (u64, in units). Concatenate along
//	         an axis other than the first writes each input's rows so.
//	pad      out[i] for every element of the output (rank ≤ 8): per axis,
//	         j = i_d - before_d, mapped into [0, n_d) by the mode (edge:
//	         clamp; reflect: period 2(n-1), mirrored without the edge;
//	         symmetric: period 2n, mirrored with it; wrap: mod n) or, for
//	         the constant mode outside, the value: params out, x, total,
//	         value, value_hi (the element's bits, low and high 8 bytes),
//	         then per axis out extent, in extent, before (u64). Variant: a = element size, b = mode, c =
//	         rank.

// Pad modes, as NumPy's pad modes.
const (
	PadConstant = iota
	PadEdge
	PadReflect
	PadSymmetric
	PadWrap
)

func init() {
	generators[kRowCopy] = generator{name: "rowcopy", ptx: rowCopyPTX, host: rowCopyHost}
	generators[kPad] = generator{name: "pad", ptx: padPTX, host: padHost}
}

func rowCopyPTX(v variant, entry, header string) string {
	unit := int(v.a)
	g := newPTX(entry)
	dst, src := g.global("dst"), g.global("src")
	rows, cols, dpitch, spitch := g.param("u64", "rows"), g.param("u64", "cols"), g.param("u64", "dpitch"), g.param("u64", "spitch")
	l := g.rows2D(rows)
	r, first, stride, nextRow := l.R, l.First, l.Stride, l.Next
	drow, srow := g.r64(), g.r64()
	g.op("mul.lo.u64 %s, %s, %s", drow, r, dpitch)
	g.op("mul.lo.u64 %s, %s, %s", srow, r, spitch)
	c := g.r64()
	g.op("mov.u64 %s, %s", c, first)
	colLoop := g.label("col")
	g.at(colLoop)
	pc := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", pc, c, cols)
	g.op("@%s bra %s", pc, nextRow)
	si, di := g.r64(), g.r64()
	g.op("add.u64 %s, %s, %s", si, srow, c)
	g.op("add.u64 %s, %s, %s", di, drow, c)
	val := g.loadElem(g.addr(src, si, unit), unit, "")
	g.storeElem(g.addr(dst, di, unit), unit, val, "")
	g.op("add.u64 %s, %s, %s", c, c, stride)
	g.op("bra %s", colLoop)
	g.closeRows(l)
	return g.module(header)
}

func rowCopyHost(v variant) hostkernel.Kernel {
	unit := uint64(v.a)
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		rows, cols, dpitch, spitch := a.U64(2), a.U64(3), a.U64(4), a.U64(5)
		if rows*cols == 0 {
			return nil
		}
		vw := views{l: l}
		dst := vw.bytes(a.Ptr(0), (rows-1)*dpitch+cols, unit)
		src := vw.bytes(a.Ptr(1), (rows-1)*spitch+cols, unit)
		if vw.err != nil {
			return vw.err
		}
		l.ParallelFor(rows, func(lo, hi uint64) {
			for r := lo; r < hi; r++ {
				copy(dst[r*dpitch*unit:(r*dpitch+cols)*unit], src[r*spitch*unit:(r*spitch+cols)*unit])
			}
		})
		return nil
	}
}

// CopyRows copies rows of cols elements of size bytes from src (rows
// spitch elements apart) into dst (dpitch apart, starting at element
// doff), on s.
func CopyRows(call string, s *device.Stream, dst *lifetime.Handle, doff, dpitch int, src *lifetime.Handle, spitch, rows, cols, size int) error {
	if rows*cols == 0 {
		return nil
	}
	o := lifetime.Claim{Call: call}
	o.Add(src, tracking.Read, s)
	o.Add(dst, tracking.Write, s)
	if rows == 1 || cols == dpitch && cols == spitch {
		// One contiguous block: the driver's copy.
		if err := o.Begin(false); err != nil {
			return err
		}
		err := s.CopyDtoD(dst.Ptr().Add(uint64(doff*size)), src.Ptr(), uint64(rows*cols*size))
		o.End()
		return wrap(call, err)
	}
	dp := dst.Ptr().Add(uint64(doff * size))
	unit := size
	for _, u := range []int{16, 8, 4, 2} {
		if u > size && cols*size%u == 0 && dpitch*size%u == 0 && spitch*size%u == 0 && uint64(dp)%uint64(u) == 0 && uint64(src.Ptr())%uint64(u) == 0 {
			unit = u
			break
		}
	}
	k, err := kernel(s.Device(), variant{kind: kRowCopy, a: int32(unit)})
	if err != nil {
		return wrap(call, err)
	}
	ucols, udp, usp := cols*size/unit, dpitch*size/unit, spitch*size/unit
	cfg := grid2D(s.Device(), ucols, rows, gatherBlock, 1)
	if err := o.Begin(true); err != nil {
		return err
	}
	err = s.Launch(k, cfg, dp, src.Ptr(), uint64(rows), uint64(ucols), uint64(udp), uint64(usp))
	o.End()
	return wrap(call, err)
}

func padPTX(v variant, entry, header string) string {
	size, mode, rank := int(v.a), int(v.b), int(v.c)
	g := newPTX(entry)
	out, x := g.global("out"), g.global("x")
	total, value, valueHi := g.param("u64", "total"), g.param("u64", "value"), g.param("u64", "value_hi")
	od, xd, bef := make([]string, rank), make([]string, rank), make([]string, rank)
	for d := range rank {
		od[d] = g.param("u64", "odim"+itoa(d))
		xd[d] = g.param("u64", "xdim"+itoa(d))
		bef[d] = g.param("u64", "before"+itoa(d))
	}
	tid, ntid := g.wide(g.special("tid.x")), g.wide(g.special("ntid.x"))
	cx, ncx := g.wide(g.special("ctaid.x")), g.wide(g.special("nctaid.x"))
	i, stride := g.r64(), g.r64()
	g.op("mad.lo.u64 %s, %s, %s, %s", i, cx, ntid, tid)
	g.op("mul.lo.u64 %s, %s, %s", stride, ncx, ntid)
	loop, done := g.label("elem"), g.label("done")
	g.at(loop)
	p := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", p, i, total)
	g.op("@%s bra %s", p, done)
	// Decompose i over the output dims, last fastest; map each index.
	rem := g.r64()
	g.op("mov.u64 %s, %s", rem, i)
	src := g.r64() // source offset, row-major over x's dims
	g.op("mov.u64 %s, 0", src)
	inside := g.pred()
	g.op("setp.eq.u64 %s, %s, %s", inside, i, i)
	idx := make([]string, rank)
	for d := rank - 1; d >= 0; d-- {
		q := g.r64()
		idx[d] = g.r64()
		g.op("div.u64 %s, %s, %s", q, rem, od[d])
		g.op("mul.lo.u64 %s, %s, %s", idx[d], q, od[d])
		g.op("sub.u64 %s, %s, %s", idx[d], rem, idx[d])
		rem = q
	}
	mul := g.r64()
	g.op("mov.u64 %s, 1", mul)
	for d := rank - 1; d >= 0; d-- {
		j := g.r64()
		g.op("sub.s64 %s, %s, %s", j, idx[d], bef[d])
		n := xd[d]
		switch mode {
		case PadConstant:
			in, lo, hi := g.pred(), g.pred(), g.pred()
			g.op("setp.ge.s64 %s, %s, 0", lo, j)
			g.op("setp.lt.s64 %s, %s, %s", hi, j, n)
			g.op("and.pred %s, %s, %s", in, lo, hi)
			g.op("and.pred %s, %s, %s", inside, inside, in)
		case PadEdge:
			g.op("max.s64 %s, %s, 0", j, j)
			nm := g.r64()
			g.op("sub.s64 %s, %s, 1", nm, n)
			g.op("min.s64 %s, %s, %s", j, j, nm)
		case PadWrap:
			g.op("rem.s64 %s, %s, %s", j, j, n)
			neg := g.pred()
			g.op("setp.lt.s64 %s, %s, 0", neg, j)
			g.op("@%s add.s64 %s, %s, %s", neg, j, j, n)
		default: // reflect (period 2(n-1)) or symmetric (period 2n)
			period := g.r64()
			if mode == PadReflect {
				g.op("sub.s64 %s, %s, 1", period, n)
				g.op("shl.b64 %s, %s, 1", period, period)
				g.op("max.s64 %s, %s, 1", period, period) // n = 1: every index is 0
			} else {
				g.op("shl.b64 %s, %s, 1", period, n)
			}
			g.op("rem.s64 %s, %s, %s", j, j, period)
			neg := g.pred()
			g.op("setp.lt.s64 %s, %s, 0", neg, j)
			g.op("@%s add.s64 %s, %s, %s", neg, j, j, period)
			back, fl := g.pred(), g.r64()
			g.op("setp.ge.s64 %s, %s, %s", back, j, n)
			if mode == PadReflect {
				g.op("sub.s64 %s, %s, %s", fl, period, j)
			} else {
				g.op("sub.s64 %s, %s, %s", fl, period, j)
				g.op("sub.s64 %s, %s, 1", fl, fl)
			}
			g.op("@%s mov.b64 %s, %s", back, j, fl)
		}
		g.op("mad.lo.u64 %s, %s, %s, %s", src, j, mul, src)
		g.op("mul.lo.u64 %s, %s, %s", mul, mul, n)
	}
	val := g.loadElem(g.addr(x, src, size), size, inside)
	if mode == PadConstant {
		out := g.pred()
		g.op("not.pred %s, %s", out, inside)
		_, cls, _ := moveType(size)
		if size == 16 {
			g.op("@%s mov.b64 %s, %s", out, val[0], value)
			g.op("@%s mov.b64 %s, %s", out, val[1], valueHi)
		} else if cls == clsB64 {
			g.op("@%s mov.b64 %s, %s", out, val[0], value)
		} else {
			g.op("@%s cvt.u32.u64 %s, %s", out, val[0], value)
		}
	}
	g.storeElem(g.addr(out, i, size), size, val, "")
	g.op("add.u64 %s, %s, %s", i, i, stride)
	g.op("bra %s", loop)
	g.at(done)
	return g.module(header)
}

func itoa(i int) string { return string(rune('0' + i)) }

func padHost(v variant) hostkernel.Kernel {
	size, mode, rank := int(v.a), int(v.b), int(v.c)
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		total, value, valueHi := a.U64(2), a.U64(3), a.U64(4)
		od, xd, bef := make([]int64, rank), make([]int64, rank), make([]int64, rank)
		xn := int64(1)
		for d := range rank {
			od[d], xd[d], bef[d] = int64(a.U64(5+3*d)), int64(a.U64(6+3*d)), int64(a.U64(7+3*d))
			xn *= xd[d]
		}
		vw := views{l: l}
		out := vw.bytes(a.Ptr(0), total, uint64(size))
		x := vw.bytes(a.Ptr(1), uint64(xn), uint64(size))
		if vw.err != nil {
			return vw.err
		}
		var vb [16]byte
		for k := range 8 {
			vb[k], vb[8+k] = byte(value>>(8*k)), byte(valueHi>>(8*k))
		}
		l.ParallelFor(total, func(lo, hi uint64) {
			for i := lo; i < hi; i++ {
				rem := int64(i)
				src, mul, inside := int64(0), int64(1), true
				idx := make([]int64, rank)
				for d := rank - 1; d >= 0; d-- {
					idx[d] = rem % od[d]
					rem /= od[d]
				}
				for d := rank - 1; d >= 0; d-- {
					j, n := idx[d]-bef[d], xd[d]
					switch mode {
					case PadConstant:
						inside = inside && j >= 0 && j < n
					case PadEdge:
						j = min(max(j, 0), n-1)
					case PadWrap:
						j %= n
						if j < 0 {
							j += n
						}
					default:
						period := 2 * n
						if mode == PadReflect {
							period = max(2*(n-1), 1)
						}
						j %= period
						if j < 0 {
							j += period
						}
						if j >= n {
							if mode == PadReflect {
								j = period - j
							} else {
								j = period - 1 - j
							}
						}
					}
					src += j * mul
					mul *= n
				}
				if inside {
					moveElem(out, int(i), x, int(src), size)
				} else {
					copy(out[int(i)*size:int(i+1)*size], vb[:size])
				}
			}
		})
		return nil
	}
}

// Pad is one Pad: X (contiguous, dims XDims) into Out (dims ODims), with
// Before elements before each axis, by Mode; Value is the constant's bits
// (an element of up to 16 bytes, little-endian).
type Pad struct {
	Out, X       *lifetime.Handle
	Size, Mode   int
	ODims, XDims []int
	Before       []int
	Value        [2]uint64
}

// Run queues the pad on s.
func (a *Pad) Run(call string, s *device.Stream) error {
	total := a.Out.Len()
	if total == 0 {
		return nil
	}
	k, err := kernel(s.Device(), variant{kind: kPad, a: int32(a.Size), b: int32(a.Mode), c: int32(len(a.ODims))})
	if err != nil {
		return wrap(call, err)
	}
	args := []any{a.Out.Ptr(), a.X.Ptr(), uint64(total), a.Value[0], a.Value[1]}
	for d := range a.ODims {
		args = append(args, uint64(a.ODims[d]), uint64(a.XDims[d]), uint64(a.Before[d]))
	}
	o := lifetime.Claim{Call: call}
	o.Add(a.X, tracking.Read, s)
	o.Add(a.Out, tracking.Write, s)
	if err := o.Begin(true); err != nil {
		return err
	}
	err = s.Launch(k, grid1D(s.Device(), total, gatherBlock, 1), args...)
	o.End()
	return wrap(call, err)
}
