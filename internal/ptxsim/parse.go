package ptxsim

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Module is a parsed PTX module: its entries, .func functions and
// module-scope .shared variables.
type Module struct {
	funcs  map[string]*function
	shared []sharedVar // module scope, in declaration order
	// sharedSize is the bytes of static shared memory every block has
	// (module-scope variables and those of every function).
	sharedSize int
	// dynBase is where extern (dynamic) shared memory starts.
	dynBase int
	syms    map[string]int // shared variable → offset in the block's shared memory
	// consts holds the module's .const arrays, laid out one after another;
	// constSyms their offsets in it (their addresses in the .const space).
	consts    []byte
	constSyms map[string]int
}

type sharedVar struct {
	name  string
	align int
	size  int
	dyn   bool // .extern, size from the launch
}

// function is an .entry or a .func.
type function struct {
	name   string
	entry  bool
	params []param // in order
	ret    []param // .func return parameters
	code   []instr
	labels map[string]int
	regs   map[string]int // register name → slot
	nregs  int
	locals map[string]int // .param variables declared in the body → slot in the frame's param space
}

type param struct {
	name string
	typ  ptype
	size int
}

// ptype is a PTX scalar type.
type ptype struct {
	kind byte // 's', 'u', 'b', 'f', 'p' (pred), 'h' (bf16)
	bits int
}

func (t ptype) String() string {
	if t.kind == 'p' {
		return "pred"
	}
	return fmt.Sprintf("%c%d", t.kind, t.bits)
}

func parseType(s string) (ptype, bool) {
	switch s {
	case "pred":
		return ptype{'p', 1}, true
	case "bf16":
		return ptype{'h', 16}, true
	}
	if len(s) < 2 {
		return ptype{}, false
	}
	switch s[0] {
	case 's', 'u', 'b', 'f':
	default:
		return ptype{}, false
	}
	n, err := strconv.Atoi(s[1:])
	if err != nil || (n != 8 && n != 16 && n != 32 && n != 64) {
		return ptype{}, false
	}
	return ptype{s[0], n}, true
}

var (
	reEntry  = regexp.MustCompile(`(?s)(\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)`)
	reFunc   = regexp.MustCompile(`(?s)(\.visible\s+|\.weak\s+)?\.func\s+(\(([^)]*)\)\s*)?([A-Za-z_$][\w$]*)\s*\(([^)]*)\)`)
	reShared = regexp.MustCompile(`(\.extern\s+)?\.shared\s+(\.align\s+(\d+)\s+)?\.(\w+)\s+([A-Za-z_$][\w$]*)\s*(\[(\d*)\])?`)
	reConst  = regexp.MustCompile(`\.const\s+(\.align\s+(\d+)\s+)?\.(\w+)\s+([A-Za-z_$][\w$]*)\s*\[(\d+)\]\s*(=\s*\{([^}]*)\})?\s*;`)
	reRegs   = regexp.MustCompile(`^(%[A-Za-z_$][\w$]*)<(\d+)>$`)
)

// Parse reads a PTX module. It accepts what it can run and reports
// anything else it meets with the line it is on.
func Parse(src string) (*Module, error) {
	text := stripComments(src)
	m := &Module{funcs: map[string]*function{}, syms: map[string]int{}, constSyms: map[string]int{}}
	// Bodies: each .entry or .func header is followed by { ... }.
	type span struct{ lo, hi int }
	var bodies []span
	type header struct {
		at    int
		f     *function
		start int // index just past the header
	}
	var heads []header
	for _, mm := range reEntry.FindAllStringSubmatchIndex(text, -1) {
		f := &function{name: text[mm[4]:mm[5]], entry: true}
		ps, err := parseParams(text[mm[6]:mm[7]])
		if err != nil {
			return nil, fmt.Errorf("ptxsim: entry %s: %w", f.name, err)
		}
		f.params = ps
		heads = append(heads, header{mm[0], f, mm[1]})
	}
	for _, mm := range reFunc.FindAllStringSubmatchIndex(text, -1) {
		f := &function{name: text[mm[8]:mm[9]]}
		if mm[6] >= 0 {
			ps, err := parseParams(text[mm[6]:mm[7]])
			if err != nil {
				return nil, fmt.Errorf("ptxsim: func %s: %w", f.name, err)
			}
			f.ret = ps
		}
		ps, err := parseParams(text[mm[10]:mm[11]])
		if err != nil {
			return nil, fmt.Errorf("ptxsim: func %s: %w", f.name, err)
		}
		f.params = ps
		heads = append(heads, header{mm[0], f, mm[1]})
	}
	for _, h := range heads {
		open := strings.IndexByte(text[h.start:], '{')
		if open < 0 {
			return nil, fmt.Errorf("ptxsim: %s has no body", h.f.name)
		}
		lo := h.start + open
		depth, hi := 0, -1
		for i := lo; i < len(text); i++ {
			switch text[i] {
			case '{':
				depth++
			case '}':
				depth--
			}
			if depth == 0 {
				hi = i
				break
			}
		}
		if hi < 0 {
			return nil, fmt.Errorf("ptxsim: the body of %s is not closed", h.f.name)
		}
		bodies = append(bodies, span{h.at, hi + 1})
		if err := m.parseBody(h.f, text[lo+1:hi]); err != nil {
			return nil, fmt.Errorf("ptxsim: %s: %w", h.f.name, err)
		}
		if _, dup := m.funcs[h.f.name]; dup {
			return nil, fmt.Errorf("ptxsim: %s defined twice", h.f.name)
		}
		m.funcs[h.f.name] = h.f
	}
	// Module-scope .shared variables: outside every body.
	outside := []byte(text)
	for _, b := range bodies {
		for i := b.lo; i < b.hi; i++ {
			outside[i] = ' '
		}
	}
	for _, mm := range reConst.FindAllStringSubmatch(string(outside), -1) {
		if err := m.constDecl(mm); err != nil {
			return nil, fmt.Errorf("ptxsim: %w", err)
		}
	}
	for _, mm := range reShared.FindAllStringSubmatch(string(outside), -1) {
		v, err := sharedDecl(mm)
		if err != nil {
			return nil, fmt.Errorf("ptxsim: %w", err)
		}
		m.shared = append(m.shared, v)
	}
	// Lay shared memory out: static variables first, then the dynamic
	// region (all extern declarations alias it).
	off := 0
	var dyn []sharedVar
	for _, v := range m.shared {
		if v.dyn {
			dyn = append(dyn, v)
			continue
		}
		off = alignUp(off, v.align)
		if _, dup := m.syms[v.name]; dup {
			return nil, fmt.Errorf("ptxsim: shared variable %s declared twice", v.name)
		}
		m.syms[v.name] = off
		off += v.size
	}
	m.sharedSize = off
	m.dynBase = alignUp(off, 16)
	for _, v := range dyn {
		m.syms[v.name] = m.dynBase
	}
	// Resolve symbols now that shared memory is laid out.
	for _, f := range m.funcs {
		for i := range f.code {
			in := &f.code[i]
			for k := range in.ops {
				if err := m.resolve(f, &in.ops[k]); err != nil {
					return nil, fmt.Errorf("ptxsim: %s line %q: %w", f.name, in.text, err)
				}
			}
		}
	}
	for _, f := range m.funcs {
		for i := range f.code {
			in := &f.code[i]
			ex, err := m.compile(f, in)
			if err != nil {
				return nil, fmt.Errorf("ptxsim: %s: %q: %w", f.name, in.text, err)
			}
			in.exec = ex
			switch strings.Split(in.opcode, ".")[0] {
			case "bra", "call", "ret", "exit":
				in.control = true
			}
		}
	}
	return m, nil
}

func alignUp(x, a int) int {
	if a <= 1 {
		return x
	}
	return (x + a - 1) / a * a
}

func sharedDecl(mm []string) (sharedVar, error) {
	v := sharedVar{name: mm[5], align: 1, dyn: mm[1] != ""}
	if mm[3] != "" {
		v.align, _ = strconv.Atoi(mm[3])
	}
	t, ok := parseType(mm[4])
	if !ok {
		return v, fmt.Errorf("shared variable %s: type .%s", v.name, mm[4])
	}
	elem := t.bits / 8
	v.align = max(v.align, elem)
	v.size = elem
	if mm[6] != "" {
		if mm[7] == "" {
			if !v.dyn {
				return v, fmt.Errorf("shared array %s without a size must be .extern", v.name)
			}
			v.size = 0
		} else {
			n, _ := strconv.Atoi(mm[7])
			v.size = n * elem
		}
	}
	return v, nil
}

func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return b.String()
			}
			i += j + 3
			b.WriteByte(' ')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// parseParams reads ".param .u64 a, .param .b32 b".
func parseParams(s string) ([]param, error) {
	var ps []param
	for _, p := range strings.Split(s, ",") {
		f := strings.Fields(p)
		if len(f) == 0 {
			continue
		}
		if len(f) < 3 || f[0] != ".param" {
			return nil, fmt.Errorf("parameter %q", strings.TrimSpace(p))
		}
		// .param .align N .b8 name[n] is not used by the generators.
		t, ok := parseType(strings.TrimPrefix(f[1], "."))
		if !ok {
			return nil, fmt.Errorf("parameter type %s", f[1])
		}
		ps = append(ps, param{name: f[len(f)-1], typ: t, size: t.bits / 8})
	}
	return ps, nil
}

// instr is one instruction.
type instr struct {
	text   string
	guard  int // register slot of the guard predicate, -1: none
	negate bool
	opcode string
	ops    []operand
	exec   func(t *thread) error
	// branch target (bra), set by compile
	target int
	// control: exec moves pc itself (branches, calls, returns, exit)
	control bool
}

type opKind uint8

const (
	opReg opKind = iota
	opImm
	opSpecial
	opSym    // a symbol: a shared variable (its address), a param, a label or a function
	opMem    // [base+off]
	opVec    // {a, b, ...}
	opSink   // _
	opPair   // a|p (shfl's predicate output)
	opParams // (a, b) in a call
)

type operand struct {
	kind opKind
	reg  int
	imm  uint64 // immediate bits; for floats, their bits (f32 in the low word)
	immF bool   // immediate written as a float (0f / 0d)
	name string // special register, symbol
	// memory: base register (or -1) or symbol, plus an offset
	base    int
	symOff  int  // resolved shared address of a symbol base
	symKind byte // 's' shared, 'p' param (kernel), 'l' local param (frame)
	off     int64
	sub     []operand // vector elements, pair, call params
}

func (m *Module) parseBody(f *function, body string) error {
	f.regs = map[string]int{}
	f.labels = map[string]int{}
	f.locals = map[string]int{}
	for _, p := range f.params {
		f.locals[p.name] = len(f.locals)
	}
	for _, p := range f.ret {
		f.locals[p.name] = len(f.locals)
	}
	// Statements end with ';'; braces delimit scopes (flattened here).
	var stmts []string
	cur := strings.Builder{}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch c {
		case ';':
			stmts = append(stmts, cur.String())
			cur.Reset()
		case '{', '}':
			// A vector operand's braces are inside a statement: keep them.
			if strings.TrimSpace(cur.String()) != "" && !strings.HasSuffix(strings.TrimSpace(cur.String()), ":") {
				cur.WriteByte(c)
				continue
			}
			if s := strings.TrimSpace(cur.String()); s != "" {
				stmts = append(stmts, s)
			}
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		stmts = append(stmts, s)
	}
	for _, s := range stmts {
		s = strings.TrimSpace(s)
		for {
			name, rest, ok := cutLabel(s)
			if !ok {
				break
			}
			f.labels[name] = len(f.code)
			s = rest
		}
		if s == "" {
			continue
		}
		switch {
		case strings.HasPrefix(s, ".reg"):
			if err := f.declRegs(s); err != nil {
				return err
			}
			continue
		case strings.HasPrefix(s, ".param"):
			fs := strings.Fields(s)
			name := fs[len(fs)-1]
			if _, ok := f.locals[name]; !ok {
				f.locals[name] = len(f.locals)
			}
			continue
		case strings.HasPrefix(s, ".shared"), strings.HasPrefix(s, ".extern"):
			mm := reShared.FindStringSubmatch(s)
			if mm == nil {
				return fmt.Errorf("declaration %q", s)
			}
			v, err := sharedDecl(mm)
			if err != nil {
				return err
			}
			m.shared = append(m.shared, v)
			continue
		case strings.HasPrefix(s, ".local"):
			return fmt.Errorf("local memory (%q) is not modelled", s)
		case strings.HasPrefix(s, ".pragma"), strings.HasPrefix(s, ".maxntid"), strings.HasPrefix(s, ".reqntid"),
			strings.HasPrefix(s, ".minnctapersm"), strings.HasPrefix(s, ".maxnreg"):
			continue
		}
		in, err := f.parseInstr(s)
		if err != nil {
			return fmt.Errorf("%q: %w", s, err)
		}
		f.code = append(f.code, in)
	}
	return nil
}

func (f *function) declRegs(s string) error {
	fs := strings.Fields(strings.ReplaceAll(s, ",", " "))
	if len(fs) < 3 {
		return fmt.Errorf("register declaration %q", s)
	}
	for _, r := range fs[2:] {
		if mm := reRegs.FindStringSubmatch(r); mm != nil {
			n, _ := strconv.Atoi(mm[2])
			for i := 0; i < n; i++ {
				f.slot(fmt.Sprintf("%s%d", mm[1], i))
			}
			continue
		}
		f.slot(r)
	}
	return nil
}

func (f *function) slot(name string) int {
	if i, ok := f.regs[name]; ok {
		return i
	}
	f.regs[name] = f.nregs
	f.nregs++
	return f.nregs - 1
}

func (f *function) parseInstr(s string) (instr, error) {
	in := instr{text: s, guard: -1, target: -1}
	if strings.HasPrefix(s, "@") {
		sp := strings.IndexAny(s, " \t")
		if sp < 0 {
			return in, fmt.Errorf("guard without instruction")
		}
		g := s[1:sp]
		if strings.HasPrefix(g, "!") {
			in.negate, g = true, g[1:]
		}
		in.guard = f.slot(g)
		s = strings.TrimSpace(s[sp:])
	}
	sp := strings.IndexAny(s, " \t\n")
	if sp < 0 {
		in.opcode = s
		return in, nil
	}
	in.opcode = s[:sp]
	rest := strings.TrimSpace(s[sp:])
	for _, a := range splitTop(rest) {
		o, err := f.parseOperand(strings.TrimSpace(a))
		if err != nil {
			return in, err
		}
		in.ops = append(in.ops, o)
	}
	return in, nil
}

// splitTop splits s at commas outside brackets, braces and parentheses.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '{', '(':
			depth++
		case ']', '}', ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

var specials = map[string]bool{
	"%tid.x": true, "%tid.y": true, "%tid.z": true, "%ntid.x": true, "%ntid.y": true, "%ntid.z": true,
	"%ctaid.x": true, "%ctaid.y": true, "%ctaid.z": true, "%nctaid.x": true, "%nctaid.y": true, "%nctaid.z": true,
	"%laneid": true, "%warpid": true, "%nwarpid": true, "%smid": true, "%nsmid": true,
	"%lanemask_eq": true, "%lanemask_le": true, "%lanemask_lt": true, "%lanemask_ge": true, "%lanemask_gt": true,
	"%clock": true, "%clock64": true, "%globaltimer": true, "%dynamic_smem_size": true,
}

func (f *function) parseOperand(a string) (operand, error) {
	switch {
	case a == "_":
		return operand{kind: opSink}, nil
	case strings.HasPrefix(a, "{"):
		inner := strings.TrimSuffix(strings.TrimPrefix(a, "{"), "}")
		o := operand{kind: opVec}
		for _, e := range splitTop(inner) {
			x, err := f.parseOperand(strings.TrimSpace(e))
			if err != nil {
				return o, err
			}
			o.sub = append(o.sub, x)
		}
		return o, nil
	case strings.HasPrefix(a, "("):
		inner := strings.TrimSuffix(strings.TrimPrefix(a, "("), ")")
		o := operand{kind: opParams}
		for _, e := range splitTop(inner) {
			if e = strings.TrimSpace(e); e != "" {
				o.sub = append(o.sub, operand{kind: opSym, name: e})
			}
		}
		return o, nil
	case strings.HasPrefix(a, "["):
		inner := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(a, "["), "]"))
		o := operand{kind: opMem, base: -1}
		base, off := inner, ""
		if i := strings.IndexAny(inner, "+-"); i > 0 {
			base, off = strings.TrimSpace(inner[:i]), strings.TrimSpace(inner[i:])
		}
		if off != "" {
			off = strings.ReplaceAll(strings.ReplaceAll(off, " ", ""), "+-", "-")
			off = strings.TrimPrefix(off, "+")
			v, err := strconv.ParseInt(off, 0, 64)
			if err != nil {
				return o, fmt.Errorf("address offset %q", off)
			}
			o.off = v
		}
		switch {
		case strings.HasPrefix(base, "%"):
			o.base = f.slot(base)
		case base[0] >= '0' && base[0] <= '9':
			v, err := strconv.ParseInt(base, 0, 64)
			if err != nil {
				return o, fmt.Errorf("address %q", base)
			}
			o.off += v
		default:
			o.name = base
		}
		return o, nil
	case strings.Contains(a, "|"):
		p := strings.SplitN(a, "|", 2)
		x, err := f.parseOperand(strings.TrimSpace(p[0]))
		if err != nil {
			return x, err
		}
		y, err := f.parseOperand(strings.TrimSpace(p[1]))
		if err != nil {
			return y, err
		}
		return operand{kind: opPair, sub: []operand{x, y}}, nil
	case specials[a]:
		return operand{kind: opSpecial, name: a}, nil
	case strings.HasPrefix(a, "%"):
		return operand{kind: opReg, reg: f.slot(a)}, nil
	case strings.HasPrefix(a, "0f") || strings.HasPrefix(a, "0F"):
		v, err := strconv.ParseUint(a[2:], 16, 32)
		return operand{kind: opImm, imm: v, immF: true}, err
	case strings.HasPrefix(a, "0d") || strings.HasPrefix(a, "0D"):
		v, err := strconv.ParseUint(a[2:], 16, 64)
		return operand{kind: opImm, imm: v, immF: true}, err
	case a[0] == '-' || a[0] >= '0' && a[0] <= '9':
		if strings.ContainsAny(a, ".eE") && !strings.HasPrefix(a, "0x") && !strings.HasPrefix(a, "0X") {
			v, err := strconv.ParseFloat(a, 64)
			return operand{kind: opImm, imm: math.Float64bits(v), immF: true}, err
		}
		if strings.HasPrefix(a, "0x") || strings.HasPrefix(a, "0X") {
			v, err := strconv.ParseUint(a[2:], 16, 64)
			return operand{kind: opImm, imm: v}, err
		}
		v, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			u, err2 := strconv.ParseUint(a, 10, 64)
			return operand{kind: opImm, imm: u}, err2
		}
		return operand{kind: opImm, imm: uint64(v)}, nil
	}
	return operand{kind: opSym, name: a}, nil
}

// resolve binds symbol operands (shared variables, params) once shared
// memory is laid out.
func (m *Module) resolve(f *function, o *operand) error {
	switch o.kind {
	case opVec, opPair:
		for k := range o.sub {
			if err := m.resolve(f, &o.sub[k]); err != nil {
				return err
			}
		}
	case opMem:
		if o.name == "" {
			return nil
		}
		if off, ok := m.syms[o.name]; ok {
			o.symKind, o.symOff = 's', off
			return nil
		}
		if off, ok := m.constSyms[o.name]; ok {
			o.symKind, o.symOff = 'c', off
			return nil
		}
		if _, ok := f.locals[o.name]; ok {
			o.symKind = 'l'
			return nil
		}
		return fmt.Errorf("unknown symbol %s", o.name)
	case opSym:
		if off, ok := m.syms[o.name]; ok {
			o.symKind, o.symOff = 's', off
		}
		if off, ok := m.constSyms[o.name]; ok {
			o.symKind, o.symOff = 'c', off
		}
	}
	return nil
}

// cutLabel splits "name: rest" into the label and the rest.
func cutLabel(s string) (name, rest string, ok bool) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			i++
			continue
		}
		break
	}
	if i == 0 {
		return "", s, false
	}
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
		j++
	}
	if j >= len(s) || s[j] != ':' || j+1 < len(s) && s[j+1] == ':' {
		return "", s, false
	}
	return s[:i], strings.TrimSpace(s[j+1:]), true
}

// constDecl lays out a module-scope .const array (reConst's match), its
// elements from the initializer, zero where it has fewer.
func (m *Module) constDecl(mm []string) error {
	name := mm[4]
	if _, dup := m.constSyms[name]; dup {
		return fmt.Errorf("const variable %s declared twice", name)
	}
	t, ok := parseType(mm[3])
	if !ok || t.kind == 'p' {
		return fmt.Errorf("const variable %s: type .%s", name, mm[3])
	}
	elem := t.bits / 8
	align := elem
	if mm[2] != "" {
		a, _ := strconv.Atoi(mm[2])
		align = max(align, a)
	}
	n, _ := strconv.Atoi(mm[5])
	var vals []string
	if strings.TrimSpace(mm[7]) != "" {
		vals = strings.Split(mm[7], ",")
	}
	if len(vals) > n {
		return fmt.Errorf("const variable %s: %d initializers for %d elements", name, len(vals), n)
	}
	off := alignUp(len(m.consts), align)
	m.consts = append(m.consts, make([]byte, off+n*elem-len(m.consts))...)
	for i, v := range vals {
		x, err := strconv.ParseUint(strings.TrimSpace(v), 0, t.bits)
		if err != nil {
			return fmt.Errorf("const variable %s: element %d: %w", name, i, err)
		}
		writeN(m.consts[off+i*elem:off+(i+1)*elem], x)
	}
	m.constSyms[name] = off
	return nil
}
