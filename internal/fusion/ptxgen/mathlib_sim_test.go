package ptxgen

import (
	"fmt"
	"maps"
	"math"
	"math/big"
	mbits "math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// mlSim runs the math library's PTX text on the CPU: FuncDefs' output is
// parsed into functions of compiled instructions over a register file of
// raw bits (a float32 in the low 32 bits, a predicate 0 or 1), with each
// instruction's IEEE semantics (Go's float32 and float64 arithmetic are
// correctly rounded; fma32 rounds once). Only the instructions listed in
// compile are known: anything else fails the parse, so the interpreter
// never guesses. On a GPU, TestMathlibDeviceSim checks that the hardware
// computes the same bits.

// simFn is one compiled .func.
type simFn struct {
	name  string
	nregs int
	args  []int // registers of the .param arguments
	ret   int   // register of the .param result
	code  []simIns
	regs  map[string]int // register names (for debugging)
}

// simIns is one instruction: run computes it into r and returns the index
// of the next instruction, or -1 for the next one in order.
type simIns struct {
	text string
	run  func(m *simMachine, r []uint64) int
}

// simLib is a parsed module: its functions and constant arrays.
type simLib struct {
	fns    map[string]*simFn
	consts map[string][]byte
}

// simMachine holds the register files of one goroutine's calls (no
// recursion: one file per function).
type simMachine struct {
	lib   *simLib
	files map[*simFn][]uint64
	steps int
}

func newSimMachine(lib *simLib) *simMachine {
	return &simMachine{lib: lib, files: map[*simFn][]uint64{}}
}

func (m *simMachine) call(f *simFn, args ...uint64) uint64 {
	r := m.files[f]
	if r == nil {
		r = make([]uint64, f.nregs)
		m.files[f] = r
	}
	for i, a := range args {
		r[f.args[i]] = a
	}
	for pc := 0; pc < len(f.code); {
		m.steps++
		if m.steps > 1<<22 {
			panic(fmt.Sprintf("mlSim: %s runs away at %q", f.name, f.code[pc].text))
		}
		if next := f.code[pc].run(m, r); next >= 0 {
			pc = next
		} else {
			pc++
		}
	}
	m.steps = 0
	return r[f.ret]
}

// Call runs function name (without the gpuarr_ prefix) on raw argument bits.
func (m *simMachine) Call(name string, args ...uint64) uint64 {
	f := m.lib.fns[mathSymbol(name)]
	if f == nil {
		panic("mlSim: no function " + name)
	}
	return m.call(f, args...)
}

var (
	simLibOnce = sync.OnceValues(func() (*simLib, error) {
		defs, err := FuncDefs(FuncNames())
		if err != nil {
			return nil, err
		}
		return parseSimLib(defs)
	})
	reSimConst = regexp.MustCompile(`(?s)\.const\s+\.align\s+\d+\s+\.b64\s+(\w+)\[(\d+)\]\s*=\s*\{([^}]*)\};`)
	reSimFunc  = regexp.MustCompile(`\.func\s*\(\s*\.param\s+\.b(32|64)\s+(\w+)\s*\)\s*(\w+)\s*\(([^)]*)\)`)
)

// simLibrary is the whole library, parsed once.
func simLibrary(t testing.TB) *simLib {
	lib, err := simLibOnce()
	if err != nil {
		t.Fatalf("mlSim: %v", err)
	}
	return lib
}

func parseSimLib(text string) (*simLib, error) {
	lib := &simLib{fns: map[string]*simFn{}, consts: map[string][]byte{}}
	for _, m := range reSimConst.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		var buf []byte
		for _, w := range strings.Split(m[3], ",") {
			v, err := strconv.ParseUint(strings.TrimSpace(w), 0, 64)
			if err != nil {
				return nil, fmt.Errorf("const %s: %v", m[1], err)
			}
			buf = fmt.Appendf(buf, "%s", le64(v))
		}
		if len(buf) != 8*n {
			return nil, fmt.Errorf("const %s: %d words, declared %d", m[1], len(buf)/8, n)
		}
		lib.consts[m[1]] = buf
	}
	// Functions: header, then the body to the matching closing brace.
	locs := reSimFunc.FindAllStringSubmatchIndex(text, -1)
	for _, loc := range locs {
		name := text[loc[6]:loc[7]]
		open := strings.Index(text[loc[1]:], "{") + loc[1]
		depth, end := 0, -1
		for i := open; i < len(text); i++ {
			switch text[i] {
			case '{':
				depth++
			case '}':
				depth--
			}
			if depth == 0 {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, fmt.Errorf("%s: unbalanced braces", name)
		}
		var params []string
		for _, p := range strings.Split(text[loc[8]:loc[9]], ",") {
			fs := strings.Fields(p)
			params = append(params, fs[len(fs)-1])
		}
		f, err := compileSimFn(lib, name, text[loc[4]:loc[5]], params, text[open+1:end])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		lib.fns[name] = f
	}
	return lib, nil
}

func le64(v uint64) string {
	var b [8]byte
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return string(b[:])
}

// simCompiler turns one function body into instructions.
type simCompiler struct {
	lib    *simLib
	regs   map[string]int
	types  map[string]string // declared PTX type of each register
	labels map[string]int
	fixups []func() error
}

func (c *simCompiler) reg(name string) int {
	if i, ok := c.regs[name]; ok {
		return i
	}
	c.regs[name] = len(c.regs)
	return c.regs[name]
}

func compileSimFn(lib *simLib, name, ret string, params []string, body string) (*simFn, error) {
	c := &simCompiler{lib: lib, regs: map[string]int{}, types: map[string]string{}, labels: map[string]int{}}
	f := &simFn{name: name, ret: c.reg(ret)}
	for _, p := range params {
		f.args = append(f.args, c.reg(p))
	}
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "", line == "{", line == "}":
			continue
		case strings.HasSuffix(line, ":"):
			c.labels[strings.TrimSuffix(line, ":")] = len(f.code)
			continue
		case strings.HasPrefix(line, ".reg"):
			fs := strings.Fields(strings.TrimSuffix(line, ";"))
			for _, r := range strings.Split(strings.Join(fs[2:], ""), ",") {
				c.reg(r)
				c.types[r] = fs[1][1:]
			}
			continue
		case strings.HasPrefix(line, ".param"):
			fs := strings.Fields(strings.TrimSuffix(line, ";"))
			c.reg(fs[len(fs)-1])
			continue
		}
		ins, err := c.compile(strings.TrimSuffix(line, ";"))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		ins.text = line
		f.code = append(f.code, ins)
	}
	for _, fix := range c.fixups {
		if err := fix(); err != nil {
			return nil, err
		}
	}
	f.nregs = len(c.regs)
	f.regs = c.regs
	return f, nil
}

// simOpd is an operand: a register or an immediate's bits.
type simOpd struct {
	r   int
	imm uint64
}

func (o simOpd) v(r []uint64) uint64 {
	if o.r < 0 {
		return o.imm
	}
	return r[o.r]
}

func (c *simCompiler) operand(s, typ string) (simOpd, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "%"):
		if _, ok := c.regs[s]; !ok {
			return simOpd{}, fmt.Errorf("register %s not declared", s)
		}
		return simOpd{r: c.reg(s)}, nil
	case strings.HasPrefix(s, "0f"):
		if typ != "f32" && typ != "b32" {
			return simOpd{}, fmt.Errorf("float32 literal %s for a %s operand", s, typ)
		}
		u, err := strconv.ParseUint(s[2:], 16, 32)
		return simOpd{r: -1, imm: u}, err
	case strings.HasPrefix(s, "0d"):
		if typ != "f64" && typ != "b64" {
			return simOpd{}, fmt.Errorf("float64 literal %s for a %s operand", s, typ)
		}
		u, err := strconv.ParseUint(s[2:], 16, 64)
		return simOpd{r: -1, imm: u}, err
	}
	if strings.HasPrefix(typ, "f") {
		return simOpd{}, fmt.Errorf("integer literal %s for a float operand", s)
	}
	var u uint64
	if strings.HasPrefix(s, "0x") {
		v, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return simOpd{}, err
		}
		u = v
	} else {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return simOpd{}, err
		}
		u = uint64(v)
	}
	if simWidth(typ) == 32 {
		u &= math.MaxUint32
	}
	return simOpd{r: -1, imm: u}, nil
}

func simWidth(typ string) int {
	switch typ {
	case "pred":
		return 1
	case "b64", "u64", "s64", "f64":
		return 64
	}
	return 32
}

func f32of(u uint64) float32    { return math.Float32frombits(uint32(u)) }
func bitsOf32(f float32) uint64 { return uint64(math.Float32bits(f)) }

// ftz32 is float32 bits u with a subnormal flushed to zero of its sign.
func ftz32(u uint64) uint64 {
	if u&0x7F800000 == 0 {
		return u & 0x80000000
	}
	return u
}

var reSimAddr = regexp.MustCompile(`^\[\s*([%\w]+)\s*(?:\+\s*(\d+))?\s*\]$`)

// compile parses one instruction (without its ;).
func (c *simCompiler) compile(line string) (simIns, error) {
	guard, neg := -1, false
	if strings.HasPrefix(line, "@") {
		sp := strings.IndexByte(line, ' ')
		g := line[1:sp]
		if strings.HasPrefix(g, "!") {
			g, neg = g[1:], true
		}
		if _, ok := c.regs[g]; !ok {
			return simIns{}, fmt.Errorf("guard %s not declared", g)
		}
		guard = c.reg(g)
		line = strings.TrimSpace(line[sp:])
	}
	opc, rest, _ := strings.Cut(line, " ")
	ins, err := c.compileOp(opc, strings.TrimSpace(rest))
	if err != nil || guard < 0 {
		return ins, err
	}
	run := ins.run
	ins.run = func(m *simMachine, r []uint64) int {
		if (r[guard] == 1) == neg {
			return -1
		}
		return run(m, r)
	}
	return ins, nil
}

func splitArgs(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(a))
	}
	return out
}

func (c *simCompiler) compileOp(opc, rest string) (simIns, error) {
	parts := strings.Split(opc, ".")
	typ := parts[len(parts)-1]
	switch parts[0] {
	case "ret":
		return simIns{run: func(*simMachine, []uint64) int { return math.MaxInt32 }}, nil
	case "bra":
		var target int
		label := rest
		c.fixups = append(c.fixups, func() error {
			t, ok := c.labels[label]
			if !ok {
				return fmt.Errorf("no label %s", label)
			}
			target = t
			return nil
		})
		return simIns{run: func(*simMachine, []uint64) int { return target }}, nil
	case "call":
		// call.uni (ret), fn, (args)
		m := regexp.MustCompile(`^\((\w+)\),\s*(\w+),\s*\(([^)]*)\)$`).FindStringSubmatch(rest)
		if m == nil {
			return simIns{}, fmt.Errorf("bad call")
		}
		ret := c.reg(m[1])
		var args []int
		for _, a := range splitArgs(m[3]) {
			args = append(args, c.reg(a))
		}
		callee := m[2]
		return simIns{run: func(mc *simMachine, r []uint64) int {
			f := mc.lib.fns[callee]
			if f == nil {
				panic("mlSim: call to undefined " + callee)
			}
			vals := make([]uint64, len(args))
			for i, a := range args {
				vals[i] = r[a]
			}
			steps := mc.steps
			r[ret] = mc.call(f, vals...)
			mc.steps = steps
			return -1
		}}, nil
	}
	as := splitArgs(rest)
	if len(as) < 2 {
		return simIns{}, fmt.Errorf("too few operands")
	}
	dstName := as[0]
	if parts[0] == "st" { // st.param.T [p], r
		dstName = strings.Trim(as[0], "[] ")
	}
	if _, ok := c.regs[dstName]; !ok {
		return simIns{}, fmt.Errorf("destination %s not declared", dstName)
	}
	d := c.reg(dstName)
	dtyp := c.types[dstName]
	ops := func(types ...string) ([]simOpd, error) {
		if len(as)-1 != len(types) {
			return nil, fmt.Errorf("%d operands, want %d", len(as)-1, len(types))
		}
		out := make([]simOpd, len(types))
		for i, t := range types {
			o, err := c.operand(as[i+1], t)
			if err != nil {
				return nil, err
			}
			if o.r >= 0 {
				if rt := c.types[as[i+1]]; rt != "" && simWidth(rt) != simWidth(t) && !(t == "pred") {
					return nil, fmt.Errorf("operand %s is .%s, used as .%s", as[i+1], rt, t)
				}
			}
			out[i] = o
		}
		return out, nil
	}
	checkDst := func(t string) error {
		if dtyp != "" && simWidth(dtyp) != simWidth(t) {
			return fmt.Errorf("destination %s is .%s, written as .%s", dstName, dtyp, t)
		}
		if dtyp != "" && strings.HasPrefix(t, "f") && dtyp != t && dtyp != "b32" && dtyp != "b64" {
			return fmt.Errorf("destination %s is .%s, written as .%s", dstName, dtyp, t)
		}
		return nil
	}
	un := func(t string, f func(a uint64) uint64) (simIns, error) {
		o, err := ops(t)
		if err != nil {
			return simIns{}, err
		}
		if err := checkDst(t); err != nil {
			return simIns{}, err
		}
		a := o[0]
		return simIns{run: func(_ *simMachine, r []uint64) int { r[d] = f(a.v(r)); return -1 }}, nil
	}
	bin := func(t string, f func(a, b uint64) uint64) (simIns, error) {
		o, err := ops(t, t)
		if err != nil {
			return simIns{}, err
		}
		if err := checkDst(t); err != nil {
			return simIns{}, err
		}
		a, b := o[0], o[1]
		return simIns{run: func(_ *simMachine, r []uint64) int { r[d] = f(a.v(r), b.v(r)); return -1 }}, nil
	}
	tern := func(t string, f func(a, b, c uint64) uint64) (simIns, error) {
		o, err := ops(t, t, t)
		if err != nil {
			return simIns{}, err
		}
		if err := checkDst(t); err != nil {
			return simIns{}, err
		}
		a, b, cc := o[0], o[1], o[2]
		return simIns{run: func(_ *simMachine, r []uint64) int { r[d] = f(a.v(r), b.v(r), cc.v(r)); return -1 }}, nil
	}
	f2 := func(op string) func(a, b uint64) uint64 {
		if typ == "f32" {
			g := map[string]func(a, b float32) float32{
				"add": func(a, b float32) float32 { return a + b },
				"sub": func(a, b float32) float32 { return a - b },
				"mul": func(a, b float32) float32 { return a * b },
				"div": func(a, b float32) float32 { return a / b },
			}[op]
			return func(a, b uint64) uint64 { return bitsOf32(g(f32of(a), f32of(b))) }
		}
		g := map[string]func(a, b float64) float64{
			"add": func(a, b float64) float64 { return a + b },
			"sub": func(a, b float64) float64 { return a - b },
			"mul": func(a, b float64) float64 { return a * b },
			"div": func(a, b float64) float64 { return a / b },
		}[op]
		return func(a, b uint64) uint64 { return math.Float64bits(g(math.Float64frombits(a), math.Float64frombits(b))) }
	}
	isF := typ == "f32" || typ == "f64"
	w := simWidth(typ)
	mask := func(v uint64) uint64 {
		if w == 32 {
			return v & math.MaxUint32
		}
		return v
	}
	sext := func(v uint64) int64 {
		if w == 32 {
			return int64(int32(uint32(v)))
		}
		return int64(v)
	}
	asF := func(u uint64) float64 {
		if typ == "f32" {
			return float64(f32of(u))
		}
		return math.Float64frombits(u)
	}
	fromF := func(x float64) uint64 {
		if typ == "f32" {
			return bitsOf32(float32(x))
		}
		return math.Float64bits(x)
	}

	switch {
	case opc == "ld.param.f32" || opc == "ld.param.f64" || opc == "ld.param.u64" || opc == "ld.param.b32" || opc == "ld.param.b64":
		src := strings.Trim(as[1], "[] ")
		if _, ok := c.regs[src]; !ok {
			return simIns{}, fmt.Errorf("param %s not declared", src)
		}
		s := c.reg(src)
		return simIns{run: func(_ *simMachine, r []uint64) int { r[d] = r[s]; return -1 }}, nil
	case strings.HasPrefix(opc, "st.param."):
		o, err := c.operand(as[1], typ)
		if err != nil {
			return simIns{}, err
		}
		return simIns{run: func(_ *simMachine, r []uint64) int { r[d] = o.v(r); return -1 }}, nil
	case strings.HasPrefix(opc, "ld.const."):
		m := reSimAddr.FindStringSubmatch(as[1])
		if m == nil {
			return simIns{}, fmt.Errorf("address %s", as[1])
		}
		off, _ := strconv.Atoi(m[2])
		size := simWidth(typ) / 8
		if strings.HasPrefix(m[1], "%") {
			a := c.reg(m[1])
			return simIns{run: func(mc *simMachine, r []uint64) int {
				r[d] = mc.loadConst(r[a]+uint64(off), size)
				return -1
			}}, nil
		}
		name := m[1]
		return simIns{run: func(mc *simMachine, r []uint64) int {
			r[d] = mc.loadConst(mc.constAddr(name)+uint64(off), size)
			return -1
		}}, nil
	case opc == "mov.u64" && !strings.HasPrefix(as[1], "%") && !strings.HasPrefix(as[1], "0") && !strings.HasPrefix(as[1], "-") && (as[1][0] < '0' || as[1][0] > '9'):
		name := as[1]
		if _, ok := c.lib.consts[name]; !ok {
			return simIns{}, fmt.Errorf("no constant array %s", name)
		}
		return simIns{run: func(mc *simMachine, r []uint64) int { r[d] = mc.constAddr(name); return -1 }}, nil
	case parts[0] == "mov":
		return un(typ, func(a uint64) uint64 { return mask(a) })
	case parts[0] == "selp":
		o, err := ops(typ, typ, "pred")
		if err != nil {
			return simIns{}, err
		}
		if err := checkDst(typ); err != nil {
			return simIns{}, err
		}
		a, b, p := o[0], o[1], o[2]
		return simIns{run: func(_ *simMachine, r []uint64) int {
			if p.v(r) == 1 {
				r[d] = a.v(r)
			} else {
				r[d] = b.v(r)
			}
			return -1
		}}, nil
	case isF && (opc == "add.rn."+typ || opc == "sub.rn."+typ || opc == "mul.rn."+typ || opc == "div.rn."+typ):
		return bin(typ, f2(parts[0]))
	case opc == "fma.rn.f32":
		return tern(typ, func(a, b, cc uint64) uint64 { return bitsOf32(fma32(f32of(a), f32of(b), f32of(cc))) })
	case opc == "fma.rn.f64":
		return tern(typ, func(a, b, cc uint64) uint64 {
			return math.Float64bits(math.FMA(math.Float64frombits(a), math.Float64frombits(b), math.Float64frombits(cc)))
		})
	case isF && parts[0] == "neg" && len(parts) == 2:
		return un(typ, func(a uint64) uint64 { return a ^ (1 << (w - 1)) })
	case isF && parts[0] == "abs" && len(parts) == 2:
		return un(typ, func(a uint64) uint64 { return a &^ (1 << (w - 1)) })
	case isF && opc == "rcp.rn."+typ: // correctly rounded: 1/x in float64 rounds once more harmlessly
		return un(typ, func(a uint64) uint64 { return fromF(1 / asF(a)) })
	case opc == "rcp.approx.f32" || opc == "rcp.approx.ftz.f32":
		// Within one ulp of 1/x (PTX's bound): the correctly rounded
		// value moved one ulp toward zero or away from it by a bit of x,
		// so that code relying on the bound sees both errors. .ftz:
		// subnormal x and results are ±0.
		ftz := parts[2] == "ftz"
		return un(typ, func(a uint64) uint64 {
			if ftz {
				a = ftz32(a)
			}
			r := float32(1 / f32of(a))
			if ftz {
				r = f32of(ftz32(uint64(math.Float32bits(r))))
			}
			if r == 0 || math.IsInf(float64(r), 0) || r != r {
				return bitsOf32(r)
			}
			if a&1 == 1 {
				return bitsOf32(math.Nextafter32(r, 0))
			}
			return bitsOf32(math.Nextafter32(r, float32(math.Copysign(math.Inf(1), float64(r)))))
		})
	case opc == "ex2.approx.ftz.f32":
		// Within the error the GPUs measured (at most 1.40 ulp of the
		// exact value for x > 0, 2.05 ulp for x < 0): the correctly
		// rounded value moved −1 … +1 steps (x > 0) or −2 … +2 steps
		// (x < 0) by x's bits, so that code relying on the bound sees
		// every error. Exact powers of two, 0, ±Inf and NaN as they are;
		// subnormal x is 0 (ftz).
		return un(typ, func(a uint64) uint64 {
			x := f32of(a)
			if a&0x7F800000 == 0 {
				x = 0
			}
			r := float32(math.Exp2(float64(x)))
			if r == 0 || math.IsInf(float64(r), 0) || r != r || x == float32(math.Trunc(float64(x))) {
				return bitsOf32(r)
			}
			d := int(a%5) - 2
			if x > 0 {
				d = int(a%3) - 1
			}
			for d != 0 {
				if d > 0 {
					r, d = math.Nextafter32(r, float32(math.Inf(1))), d-1
				} else {
					r, d = math.Nextafter32(r, 0), d+1
				}
			}
			return bitsOf32(r)
		})
	case opc == "lg2.approx.ftz.f32":
		// log₂x within an absolute 2^-22 (PTX's bound): the correctly
		// rounded value moved −2 … +2 times 2^-23 by x's bits, so that
		// code using more than its special values sees the error. ±0 and
		// subnormal x (ftz) give −Inf, x < 0 and NaN NaN, +Inf +Inf.
		return un(typ, func(a uint64) uint64 {
			x := f32of(a)
			if a&0x7F800000 == 0 {
				x = 0
			}
			r := math.Log2(float64(x))
			if math.IsInf(r, 0) || r != r {
				return bitsOf32(float32(r))
			}
			return bitsOf32(float32(r + float64(int(a%5)-2)*0x1p-23))
		})
	case opc == "rsqrt.approx.f32" || opc == "rsqrt.approx.ftz.f32":
		// Within one ulp of 1/√x, moved as rcp.approx's model is; .ftz
		// as there.
		ftz := parts[2] == "ftz"
		return un(typ, func(a uint64) uint64 {
			if ftz {
				a = ftz32(a)
			}
			r := float32(1 / math.Sqrt(float64(f32of(a))))
			if r == 0 || math.IsInf(float64(r), 0) || r != r {
				return bitsOf32(r)
			}
			if a&1 == 1 {
				return bitsOf32(math.Nextafter32(r, 0))
			}
			return bitsOf32(math.Nextafter32(r, float32(math.Inf(1))))
		})
	case isF && opc == "sqrt.rn."+typ:
		return un(typ, func(a uint64) uint64 { return fromF(math.Sqrt(asF(a))) })
	case isF && (opc == "min."+typ || opc == "max."+typ):
		isMin := parts[0] == "min"
		return bin(typ, func(a, b uint64) uint64 {
			x, y := asF(a), asF(b)
			switch {
			case x != x:
				return b
			case y != y:
				return a
			case x == 0 && y == 0:
				// ±0: PTX's choice is not modelled; the library must not
				// depend on it.
				return a
			case (x < y) == isMin:
				return a
			}
			return b
		})
	case isF && opc == "copysign."+typ:
		return bin(typ, func(a, b uint64) uint64 {
			s := uint64(1) << (w - 1)
			return (b &^ s) | (a & s)
		})
	case parts[0] == "cvt":
		return c.compileCvt(opc, parts, as, d, dstName, dtyp)
	case parts[0] == "setp":
		return c.compileSetp(parts, as, d)
	case parts[0] == "testp":
		o, err := ops(typ)
		if err != nil {
			return simIns{}, err
		}
		a := o[0]
		var f func(x float64) bool
		switch parts[1] {
		case "finite":
			f = func(x float64) bool { return !math.IsInf(x, 0) && x == x }
		case "infinite":
			f = func(x float64) bool { return math.IsInf(x, 0) }
		case "number":
			f = func(x float64) bool { return x == x }
		case "notanumber":
			f = func(x float64) bool { return x != x }
		default:
			return simIns{}, fmt.Errorf("testp.%s not modelled", parts[1])
		}
		return simIns{run: func(_ *simMachine, r []uint64) int { r[d] = b2u(f(asF(a.v(r)))); return -1 }}, nil
	case (parts[0] == "and" || parts[0] == "or" || parts[0] == "xor") && len(parts) == 2:
		g := map[string]func(a, b uint64) uint64{
			"and": func(a, b uint64) uint64 { return a & b },
			"or":  func(a, b uint64) uint64 { return a | b },
			"xor": func(a, b uint64) uint64 { return a ^ b },
		}[parts[0]]
		return bin(typ, g)
	case parts[0] == "not" && len(parts) == 2:
		if typ == "pred" {
			return un(typ, func(a uint64) uint64 { return a ^ 1 })
		}
		return un(typ, func(a uint64) uint64 { return mask(^a) })
	case (parts[0] == "shl" || parts[0] == "shr") && len(parts) == 2:
		o, err := ops(typ, "u32")
		if err != nil {
			return simIns{}, err
		}
		if err := checkDst(typ); err != nil {
			return simIns{}, err
		}
		a, b := o[0], o[1]
		left, arith := parts[0] == "shl", typ == "s32" || typ == "s64"
		return simIns{run: func(_ *simMachine, r []uint64) int {
			n := b.v(r) & math.MaxUint32
			x := a.v(r)
			switch {
			case left && n >= uint64(w):
				r[d] = 0
			case left:
				r[d] = mask(x << n)
			case arith:
				r[d] = mask(uint64(sext(x) >> min(n, uint64(w-1))))
			case n >= uint64(w):
				r[d] = 0
			default:
				r[d] = mask(x) >> n
			}
			return -1
		}}, nil
	case !isF && (opc == "add."+typ || opc == "sub."+typ) && typ != "pred":
		if parts[0] == "add" {
			return bin(typ, func(a, b uint64) uint64 { return mask(a + b) })
		}
		return bin(typ, func(a, b uint64) uint64 { return mask(a - b) })
	case !isF && opc == "mul.lo."+typ:
		return bin(typ, func(a, b uint64) uint64 { return mask(a * b) })
	case opc == "rem.u64":
		return bin(typ, func(a, b uint64) uint64 {
			if b == 0 {
				panic("mlSim: rem.u64 by 0")
			}
			return a % b
		})
	case opc == "mul.hi.u64":
		return bin(typ, func(a, b uint64) uint64 { h, _ := mbits.Mul64(a, b); return h })
	case opc == "mul.hi.u32":
		return bin(typ, func(a, b uint64) uint64 { return (a & math.MaxUint32) * (b & math.MaxUint32) >> 32 })
	case opc == "mul.wide.u32" || opc == "mul.wide.s32":
		o, err := ops(typ, typ)
		if err != nil {
			return simIns{}, err
		}
		a, b := o[0], o[1]
		signed := typ == "s32"
		return simIns{run: func(_ *simMachine, r []uint64) int {
			if signed {
				r[d] = uint64(int64(int32(uint32(a.v(r)))) * int64(int32(uint32(b.v(r)))))
			} else {
				r[d] = (a.v(r) & math.MaxUint32) * (b.v(r) & math.MaxUint32)
			}
			return -1
		}}, nil
	case !isF && opc == "mad.lo."+typ:
		return tern(typ, func(a, b, cc uint64) uint64 { return mask(a*b + cc) })
	case !isF && (opc == "min."+typ || opc == "max."+typ):
		isMin, signed := parts[0] == "min", typ[0] == 's'
		return bin(typ, func(a, b uint64) uint64 {
			less := a < b
			if signed {
				less = sext(a) < sext(b)
			} else {
				less = mask(a) < mask(b)
			}
			if less == isMin {
				return a
			}
			return b
		})
	case !isF && opc == "neg."+typ:
		return un(typ, func(a uint64) uint64 { return mask(-a) })
	case !isF && opc == "abs."+typ:
		return un(typ, func(a uint64) uint64 {
			if sext(a) < 0 {
				return mask(-a)
			}
			return a
		})
	case opc == "clz.b32" || opc == "clz.b64":
		o, err := ops(typ)
		if err != nil {
			return simIns{}, err
		}
		a := o[0]
		return simIns{run: func(_ *simMachine, r []uint64) int {
			if w == 32 {
				r[d] = uint64(mbits.LeadingZeros32(uint32(a.v(r))))
			} else {
				r[d] = uint64(mbits.LeadingZeros64(a.v(r)))
			}
			return -1
		}}, nil
	}
	return simIns{}, fmt.Errorf("instruction %s not modelled", opc)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (c *simCompiler) compileCvt(opc string, parts, as []string, d int, dstName, dtyp string) (simIns, error) {
	// cvt[.rnd].dst.src
	if len(parts) < 3 {
		return simIns{}, fmt.Errorf("bad cvt")
	}
	dt, st := parts[len(parts)-2], parts[len(parts)-1]
	rnd := ""
	if len(parts) == 4 {
		rnd = parts[1]
	}
	if dtyp != "" && simWidth(dtyp) != simWidth(dt) {
		return simIns{}, fmt.Errorf("destination %s is .%s, written as .%s", dstName, dtyp, dt)
	}
	o, err := c.operand(as[1], st)
	if err != nil {
		return simIns{}, err
	}
	if o.r >= 0 {
		if rt := c.types[as[1]]; rt != "" && simWidth(rt) != simWidth(st) {
			return simIns{}, fmt.Errorf("operand %s is .%s, used as .%s", as[1], rt, st)
		}
	}
	fget := func(u uint64) float64 {
		if st == "f32" {
			return float64(f32of(u))
		}
		return math.Float64frombits(u)
	}
	roundInt := map[string]func(float64) float64{
		"rni": math.RoundToEven, "rzi": math.Trunc, "rmi": math.Floor, "rpi": math.Ceil,
	}
	var f func(u uint64) uint64
	switch {
	case (dt == "f32" || dt == "f64") && dt == st:
		ri, ok := roundInt[rnd]
		if !ok {
			return simIns{}, fmt.Errorf("cvt.%s.%s.%s", rnd, dt, st)
		}
		f = func(u uint64) uint64 {
			x := ri(fget(u))
			if dt == "f32" {
				return bitsOf32(float32(x))
			}
			return math.Float64bits(x)
		}
	case dt == "f32" && st == "f64" && rnd == "rn":
		f = func(u uint64) uint64 { return bitsOf32(float32(math.Float64frombits(u))) }
	case dt == "f64" && st == "f32" && rnd == "":
		f = func(u uint64) uint64 { return math.Float64bits(float64(f32of(u))) }
	case (st == "f32" || st == "f64") && (dt == "s32" || dt == "u32" || dt == "s64" || dt == "u64"):
		ri, ok := roundInt[rnd]
		if !ok {
			return simIns{}, fmt.Errorf("cvt.%s.%s.%s", rnd, dt, st)
		}
		f = func(u uint64) uint64 {
			x := ri(fget(u))
			// Out of range saturates; NaN gives a value the library must
			// not depend on (the integer indefinite value).
			switch dt {
			case "s32":
				switch {
				case x != x:
					return 0x80000000
				case x <= math.MinInt32:
					return 0x80000000
				case x >= math.MaxInt32:
					return math.MaxInt32
				}
				return uint64(uint32(int32(x)))
			case "u32":
				switch {
				case x != x:
					return 0x80000000
				case x <= 0:
					return 0
				case x >= math.MaxUint32:
					return math.MaxUint32
				}
				return uint64(uint32(x))
			case "s64":
				switch {
				case x != x:
					return 1 << 63
				case x <= math.MinInt64:
					return 1 << 63
				case x >= math.MaxInt64:
					return math.MaxInt64
				}
				return uint64(int64(x))
			}
			switch {
			case x != x:
				return 1 << 63
			case x <= 0:
				return 0
			case x >= math.MaxUint64:
				return math.MaxUint64
			}
			return uint64(x)
		}
	case (dt == "f32" || dt == "f64") && rnd == "rn":
		var g func(u uint64) float64
		switch st {
		case "s32":
			g = func(u uint64) float64 { return float64(int32(uint32(u))) }
		case "u32":
			g = func(u uint64) float64 { return float64(uint32(u)) }
		case "s64":
			g = func(u uint64) float64 { return float64(int64(u)) }
		case "u64":
			g = func(u uint64) float64 { return float64(u) }
		default:
			return simIns{}, fmt.Errorf("cvt from %s", st)
		}
		if dt == "f32" {
			// Integers of up to 64 bits convert to float32 with one
			// rounding: through big.Float for 64-bit sources.
			if st == "s64" || st == "u64" {
				f = func(u uint64) uint64 {
					var b big.Float
					if st == "s64" {
						b.SetInt64(int64(u))
					} else {
						b.SetUint64(u)
					}
					v, _ := b.Float32()
					return bitsOf32(v)
				}
			} else {
				f = func(u uint64) uint64 { return bitsOf32(float32(g(u))) }
			}
		} else {
			f = func(u uint64) uint64 { return math.Float64bits(g(u)) }
		}
	case rnd == "":
		// Integer to integer: truncate or extend by the source's sign.
		f = func(u uint64) uint64 {
			var v uint64
			switch st {
			case "s32":
				v = uint64(int64(int32(uint32(u))))
			case "u32", "b32":
				v = u & math.MaxUint32
			default:
				v = u
			}
			if simWidth(dt) == 32 {
				v &= math.MaxUint32
			}
			return v
		}
	default:
		return simIns{}, fmt.Errorf("%s not modelled", opc)
	}
	return simIns{run: func(_ *simMachine, r []uint64) int { r[d] = f(o.v(r)); return -1 }}, nil
}

func (c *simCompiler) compileSetp(parts, as []string, d int) (simIns, error) {
	if len(parts) != 3 {
		return simIns{}, fmt.Errorf("setp.%s not modelled", strings.Join(parts[1:], "."))
	}
	cmp, typ := parts[1], parts[2]
	a, err := c.operand(as[1], typ)
	if err != nil {
		return simIns{}, err
	}
	b, err := c.operand(as[2], typ)
	if err != nil {
		return simIns{}, err
	}
	var f func(x, y uint64) bool
	switch typ {
	case "f32", "f64":
		get := func(u uint64) float64 {
			if typ == "f32" {
				return float64(f32of(u))
			}
			return math.Float64frombits(u)
		}
		ord := map[string]func(x, y float64) bool{
			"lt": func(x, y float64) bool { return x < y }, "le": func(x, y float64) bool { return x <= y },
			"gt": func(x, y float64) bool { return x > y }, "ge": func(x, y float64) bool { return x >= y },
			"eq": func(x, y float64) bool { return x == y }, "ne": func(x, y float64) bool { return x != y && x == x && y == y },
			"num": func(x, y float64) bool { return x == x && y == y },
			"nan": func(x, y float64) bool { return x != x || y != y },
		}
		if g, ok := ord[cmp]; ok {
			f = func(x, y uint64) bool { return g(get(x), get(y)) }
			break
		}
		if g, ok := ord[strings.TrimSuffix(cmp, "u")]; ok && strings.HasSuffix(cmp, "u") {
			f = func(x, y uint64) bool {
				u, v := get(x), get(y)
				return u != u || v != v || g(u, v)
			}
			break
		}
		return simIns{}, fmt.Errorf("setp.%s.%s not modelled", cmp, typ)
	default:
		w := simWidth(typ)
		val := func(u uint64) (int64, uint64) {
			if w == 32 {
				return int64(int32(uint32(u))), u & math.MaxUint32
			}
			return int64(u), u
		}
		signed := typ[0] == 's'
		f = func(x, y uint64) bool {
			sx, ux := val(x)
			sy, uy := val(y)
			c := 0
			switch {
			case signed && sx < sy, !signed && ux < uy:
				c = -1
			case signed && sx > sy, !signed && ux > uy:
				c = 1
			}
			switch cmp {
			case "lt":
				return c < 0
			case "le":
				return c <= 0
			case "gt":
				return c > 0
			case "ge":
				return c >= 0
			case "eq":
				return c == 0
			case "ne":
				return c != 0
			}
			panic("setp." + cmp)
		}
		switch cmp {
		case "lt", "le", "gt", "ge", "eq", "ne":
		default:
			return simIns{}, fmt.Errorf("setp.%s.%s not modelled", cmp, typ)
		}
	}
	return simIns{run: func(_ *simMachine, r []uint64) int { r[d] = b2u(f(a.v(r), b.v(r))); return -1 }}, nil
}

// Constant arrays live at addresses (index+1)<<40 + offset, index in
// the sorted names.
func (m *simMachine) constAddr(name string) uint64 {
	k := slices.Index(m.lib.constNames(), name)
	if k < 0 {
		panic("mlSim: no constant " + name)
	}
	return uint64(k+1) << 40
}

func (l *simLib) constNames() []string {
	return slices.Sorted(maps.Keys(l.consts))
}

func (m *simMachine) loadConst(addr uint64, size int) uint64 {
	k := int(addr>>40) - 1
	names := m.lib.constNames()
	if k < 0 || k >= len(names) {
		panic(fmt.Sprintf("mlSim: ld.const from %#x", addr))
	}
	buf := m.lib.consts[names[k]]
	off := int(addr & (1<<40 - 1))
	if off+size > len(buf) || off%size != 0 {
		panic(fmt.Sprintf("mlSim: ld.const of %d bytes at offset %d of %s (%d bytes)", size, off, names[k], len(buf)))
	}
	var v uint64
	for i := range size {
		v |= uint64(buf[off+i]) << (8 * i)
	}
	return v
}
