package ptxgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// The math library's entry points, as variables so that tests can observe
// which functions a program asks for: the module-scope definitions the
// copies need, and a copy of a function's body (mathlib_inline.go).
var (
	funcDefs   = InlineDefs
	inlineFunc = InlineFunc
)

// Generate returns a complete PTX module for p: header (the caller's
// .version, .target and .address_size lines), the math functions the
// program calls, and one .entry named p.EntryName() whose parameters are
// p.Params().
func Generate(p *expr.Program, header string) (string, error) {
	if err := p.Validate(); err != nil {
		return "", fmt.Errorf("ptxgen: %w", err)
	}
	g := newGen(p)
	if p.Reduce == expr.NoReduce {
		g.elementwise()
	} else {
		g.reduction()
	}
	var b strings.Builder
	if err := g.writePrelude(&b, header, p.EntryName()); err != nil {
		return "", err
	}
	g.writeEntry(&b)
	return b.String(), nil
}

// writePrelude writes what precedes a module's entry: header, then the
// definitions of the math functions the entry calls (an error names the
// entry when one is unknown).
func (g *gen) writePrelude(b *strings.Builder, header, entry string) error {
	b.WriteString(header)
	if !strings.HasSuffix(header, "\n") {
		b.WriteByte('\n')
	}
	if len(g.funcs) == 0 {
		return nil
	}
	names := make([]string, 0, len(g.funcs))
	for name := range g.funcs {
		names = append(names, name)
	}
	slices.Sort(names)
	defs, err := funcDefs(names)
	if err != nil {
		return fmt.Errorf("ptxgen: math functions for %s: %w", entry, err)
	}
	b.WriteString(defs)
	if !strings.HasSuffix(defs, "\n") {
		b.WriteByte('\n')
	}
	return nil
}

// Register classes. Every instruction gets fresh virtual registers (ptxas
// allocates the real ones): Bool in %p predicates, integers of up to 32
// bits in %r (.b32), 64-bit integers in %rd, float32 in %f, float64 in
// %fd; %h holds 16-bit values in conversions only. Integers of 8 and 16
// bits compute in 32 bits and are re-normalized (sign- or zero-extended
// from their width) after every operation that can leave their range, so
// wrapping, comparisons and division behave as in the narrow type; they
// load with ld.global.s8/u8/s16/u16 straight into 32-bit registers and
// store truncating. Scalars, constants and whatever depends only on them
// are computed once before the loops.
//
// The storage types (storage.go): a Bool array's bytes load into
// predicates (nonzero: true) and store as 0 or 1; Float16 and BFloat16
// live as their bits in %r (zero-extended), converted with cvt.f32.f16
// (BFloat16: the bits shifted up) and rounded by cvt.rn.f16.f32 (BFloat16:
// on the bits, which needs no sm_80 cvt), from float64 through a
// round-to-odd float32, NaN selected to 0x7FFF; a complex value is a pair
// of registers of its part type, written "{%f1, %f2}" (see parts), loaded
// and stored with ld/st.global.v2.
type class int

const (
	clsPred class = iota
	clsB32
	clsB64
	clsF32
	clsF64
	clsB16
	numClasses
)

var classPrefix = [numClasses]string{"%p", "%r", "%rd", "%f", "%fd", "%h"}
var classDecl = [numClasses]string{".pred", ".b32", ".b64", ".f32", ".f64", ".b16"}

func classOf(t dtype.DType) class {
	switch {
	case t == dtype.Bool:
		return clsPred
	case t == dtype.Float32 || t == dtype.Complex64:
		return clsF32
	case t == dtype.Float64 || t == dtype.Complex128:
		return clsF64
	case t.Size() == 8:
		return clsB64
	}
	return clsB32
}

// gen holds one kernel being generated.
type gen struct {
	p       *expr.Program
	idx64   bool
	vec     int
	nregs   [numClasses]int
	body    strings.Builder
	labels  int
	funcs   map[string]bool // math library functions copied in (call)
	inlined int             // copies of them so far: the next one's number

	used      []bool   // instruction feeds the value
	invariant []bool   // instruction is the same for every element
	inv       []string // registers of hoisted invariant instructions

	// Parameters, loaded once.
	dims       []string // u32 or u64 per idx64
	outStrides []string // OutStrided: per dim, index width
	base       []string // per input: global address (seed for Random)
	stream     []string // per input: Random stream
	strides    [][]string
	usesIn     []bool // input read by the code or as positions

	shared []string // module-scope .shared declarations

	shift string // moments: the group's shift (f64 register), see groupShift
}

func newGen(p *expr.Program) *gen {
	g := &gen{p: p, idx64: p.Index64, vec: max(p.Vector, 1), funcs: map[string]bool{}}
	n := len(p.Code)
	g.used = make([]bool, n)
	g.used[n-1] = true
	for i := n - 1; i >= 0; i-- {
		if !g.used[i] {
			continue
		}
		in := p.Code[i]
		for _, a := range []int32{in.A, in.B, in.C}[:in.Op.Arity()] {
			g.used[a] = true
		}
	}
	g.invariant = make([]bool, n)
	for i, in := range p.Code {
		switch in.Op {
		case expr.OpScalar, expr.OpConst:
			g.invariant[i] = true
		case expr.OpInput, expr.OpRandom, expr.OpIota:
		default:
			inv := true
			for _, a := range []int32{in.A, in.B, in.C}[:in.Op.Arity()] {
				inv = inv && g.invariant[a]
			}
			g.invariant[i] = inv
		}
	}
	g.usesIn = make([]bool, len(p.Inputs))
	for i, in := range p.Code {
		if g.used[i] && (in.Op == expr.OpInput || in.Op == expr.OpRandom || in.Op == expr.OpIota) {
			g.usesIn[in.Aux] = true
		}
	}
	if ai := g.argIndex(); ai >= 0 {
		for k := range p.Words() - 1 {
			g.usesIn[ai+k] = true
		}
	}
	return g
}

// argIndex is the input holding the partials' second words (positions,
// a Wide Mean's high words, the moments' counts, followed by their sums
// of squared deviations), or -1.
func (g *gen) argIndex() int {
	if g.p.Reduce != expr.NoReduce && g.p.Words() >= 2 {
		return max(g.p.ArgIndex, -1)
	}
	return -1
}

func (g *gen) reg(c class) string {
	g.nregs[c]++
	return fmt.Sprintf("%s%d", classPrefix[c], g.nregs[c])
}

// regT is a fresh register for a value of type t: a pair for a complex
// type.
func (g *gen) regT(t dtype.DType) string {
	if t.IsComplex() {
		c := classOf(t)
		return pair(g.reg(c), g.reg(c))
	}
	return g.reg(classOf(t))
}

// idxReg is a register for index arithmetic (32 or 64 bits).
func (g *gen) idxReg() string {
	if g.idx64 {
		return g.reg(clsB64)
	}
	return g.reg(clsB32)
}

// it is the PTX type of index arithmetic.
func (g *gen) it() string {
	if g.idx64 {
		return "u64"
	}
	return "u32"
}

func (g *gen) label(what string) string {
	g.labels++
	return fmt.Sprintf("$L_%s_%d", what, g.labels)
}

func (g *gen) emit(format string, args ...any) {
	g.body.WriteByte('\t')
	fmt.Fprintf(&g.body, format, args...)
	g.body.WriteString(";\n")
}

func (g *gen) emitLabel(l string) { fmt.Fprintf(&g.body, "%s:\n", l) }

// emitRaw appends lines produced elsewhere (the math library's calls).
func (g *gen) emitRaw(s string) {
	g.body.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		g.body.WriteByte('\n')
	}
}

func (g *gen) writeEntry(b *strings.Builder) {
	p := g.p
	for _, s := range g.shared {
		fmt.Fprintf(b, "\n%s", s)
	}
	fmt.Fprintf(b, "\n// %s\n.visible .entry %s(\n", strings.ReplaceAll(strings.TrimSpace(p.String()), "\n", "\n// "), p.EntryName())
	params := p.Params()
	for i, prm := range params {
		sep := ","
		if i == len(params)-1 {
			sep = ""
		}
		fmt.Fprintf(b, "\t.param .%s %s%s\n", paramPTX(prm.T), prm.Name, sep)
	}
	b.WriteString(")\n")
	if n := registerCap(p); n > 0 {
		fmt.Fprintf(b, ".maxnreg %d\n", n)
	}
	b.WriteString("{\n")
	for c := range numClasses {
		if g.nregs[c] > 0 {
			fmt.Fprintf(b, "\t.reg %s %s<%d>;\n", classDecl[c], classPrefix[c], g.nregs[c]+1)
		}
	}
	b.WriteString(g.body.String())
	b.WriteString("}\n")
}

// paramPTX is the PTX type of a kernel parameter of type t.
func paramPTX(t dtype.DType) string {
	switch t {
	case dtype.Float32:
		return "f32"
	case dtype.Float64:
		return "f64"
	case dtype.Int64:
		return "s64"
	case dtype.Uint64:
		return "u64"
	case dtype.Int32:
		return "s32"
	}
	return "u32"
}

// loadParams loads dims, input bases, Random seeds and streams and strides,
// and computes the hoisted invariant instructions (scalars, constants and
// what depends only on them).
func (g *gen) loadParams() {
	p := g.p
	if g.needsDims() {
		for d := range p.Rank {
			r := g.reg(clsB64)
			g.emit("ld.param.u64 %s, [dim%d]", r, d)
			g.dims = append(g.dims, g.narrowIdx(r))
		}
	}
	if p.OutStrided {
		for d := range p.Rank {
			g.outStrides = append(g.outStrides, g.strideParam(fmt.Sprintf("out_stride%d", d)))
		}
	}
	g.base = make([]string, len(p.Inputs))
	g.stream = make([]string, len(p.Inputs))
	g.strides = make([][]string, len(p.Inputs))
	for i, in := range p.Inputs {
		if !g.usesIn[i] {
			continue
		}
		switch in.Kind {
		case expr.Iota: // no base: its value is its offset
		case expr.Random:
			r, s := g.reg(clsB64), g.reg(clsB64)
			g.emit("ld.param.u64 %s, [in%d]", r, i)
			g.emit("ld.param.u64 %s, [in%d_stream]", s, i)
			g.base[i], g.stream[i] = r, s
		default:
			r := g.reg(clsB64)
			g.emit("ld.param.u64 %s, [in%d]", r, i)
			g.emit("cvta.to.global.u64 %s, %s", r, r)
			g.base[i] = r
		}
		if in.Strided {
			for d := range p.Rank {
				g.strides[i] = append(g.strides[i], g.strideParam(fmt.Sprintf("in%d_stride%d", i, d)))
			}
		}
	}
	g.inv = make([]string, len(p.Code))
	for i, in := range p.Code {
		if !g.used[i] || !g.invariant[i] {
			continue
		}
		if in.Op == expr.OpScalar {
			g.inv[i] = g.scalar(in)
			continue
		}
		g.inv[i] = g.op(in, g.inv)
	}
}

// strideParam loads the s64 stride parameter name in the index width (a
// 32-bit stride keeps the low word: two's complement, so negative strides
// stay negative).
func (g *gen) strideParam(name string) string {
	s := g.reg(clsB64)
	g.emit("ld.param.s64 %s, [%s]", s, name)
	if g.idx64 {
		return s
	}
	s32 := g.reg(clsB32)
	g.emit("cvt.u32.u64 %s, %s", s32, s)
	return s32
}

// needsDims reports whether out or some used input is addressed through
// dims.
func (g *gen) needsDims() bool {
	if g.p.OutStrided && g.p.Rank > 0 {
		return true
	}
	for i, in := range g.p.Inputs {
		if g.usesIn[i] && in.Strided && g.p.Rank > 0 {
			return true
		}
	}
	return false
}

// narrowIdx converts a u64 register to the index width.
func (g *gen) narrowIdx(r string) string {
	if g.idx64 {
		return r
	}
	r32 := g.reg(clsB32)
	g.emit("cvt.u32.u64 %s, %s", r32, r)
	return r32
}

// scalar loads scalar parameter Aux and converts it to the instruction's type.
func (g *gen) scalar(in expr.Instr) string {
	t := in.T
	name := fmt.Sprintf("s%d", in.Aux)
	switch expr.ParamType(t) {
	case dtype.Float32, dtype.Float64, dtype.Int64, dtype.Uint64:
		r := g.regT(t)
		g.emit("ld.param.%s %s, [%s]", paramPTX(t), r, name)
		return r
	}
	r := g.reg(clsB32)
	g.emit("ld.param.%s %s, [%s]", paramPTX(expr.ParamType(t)), r, name)
	if t == dtype.Bool {
		pr := g.reg(clsPred)
		g.emit("setp.ne.u32 %s, %s, 0", pr, r)
		return pr
	}
	return g.normalize(t, r)
}

// threadIDs reads tid, ntid, ctaid and nctaid into 32-bit registers.
func (g *gen) threadIDs() (tid, ntid, ctaid, nctaid string) {
	tid, ntid, ctaid, nctaid = g.reg(clsB32), g.reg(clsB32), g.reg(clsB32), g.reg(clsB32)
	g.emit("mov.u32 %s, %%tid.x", tid)
	g.emit("mov.u32 %s, %%ntid.x", ntid)
	g.emit("mov.u32 %s, %%ctaid.x", ctaid)
	g.emit("mov.u32 %s, %%nctaid.x", nctaid)
	return
}

// stepIdx converts a u64 loop step to the index width. A 32-bit step is
// clamped to 2³¹: 32-bit indexes are below 2³¹, so a larger step ends the
// loop exactly as the clamped one does, and index + step cannot wrap.
func (g *gen) stepIdx(step64 string) string {
	if g.idx64 {
		return step64
	}
	c := g.reg(clsB64)
	g.emit("min.u64 %s, %s, 2147483648", c, step64)
	return g.narrowIdx(c)
}

// counter is a fresh index-width register holding u64 r, for a loop
// variable that is updated in place.
func (g *gen) counter(r string) string {
	c := g.idxReg()
	if g.idx64 {
		g.emit("mov.u64 %s, %s", c, r)
	} else {
		g.emit("cvt.u32.u64 %s, %s", c, r)
	}
	return c
}
