package kernels

import (
	"fmt"
	"strings"
)

// ptx builds one module with one entry point: parameters, virtual
// registers (ptxas allocates the real ones), labels, module-scope shared
// memory and .func helpers.
type ptx struct {
	entry  string
	params []string // ".param .u64 name"
	body   strings.Builder
	nregs  [numClasses]int
	labels int
	shared []string
	funcs  map[string]string // name → .func text
	// tuning holds the entry's performance directives (.maxntid,
	// .minnctapersm), if any.
	tuning string
}

// Register classes: predicates, 32- and 64-bit integers (and raw bits),
// float32 and float64.
type class int

const (
	clsPred class = iota
	clsB32
	clsB64
	clsF32
	clsF64
	numClasses
)

var (
	classPrefix = [numClasses]string{"%p", "%r", "%rd", "%f", "%fd"}
	classDecl   = [numClasses]string{".pred", ".b32", ".b64", ".f32", ".f64"}
)

func newPTX(entry string) *ptx { return &ptx{entry: entry, funcs: map[string]string{}} }

func (g *ptx) reg(c class) string {
	g.nregs[c]++
	return fmt.Sprintf("%s%d", classPrefix[c], g.nregs[c])
}

func (g *ptx) pred() string { return g.reg(clsPred) }
func (g *ptx) r32() string  { return g.reg(clsB32) }
func (g *ptx) r64() string  { return g.reg(clsB64) }

// op emits one instruction (the ; is added).
func (g *ptx) op(format string, args ...any) {
	g.body.WriteByte('\t')
	fmt.Fprintf(&g.body, format, args...)
	g.body.WriteString(";\n")
}

// label returns a fresh label; at places it.
func (g *ptx) label(what string) string {
	g.labels++
	return fmt.Sprintf("$L_%s_%d", what, g.labels)
}

func (g *ptx) at(l string) { fmt.Fprintf(&g.body, "%s:\n", l) }

// param declares a parameter of PTX type t (u64, u32, s64, f32, ...) and
// loads it into a fresh register.
func (g *ptx) param(t, name string) string {
	g.params = append(g.params, fmt.Sprintf(".param .%s %s", t, name))
	var r string
	switch t {
	case "u64", "s64", "b64":
		r = g.r64()
	case "f32":
		r = g.reg(clsF32)
	case "f64":
		r = g.reg(clsF64)
	default:
		r = g.r32()
	}
	g.op("ld.param.%s %s, [%s]", t, r, name)
	return r
}

// global is a pointer parameter converted to a global address.
func (g *ptx) global(name string) string {
	r := g.param("u64", name)
	g.op("cvta.to.global.u64 %s, %s", r, r)
	return r
}

// sharedArray declares a module-scope shared array of n bytes aligned to
// align and returns its name.
func (g *ptx) sharedArray(name string, align, n int) string {
	g.shared = append(g.shared, fmt.Sprintf(".shared .align %d .b8 %s[%d];", align, name, max(n, align)))
	return name
}

// sharedAddr is the 32-bit shared address of a shared array.
func (g *ptx) sharedAddr(name string) string {
	r := g.r32()
	g.op("mov.u32 %s, %s", r, name)
	return r
}

// tid and friends read the special registers as u32.
func (g *ptx) special(name string) string {
	r := g.r32()
	g.op("mov.u32 %s, %%%s", r, name)
	return r
}

// wide converts a u32 register to u64.
func (g *ptx) wide(r32 string) string {
	r := g.r64()
	g.op("cvt.u64.u32 %s, %s", r, r32)
	return r
}

// addr is base + i·size (i a u64 register).
func (g *ptx) addr(base, i string, size int) string {
	a := g.r64()
	switch size {
	case 1:
		g.op("add.s64 %s, %s, %s", a, base, i)
	default:
		off := g.r64()
		if size&(size-1) == 0 {
			g.op("shl.b64 %s, %s, %d", off, i, log2(size))
		} else {
			g.op("mul.lo.u64 %s, %s, %d", off, i, size)
		}
		g.op("add.s64 %s, %s, %s", a, base, off)
	}
	return a
}

func log2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// module is the whole text: header, shared arrays, functions, entry.
func (g *ptx) module(header string) string {
	var b strings.Builder
	b.WriteString(header)
	if !strings.HasSuffix(header, "\n") {
		b.WriteByte('\n')
	}
	for _, s := range g.shared {
		b.WriteString(s)
		b.WriteByte('\n')
	}
	for _, name := range sortedKeys(g.funcs) {
		b.WriteString(g.funcs[name])
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, ".visible .entry %s(\n", g.entry)
	for i, p := range g.params {
		sep := ","
		if i == len(g.params)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "\t%s%s\n", p, sep)
	}
	b.WriteString(")\n")
	if g.tuning != "" {
		b.WriteString(g.tuning)
		b.WriteByte('\n')
	}
	b.WriteString("{\n")
	for c := range numClasses {
		if g.nregs[c] > 0 {
			fmt.Fprintf(&b, "\t.reg %s %s<%d>;\n", classDecl[c], classPrefix[c], g.nregs[c]+1)
		}
	}
	b.WriteString(g.body.String())
	b.WriteString("\tret;\n}\n")
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j] < ks[j-1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

// warpScan returns the inclusive sum of the u32 v over the warp's lanes
// up to this one (lane is the thread's lane, u32): five shuffles up.
func (p *ptx) warpScan(v, lane string) string {
	incl := p.r32()
	p.op("mov.u32 %s, %s", incl, v)
	for d := 1; d < 32; d *= 2 {
		o, in := p.r32(), p.pred()
		p.op("shfl.sync.up.b32 %s, %s, %d, 0, -1", o, incl, d)
		p.op("setp.ge.u32 %s, %s, %d", in, lane, d)
		p.op("@%s add.u32 %s, %s, %s", in, incl, incl, o)
	}
	return incl
}

// rowLoop is the loop of a kernel launched by grid2D: blockIdx.y strides
// over rows (R, from ctaid.y by nctaid.y) and, within a row, a thread's
// columns start at First and step by Stride (x blocks of threads). The
// body follows rows2D; a jump to Next ends the row early; closeRows ends
// the loop.
type rowLoop struct {
	R, First, Stride string
	Next             string // the label of the next row
	ncy, top, done   string
}

// rows2D opens a row loop over rows (a u64 register).
func (g *ptx) rows2D(rows string) *rowLoop {
	tid, ntid := g.wide(g.special("tid.x")), g.wide(g.special("ntid.x"))
	cx, ncx := g.wide(g.special("ctaid.x")), g.wide(g.special("nctaid.x"))
	cy, ncy := g.wide(g.special("ctaid.y")), g.wide(g.special("nctaid.y"))
	l := &rowLoop{R: g.r64(), First: g.r64(), Stride: g.r64(), ncy: ncy}
	g.op("mad.lo.u64 %s, %s, %s, %s", l.First, cx, ntid, tid)
	g.op("mul.lo.u64 %s, %s, %s", l.Stride, ncx, ntid)
	g.op("mov.u64 %s, %s", l.R, cy)
	l.top, l.done, l.Next = g.label("row"), g.label("done"), g.label("next_row")
	g.at(l.top)
	pr := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", pr, l.R, rows)
	g.op("@%s bra %s", pr, l.done)
	return l
}

// closeRows ends l: the next row, then the loop's exit.
func (g *ptx) closeRows(l *rowLoop) {
	g.at(l.Next)
	g.op("add.u64 %s, %s, %s", l.R, l.R, l.ncy)
	g.op("bra %s", l.top)
	g.at(l.done)
}
