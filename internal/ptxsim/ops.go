package ptxsim

import (
	"encoding/binary"
	"fmt"
	"github.com/gpuarr/gpuarr/device/dtype/half"
	"math"
	"math/bits"
	"strings"
)

// compile turns one instruction into its execution.
func (m *Module) compile(f *function, in *instr) (func(t *thread) error, error) {
	parts := strings.Split(in.opcode, ".")
	base, mods := parts[0], parts[1:]
	has := func(s string) bool {
		for _, x := range mods {
			if x == s {
				return true
			}
		}
		return false
	}
	lastType := func() (ptype, error) {
		for i := len(mods) - 1; i >= 0; i-- {
			if t, ok := parseType(mods[i]); ok {
				return t, nil
			}
		}
		return ptype{}, fmt.Errorf("no type")
	}
	ops := in.ops
	need := func(n int) error {
		if len(ops) != n {
			return fmt.Errorf("%d operands, want %d", len(ops), n)
		}
		return nil
	}
	switch base {
	case "bra":
		if err := need(1); err != nil {
			return nil, err
		}
		target, ok := f.labels[ops[0].name]
		if !ok {
			return nil, fmt.Errorf("unknown label %s", ops[0].name)
		}
		in.target = target
		return func(t *thread) error { t.fr().pc = target; return nil }, nil
	case "ret":
		return func(t *thread) error { return t.ret() }, nil
	case "exit":
		return func(t *thread) error { t.exit(); return nil }, nil
	case "trap", "brkpt":
		return func(t *thread) error { return fmt.Errorf("%s executed", base) }, nil
	case "call":
		return m.compileCall(f, in)
	case "membar", "fence", "nanosleep", "prefetch", "prefetchu", "discard", "pmevent":
		return func(t *thread) error { return nil }, nil
	case "bar", "barrier":
		// bar.sync a{, b}; bar.arrive is not modelled.
		if !has("sync") && len(mods) > 0 && mods[0] != "sync" {
			return nil, fmt.Errorf("only bar.sync is modelled")
		}
		if has("warp") {
			if err := need(1); err != nil {
				return nil, err
			}
			return collective(in, 0), nil
		}
		if len(ops) > 1 {
			n := ops[1]
			return func(t *thread) error {
				if want := t.val(&n); int(want) != t.b.g.block.count() {
					return fmt.Errorf("bar.sync for %d threads of a %d-thread block is not modelled", want, t.b.g.block.count())
				}
				t.state = atBarrier
				return nil
			}, nil
		}
		return func(t *thread) error { t.state = atBarrier; return nil }, nil
	case "shfl", "vote", "match", "redux":
		return collective(in, 0), nil
	case "activemask":
		d := ops[0]
		return func(t *thread) error {
			var mask uint64
			w := t.warp * 32
			for l := 0; l < 32 && w+l < len(t.b.threads); l++ {
				if t.b.threads[w+l].state != exited {
					mask |= 1 << l
				}
			}
			t.set(&d, mask, ptype{'b', 32})
			return nil
		}, nil
	}

	typ, err := lastType()
	if err != nil && base != "cvta" {
		return nil, err
	}
	switch base {
	case "mov":
		if err := need(2); err != nil {
			return nil, err
		}
		d, a := ops[0], ops[1]
		switch {
		case d.kind == opVec: // unpack
			w := typ.bits / len(d.sub)
			return func(t *thread) error {
				v := t.val(&a)
				for k := range d.sub {
					t.set(&d.sub[k], v>>(w*k)&mask(w), ptype{'b', w})
				}
				return nil
			}, nil
		case a.kind == opVec: // pack
			w := typ.bits / len(a.sub)
			return func(t *thread) error {
				var v uint64
				for k := range a.sub {
					v |= (t.val(&a.sub[k]) & mask(w)) << (w * k)
				}
				t.set(&d, v, typ)
				return nil
			}, nil
		}
		return func(t *thread) error { t.set(&d, t.valT(&a, typ), typ); return nil }, nil
	case "cvta":
		d, a := ops[0], ops[1]
		return func(t *thread) error { t.set(&d, t.val(&a), ptype{'u', 64}); return nil }, nil
	case "ld", "ldu":
		return m.compileLoad(in, mods, typ)
	case "st":
		return m.compileStore(in, mods, typ)
	case "atom", "red":
		return m.compileAtomic(in, base, mods, typ)
	case "setp":
		return compileSetp(in, mods, typ)
	case "selp":
		if err := need(4); err != nil {
			return nil, err
		}
		d, a, b, c := ops[0], ops[1], ops[2], ops[3]
		return func(t *thread) error {
			if t.val(&c) != 0 {
				t.set(&d, t.valT(&a, typ), typ)
			} else {
				t.set(&d, t.valT(&b, typ), typ)
			}
			return nil
		}, nil
	case "cvt":
		return compileCvt(in, mods)
	case "testp":
		d, a := ops[0], ops[1]
		mode := mods[0]
		return func(t *thread) error {
			x := t.float(&a, typ)
			var r bool
			switch mode {
			case "nan":
				r = math.IsNaN(x)
			case "finite":
				r = !math.IsNaN(x) && !math.IsInf(x, 0)
			case "infinite":
				r = math.IsInf(x, 0)
			case "number", "notanumber":
				r = !math.IsNaN(x) == (mode == "number")
			default:
				return fmt.Errorf("testp.%s is not modelled", mode)
			}
			t.set(&d, b2u(r), ptype{'p', 1})
			return nil
		}, nil
	}
	if typ.kind == 'f' {
		return compileFloat(in, base, mods, typ)
	}
	return compileInt(in, base, mods, typ)
}

func mask(w int) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// sext sign-extends the low w bits of v.
func sext(v uint64, w int) int64 {
	if w >= 64 {
		return int64(v)
	}
	return int64(v<<(64-w)) >> (64 - w)
}

// val reads an operand's bits (registers hold values zero-extended from
// their width).
func (t *thread) val(o *operand) uint64 {
	switch o.kind {
	case opReg:
		return t.cur.regs[o.reg]
	case opImm:
		return o.imm
	case opSpecial:
		return t.special(o.name)
	case opSym:
		return uint64(o.symOff)
	}
	return 0
}

// valT reads an operand as type typ: an immediate written as a float64
// literal becomes a float32 for f32.
func (t *thread) valT(o *operand, typ ptype) uint64 {
	v := t.val(o)
	if o.kind == opImm && o.immF && typ.kind == 'f' && typ.bits == 32 && v > math.MaxUint32 {
		return uint64(math.Float32bits(float32(math.Float64frombits(v))))
	}
	return v & mask(typ.bits)
}

func (t *thread) set(o *operand, v uint64, typ ptype) { setIn(t.cur, o, v, typ) }

// setIn writes a register of frame fr.
func setIn(fr *frame, o *operand, v uint64, typ ptype) {
	switch o.kind {
	case opReg:
		if typ.kind == 'p' {
			v = b2u(v != 0)
		}
		fr.regs[o.reg] = v & mask(max(typ.bits, 1))
	case opPair: // d|p: the value to d
		setIn(fr, &o.sub[0], v, typ)
	}
}

func (t *thread) float(o *operand, typ ptype) float64 {
	v := t.valT(o, typ)
	if typ.bits == 32 {
		return float64(math.Float32frombits(uint32(v)))
	}
	return math.Float64frombits(v)
}

func fbits(x float64, typ ptype) uint64 {
	switch {
	case typ.kind == 'h':
		return uint64(half.F32ToBF16(float32(x)))
	case typ.bits == 16:
		return uint64(half.F32ToF16(float32(x)))
	}
	if typ.bits == 32 {
		return uint64(math.Float32bits(float32(x)))
	}
	return math.Float64bits(x)
}

func (t *thread) special(name string) uint64 {
	g := t.b.g
	switch name {
	case "%tid.x":
		return uint64(t.tid[0])
	case "%tid.y":
		return uint64(t.tid[1])
	case "%tid.z":
		return uint64(t.tid[2])
	case "%ntid.x":
		return uint64(g.block.X)
	case "%ntid.y":
		return uint64(g.block.Y)
	case "%ntid.z":
		return uint64(g.block.Z)
	case "%ctaid.x":
		return uint64(t.b.id[0])
	case "%ctaid.y":
		return uint64(t.b.id[1])
	case "%ctaid.z":
		return uint64(t.b.id[2])
	case "%nctaid.x":
		return uint64(g.grid.X)
	case "%nctaid.y":
		return uint64(g.grid.Y)
	case "%nctaid.z":
		return uint64(g.grid.Z)
	case "%laneid":
		return uint64(t.lane)
	case "%warpid":
		return uint64(t.warp)
	case "%nwarpid":
		return uint64((len(t.b.threads) + 31) / 32)
	case "%lanemask_eq":
		return 1 << t.lane
	case "%lanemask_lt":
		return 1<<t.lane - 1
	case "%lanemask_le":
		return 1<<(t.lane+1) - 1
	case "%lanemask_gt":
		return uint64(^uint32(1<<(t.lane+1) - 1))
	case "%lanemask_ge":
		return uint64(^uint32(1<<t.lane - 1))
	case "%dynamic_smem_size":
		return uint64(g.l.SharedBytes)
	case "%clock", "%clock64", "%globaltimer":
		return uint64(g.steps)
	}
	return 0
}

// spaceAddr is the address an operand names in the shared or const
// space: its base register's value or its symbol's offset, plus its
// offset.
func (t *thread) spaceAddr(o *operand) int64 {
	a := int64(o.symOff)
	if o.base >= 0 {
		a = int64(t.fr().regs[o.base])
	}
	return a + o.off
}

// mem returns the n bytes an address operand names in space sp ('g'
// global, 's' shared, 'c' const).
func (t *thread) mem(sp byte, o *operand, n int) ([]byte, error) {
	switch sp {
	case 's':
		a := t.spaceAddr(o)
		limit := int64(t.b.g.m.dynBase + t.b.g.l.SharedBytes)
		if a < 0 || a+int64(n) > limit || t.b.g.l.SharedBytes == 0 && a+int64(n) > int64(t.b.g.m.sharedSize) {
			return nil, fmt.Errorf("shared access of %d bytes at %#x, outside the block's %d bytes", n, a, limit)
		}
		if a%int64(n) != 0 {
			return nil, fmt.Errorf("misaligned shared access of %d bytes at %#x", n, a)
		}
		return t.b.shared[a : a+int64(n)], nil
	case 'c':
		a := t.spaceAddr(o)
		consts := t.b.g.m.consts
		if a < 0 || a+int64(n) > int64(len(consts)) {
			return nil, fmt.Errorf("const access of %d bytes at %#x, outside the module's %d bytes", n, a, len(consts))
		}
		if a%int64(n) != 0 {
			return nil, fmt.Errorf("misaligned const access of %d bytes at %#x", n, a)
		}
		return consts[a : a+int64(n) : a+int64(n)], nil
	case 'g':
		if o.base < 0 {
			return nil, fmt.Errorf("global access through a symbol")
		}
		a := t.fr().regs[o.base] + uint64(o.off)
		if a%uint64(n) != 0 {
			return nil, fmt.Errorf("misaligned global access of %d bytes at %#x", n, a)
		}
		b, err := t.b.g.mem.bytes(a, uint64(n))
		if err != nil {
			return nil, fmt.Errorf("global access of %d bytes at %#x: %w", n, a, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("address space %c", sp)
}

func readN(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func writeN(b []byte, v uint64) {
	switch len(b) {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
}

func space(mods []string) byte {
	for _, x := range mods {
		switch x {
		case "global":
			return 'g'
		case "shared":
			return 's'
		case "param":
			return 'p'
		case "local":
			return 'l'
		case "const":
			return 'c'
		}
	}
	return 'g' // generic addresses are global ones here
}

func vecLen(mods []string) int {
	for _, x := range mods {
		switch x {
		case "v2":
			return 2
		case "v4":
			return 4
		case "v8":
			return 8
		}
	}
	return 1
}

// extend widens a loaded value of type typ to a register's bits.
func extend(v uint64, typ ptype) uint64 {
	if typ.kind == 's' && typ.bits < 32 {
		return uint64(uint32(sext(v, typ.bits)))
	}
	return v
}

func (m *Module) compileLoad(in *instr, mods []string, typ ptype) (func(*thread) error, error) {
	if len(in.ops) != 2 || in.ops[1].kind != opMem {
		return nil, fmt.Errorf("ld needs a destination and an address")
	}
	d, a := in.ops[0], in.ops[1]
	sp := space(mods)
	n := typ.bits / 8
	if sp == 'p' {
		if a.symKind != 'l' {
			return nil, fmt.Errorf("ld.param of %s, which is not a parameter", a.name)
		}
		return func(t *thread) error {
			fr := t.fr()
			v := fr.params[fr.f.locals[a.name]]
			t.set(&d, extend(v&mask(typ.bits), typ), regType(typ))
			return nil
		}, nil
	}
	if sp != 'g' && sp != 's' && sp != 'c' {
		return nil, fmt.Errorf("ld from .%c space is not modelled", sp)
	}
	vl := vecLen(mods)
	if vl > 1 {
		if d.kind != opVec || len(d.sub) != vl {
			return nil, fmt.Errorf("vector load into %d registers", len(d.sub))
		}
		return func(t *thread) error {
			b, err := t.mem(sp, &a, n*vl)
			if err != nil {
				return err
			}
			for k := range d.sub {
				t.set(&d.sub[k], extend(readN(b[k*n:(k+1)*n]), typ), regType(typ))
			}
			return nil
		}, nil
	}
	return func(t *thread) error {
		b, err := t.mem(sp, &a, n)
		if err != nil {
			return err
		}
		t.set(&d, extend(readN(b), typ), regType(typ))
		return nil
	}, nil
}

// regType is the register type a value of typ lands in (narrow integers
// widen to 32 bits).
func regType(typ ptype) ptype {
	if typ.kind != 'f' && typ.bits < 32 {
		return ptype{'b', 32}
	}
	return typ
}

func (m *Module) compileStore(in *instr, mods []string, typ ptype) (func(*thread) error, error) {
	if len(in.ops) != 2 || in.ops[0].kind != opMem {
		return nil, fmt.Errorf("st needs an address and a value")
	}
	a, v := in.ops[0], in.ops[1]
	sp := space(mods)
	n := typ.bits / 8
	if sp == 'p' {
		if a.symKind != 'l' {
			return nil, fmt.Errorf("st.param to %s, which is not a parameter", a.name)
		}
		return func(t *thread) error {
			fr := t.fr()
			fr.params[fr.f.locals[a.name]] = t.valT(&v, typ)
			return nil
		}, nil
	}
	if sp != 'g' && sp != 's' {
		return nil, fmt.Errorf("st to .%c space is not modelled", sp)
	}
	vl := vecLen(mods)
	if vl > 1 {
		if v.kind != opVec || len(v.sub) != vl {
			return nil, fmt.Errorf("vector store of %d registers", len(v.sub))
		}
		return func(t *thread) error {
			b, err := t.mem(sp, &a, n*vl)
			if err != nil {
				return err
			}
			for k := range v.sub {
				writeN(b[k*n:(k+1)*n], t.valT(&v.sub[k], typ))
			}
			return nil
		}, nil
	}
	return func(t *thread) error {
		b, err := t.mem(sp, &a, n)
		if err != nil {
			return err
		}
		writeN(b, t.valT(&v, typ))
		return nil
	}, nil
}

func (m *Module) compileAtomic(in *instr, base string, mods []string, typ ptype) (func(*thread) error, error) {
	ops := in.ops
	var d *operand
	if base == "atom" {
		d = &ops[0]
		ops = ops[1:]
	}
	if len(ops) < 2 || ops[0].kind != opMem {
		return nil, fmt.Errorf("%s needs an address and a value", base)
	}
	a, b := ops[0], ops[1]
	var c operand
	if len(ops) > 2 {
		c = ops[2]
	}
	sp := space(mods)
	if sp != 'g' && sp != 's' {
		return nil, fmt.Errorf("%s on .%c space is not modelled", base, sp)
	}
	op := ""
	for _, x := range mods {
		switch x {
		case "add", "min", "max", "inc", "dec", "cas", "exch", "and", "or", "xor":
			op = x
		}
	}
	if op == "" {
		return nil, fmt.Errorf("%s without an operation", base)
	}
	n := typ.bits / 8
	w := typ.bits
	return func(t *thread) error {
		mem, err := t.mem(sp, &a, n)
		if err != nil {
			return err
		}
		old := readN(mem)
		x := t.valT(&b, typ)
		var nv uint64
		switch op {
		case "add":
			if typ.kind == 'f' {
				nv = fbits(fromBits(old, typ)+fromBits(x, typ), typ)
			} else {
				nv = old + x
			}
		case "min", "max":
			less := false
			switch typ.kind {
			case 's':
				less = sext(x, w) < sext(old, w)
			case 'f':
				less = fromBits(x, typ) < fromBits(old, typ)
			default:
				less = x < old
			}
			if less == (op == "min") {
				nv = x
			} else {
				nv = old
			}
		case "inc":
			if old >= x {
				nv = 0
			} else {
				nv = old + 1
			}
		case "dec":
			if old == 0 || old > x {
				nv = x
			} else {
				nv = old - 1
			}
		case "cas":
			nv = old
			if old == x {
				nv = t.valT(&c, typ)
			}
		case "exch":
			nv = x
		case "and":
			nv = old & x
		case "or":
			nv = old | x
		case "xor":
			nv = old ^ x
		}
		writeN(mem, nv&mask(w))
		if d != nil {
			t.set(d, old, typ)
		}
		return nil
	}, nil
}

func fromBits(v uint64, typ ptype) float64 {
	switch {
	case typ.kind == 'h':
		return float64(half.BF16ToF32(uint16(v)))
	case typ.bits == 16:
		return float64(half.F16ToF32(uint16(v)))
	}
	if typ.bits == 32 {
		return float64(math.Float32frombits(uint32(v)))
	}
	return math.Float64frombits(v)
}

func compileSetp(in *instr, mods []string, typ ptype) (func(*thread) error, error) {
	if len(in.ops) != 3 {
		return nil, fmt.Errorf("setp with %d operands (the combining form is not modelled)", len(in.ops))
	}
	cmp := mods[0]
	d, a, b := in.ops[0], in.ops[1], in.ops[2]
	var q *operand
	if d.kind == opPair {
		q = &d.sub[1]
		d = d.sub[0]
	}
	test := func(t *thread) (bool, error) {
		if typ.kind == 'f' {
			x, y := t.float(&a, typ), t.float(&b, typ)
			unord := math.IsNaN(x) || math.IsNaN(y)
			switch cmp {
			case "eq":
				return x == y, nil
			case "ne":
				return !unord && x != y, nil
			case "lt":
				return x < y, nil
			case "le":
				return x <= y, nil
			case "gt":
				return x > y, nil
			case "ge":
				return x >= y, nil
			case "equ":
				return unord || x == y, nil
			case "neu":
				return unord || x != y, nil
			case "ltu":
				return unord || x < y, nil
			case "leu":
				return unord || x <= y, nil
			case "gtu":
				return unord || x > y, nil
			case "geu":
				return unord || x >= y, nil
			case "num":
				return !unord, nil
			case "nan":
				return unord, nil
			}
			return false, fmt.Errorf("setp.%s", cmp)
		}
		x, y := t.valT(&a, typ), t.valT(&b, typ)
		if typ.kind == 's' {
			sx, sy := sext(x, typ.bits), sext(y, typ.bits)
			switch cmp {
			case "lt":
				return sx < sy, nil
			case "le":
				return sx <= sy, nil
			case "gt":
				return sx > sy, nil
			case "ge":
				return sx >= sy, nil
			}
		}
		switch cmp {
		case "eq":
			return x == y, nil
		case "ne":
			return x != y, nil
		case "lt", "lo":
			return x < y, nil
		case "le", "ls":
			return x <= y, nil
		case "gt", "hi":
			return x > y, nil
		case "ge", "hs":
			return x >= y, nil
		}
		return false, fmt.Errorf("setp.%s", cmp)
	}
	return func(t *thread) error {
		r, err := test(t)
		if err != nil {
			return err
		}
		t.set(&d, b2u(r), ptype{'p', 1})
		if q != nil {
			t.set(q, b2u(!r), ptype{'p', 1})
		}
		return nil
	}, nil
}

func compileCvt(in *instr, mods []string) (func(*thread) error, error) {
	if len(in.ops) != 2 {
		return nil, fmt.Errorf("cvt with %d operands", len(in.ops))
	}
	var types []ptype
	rnd, sat := "", false
	for _, x := range mods {
		if t, ok := parseType(x); ok {
			types = append(types, t)
			continue
		}
		switch x {
		case "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi":
			rnd = x
		case "sat":
			sat = true
		case "ftz":
		default:
			return nil, fmt.Errorf("cvt modifier .%s", x)
		}
	}
	if len(types) != 2 {
		return nil, fmt.Errorf("cvt needs two types")
	}
	dt, st := types[0], types[1]
	isF := func(t ptype) bool { return t.kind == 'f' || t.kind == 'h' }
	d, a := in.ops[0], in.ops[1]
	round := func(x float64) float64 {
		switch rnd {
		case "rni", "rn", "":
			return math.RoundToEven(x)
		case "rzi", "rz":
			return math.Trunc(x)
		case "rmi", "rm":
			return math.Floor(x)
		case "rpi", "rp":
			return math.Ceil(x)
		}
		return x
	}
	return func(t *thread) error {
		v := t.valT(&a, st)
		var r uint64
		switch {
		case isF(st) && isF(dt):
			x := fromBits(v, st)
			if strings.HasSuffix(rnd, "i") {
				x = round(x)
			}
			narrow := dt.bits == 32 && dt.kind == 'f' && st.bits == 64
			if narrow && rnd != "" && rnd != "rn" && rnd != "rz" && !strings.HasSuffix(rnd, "i") {
				return fmt.Errorf("cvt.%s.f32.f64 is not modelled", rnd)
			}
			r = fbits(x, dt)
			if narrow && rnd == "rz" {
				// Toward zero: a float32 farther from 0 than x steps back
				// (beyond the largest float32, the largest float32).
				f := float32(x)
				if !math.IsNaN(x) && !math.IsInf(x, 0) && math.Abs(float64(f)) > math.Abs(x) {
					f = math.Nextafter32(f, 0)
				}
				r = uint64(math.Float32bits(f))
			}
			if sat {
				y := fromBits(r, dt)
				switch {
				case math.IsNaN(y):
					y = 0
				case y < 0:
					y = 0
				case y > 1:
					y = 1
				}
				r = fbits(y, dt)
			}
		case isF(st):
			x := round(fromBits(v, st))
			r = floatToInt(x, dt)
		case isF(dt):
			var x float64
			if st.kind == 's' {
				x = float64(sext(v, st.bits))
				if dt.bits == 32 {
					r = uint64(math.Float32bits(float32(sext(v, st.bits))))
					break
				}
			} else {
				x = float64(v)
				if dt.bits == 32 {
					r = uint64(math.Float32bits(float32(v)))
					break
				}
			}
			r = fbits(x, dt)
		default:
			// Integer to integer: the source's value by its signedness,
			// truncated (or, .sat, clamped) to the destination.
			var x int64
			signed := st.kind == 's'
			if signed {
				x = sext(v, st.bits)
			} else {
				x = int64(v)
			}
			if sat {
				r = clampInt(x, signed, v, dt)
			} else {
				r = uint64(x) & mask(dt.bits)
			}
			if dt.kind == 's' && dt.bits < 32 {
				r = uint64(uint32(sext(r, dt.bits)))
			}
		}
		t.set(&d, r, regType(dt))
		return nil
	}, nil
}

// floatToInt converts an integral float to integer type dt, saturating
// (NaN → 0), as PTX's cvt does.
func floatToInt(x float64, dt ptype) uint64 {
	if math.IsNaN(x) {
		return 0
	}
	if dt.kind == 's' {
		lo, hi := -math.Ldexp(1, dt.bits-1), math.Ldexp(1, dt.bits-1)
		var v int64
		switch {
		case x < lo:
			v = int64(-1) << (dt.bits - 1)
		case x >= hi:
			v = int64(uint64(1)<<(dt.bits-1) - 1)
		default:
			v = int64(x)
		}
		r := uint64(v) & mask(dt.bits)
		if dt.bits < 32 {
			r = uint64(uint32(v))
		}
		return r
	}
	hi := math.Ldexp(1, dt.bits)
	switch {
	case x <= 0:
		return 0
	case x >= hi:
		return mask(dt.bits)
	}
	return uint64(x)
}

func clampInt(x int64, signed bool, raw uint64, dt ptype) uint64 {
	if dt.kind == 's' {
		lo, hi := int64(-1)<<(dt.bits-1), int64(uint64(1)<<(dt.bits-1)-1)
		if !signed && raw > uint64(hi) {
			return uint64(hi) & mask(dt.bits)
		}
		return uint64(min(max(x, lo), hi)) & mask(dt.bits)
	}
	if signed && x < 0 {
		return 0
	}
	if raw > mask(dt.bits) {
		return mask(dt.bits)
	}
	return raw
}

func compileFloat(in *instr, base string, mods []string, typ ptype) (func(*thread) error, error) {
	ops := in.ops
	get := func(t *thread, i int) float64 { return t.float(&ops[i], typ) }
	put := func(t *thread, x float64) { t.set(&ops[0], fbits(x, typ), typ) }
	f32 := typ.bits == 32
	r32 := func(x float64) float64 {
		if f32 {
			return float64(float32(x))
		}
		return x
	}
	nanProp := false
	for _, x := range mods {
		if x == "NaN" {
			nanProp = true
		}
	}
	var un func(x float64) float64
	var bin func(x, y float64) float64
	switch base {
	case "add":
		bin = func(x, y float64) float64 { return r32(x + y) }
	case "sub":
		bin = func(x, y float64) float64 { return r32(x - y) }
	case "mul":
		bin = func(x, y float64) float64 { return r32(x * y) }
	case "div":
		bin = func(x, y float64) float64 { return r32(x / y) }
	case "min", "max":
		isMin := base == "min"
		bin = func(x, y float64) float64 {
			switch {
			case math.IsNaN(x) && math.IsNaN(y):
				return math.NaN()
			case math.IsNaN(x) || math.IsNaN(y):
				if nanProp {
					return math.NaN()
				}
				if math.IsNaN(x) {
					return y
				}
				return x
			}
			if isMin {
				return math.Min(x, y)
			}
			return math.Max(x, y)
		}
	case "copysign":
		bin = func(x, y float64) float64 { return math.Copysign(y, x) }
	case "fma", "mad":
		return func(t *thread) error {
			x, y, z := get(t, 1), get(t, 2), get(t, 3)
			if f32 {
				put(t, float64(float32(math.FMA(x, y, z))))
			} else {
				put(t, math.FMA(x, y, z))
			}
			return nil
		}, nil
	case "neg":
		return func(t *thread) error {
			t.set(&ops[0], t.valT(&ops[1], typ)^(1<<(typ.bits-1)), typ)
			return nil
		}, nil
	case "abs":
		return func(t *thread) error {
			t.set(&ops[0], t.valT(&ops[1], typ)&^(1<<(typ.bits-1)), typ)
			return nil
		}, nil
	case "sqrt":
		un = func(x float64) float64 { return r32(math.Sqrt(x)) }
	case "rsqrt":
		un = func(x float64) float64 { return r32(1 / math.Sqrt(x)) }
	case "rcp":
		un = func(x float64) float64 { return r32(1 / x) }
	case "ex2":
		un = func(x float64) float64 { return r32(math.Exp2(x)) }
	case "lg2":
		un = func(x float64) float64 { return r32(math.Log2(x)) }
	case "sin":
		un = func(x float64) float64 { return r32(math.Sin(x)) }
	case "cos":
		un = func(x float64) float64 { return r32(math.Cos(x)) }
	case "tanh":
		un = func(x float64) float64 { return r32(math.Tanh(x)) }
	default:
		return nil, fmt.Errorf("float instruction %s is not modelled", base)
	}
	if un != nil {
		return func(t *thread) error { put(t, un(get(t, 1))); return nil }, nil
	}
	return func(t *thread) error { put(t, bin(get(t, 1), get(t, 2))); return nil }, nil
}

func compileInt(in *instr, base string, mods []string, typ ptype) (func(*thread) error, error) {
	ops := in.ops
	w := typ.bits
	if typ.kind == 'p' {
		switch base {
		case "and", "or", "xor", "not":
		default:
			return nil, fmt.Errorf("%s.pred is not modelled", base)
		}
	}
	signed := typ.kind == 's'
	put := func(t *thread, v uint64) { t.set(&ops[0], v, typ) }
	get := func(t *thread, i int) uint64 { return t.valT(&ops[i], typ) }
	s := func(v uint64) int64 { return sext(v, w) }
	half := ""
	for _, x := range mods {
		if x == "lo" || x == "hi" || x == "wide" {
			half = x
		}
	}
	wideMul := func(x, y uint64) (hi, lo uint64) {
		if signed {
			p := new64(s(x), s(y), w)
			return p.hi, p.lo
		}
		if w == 64 {
			return bits.Mul64(x, y)
		}
		p := x * y
		return p >> w, p & mask(w)
	}
	switch base {
	case "add":
		return func(t *thread) error { put(t, get(t, 1)+get(t, 2)); return nil }, nil
	case "sub":
		return func(t *thread) error { put(t, get(t, 1)-get(t, 2)); return nil }, nil
	case "mul", "mad":
		isMad := base == "mad"
		return func(t *thread) error {
			x, y := get(t, 1), get(t, 2)
			hi, lo := wideMul(x, y)
			var r uint64
			rt := typ
			switch half {
			case "hi":
				r = hi
			case "wide":
				r = lo | hi<<w
				if w == 64 {
					return fmt.Errorf("mul.wide.%s", typ)
				}
				rt = ptype{typ.kind, 2 * w}
			default:
				r = lo
			}
			if isMad {
				r += t.valT(&ops[3], rt)
			}
			t.set(&ops[0], r, rt)
			return nil
		}, nil
	case "div", "rem":
		isDiv := base == "div"
		return func(t *thread) error {
			x, y := get(t, 1), get(t, 2)
			if y == 0 {
				put(t, mask(w)) // undefined in PTX; all ones here
				return nil
			}
			if signed {
				a, b := s(x), s(y)
				if b == -1 && a == int64(-1)<<(w-1) {
					if isDiv {
						put(t, uint64(a))
					} else {
						put(t, 0)
					}
					return nil
				}
				if isDiv {
					put(t, uint64(a/b))
				} else {
					put(t, uint64(a%b))
				}
				return nil
			}
			if isDiv {
				put(t, x/y)
			} else {
				put(t, x%y)
			}
			return nil
		}, nil
	case "min", "max":
		isMin := base == "min"
		return func(t *thread) error {
			x, y := get(t, 1), get(t, 2)
			less := x < y
			if signed {
				less = s(x) < s(y)
			}
			if less == isMin {
				put(t, x)
			} else {
				put(t, y)
			}
			return nil
		}, nil
	case "abs":
		return func(t *thread) error {
			x := s(get(t, 1))
			if x < 0 {
				x = -x
			}
			put(t, uint64(x))
			return nil
		}, nil
	case "neg":
		return func(t *thread) error { put(t, -get(t, 1)); return nil }, nil
	case "not":
		if typ.kind == 'p' {
			return func(t *thread) error { put(t, b2u(get(t, 1) == 0)); return nil }, nil
		}
		return func(t *thread) error { put(t, ^get(t, 1)); return nil }, nil
	case "cnot":
		return func(t *thread) error { put(t, b2u(get(t, 1) == 0)); return nil }, nil
	case "and":
		return func(t *thread) error { put(t, get(t, 1)&get(t, 2)); return nil }, nil
	case "or":
		return func(t *thread) error { put(t, get(t, 1)|get(t, 2)); return nil }, nil
	case "xor":
		return func(t *thread) error { put(t, get(t, 1)^get(t, 2)); return nil }, nil
	case "shl":
		return func(t *thread) error {
			n := t.valT(&ops[2], ptype{'u', 32})
			if n >= uint64(w) {
				put(t, 0)
			} else {
				put(t, get(t, 1)<<n)
			}
			return nil
		}, nil
	case "shr":
		return func(t *thread) error {
			n := t.valT(&ops[2], ptype{'u', 32})
			x := get(t, 1)
			if signed {
				put(t, uint64(s(x)>>min(n, uint64(w-1))))
			} else if n >= uint64(w) {
				put(t, 0)
			} else {
				put(t, x>>n)
			}
			return nil
		}, nil
	case "popc":
		return func(t *thread) error {
			t.set(&ops[0], uint64(bits.OnesCount64(get(t, 1))), ptype{'u', 32})
			return nil
		}, nil
	case "clz":
		return func(t *thread) error {
			t.set(&ops[0], uint64(bits.LeadingZeros64(get(t, 1))-(64-w)), ptype{'u', 32})
			return nil
		}, nil
	case "brev":
		return func(t *thread) error { put(t, bits.Reverse64(get(t, 1))>>(64-w)); return nil }, nil
	case "bfind":
		shiftAmt := false
		for _, x := range mods {
			if x == "shiftamt" {
				shiftAmt = true
			}
		}
		return func(t *thread) error {
			x := get(t, 1)
			if signed && s(x) < 0 {
				x = ^x & mask(w)
			}
			if x == 0 {
				t.set(&ops[0], 0xFFFFFFFF, ptype{'u', 32})
				return nil
			}
			p := uint64(63 - bits.LeadingZeros64(x))
			if shiftAmt {
				p = uint64(w-1) - p
			}
			t.set(&ops[0], p, ptype{'u', 32})
			return nil
		}, nil
	case "bfe":
		return func(t *thread) error {
			x := get(t, 1)
			pos := t.valT(&ops[2], ptype{'u', 32}) & 0xFF
			ln := t.valT(&ops[3], ptype{'u', 32}) & 0xFF
			var r uint64
			if ln > 0 && pos < uint64(w) {
				r = x >> pos & mask(int(min(ln, 64)))
				top := min(pos+ln, uint64(w)) - pos
				r &= mask(int(top))
				if signed {
					var sbit uint64
					if pos+ln-1 < uint64(w) {
						sbit = x >> (pos + ln - 1) & 1
					} else {
						sbit = x >> (w - 1) & 1
					}
					if sbit == 1 {
						r |= ^mask(int(top))
					}
				}
			} else if signed && ln > 0 {
				if x>>(w-1)&1 == 1 {
					r = ^uint64(0)
				}
			}
			put(t, r)
			return nil
		}, nil
	case "bfi":
		return func(t *thread) error {
			a, b := get(t, 1), get(t, 2)
			pos := t.valT(&ops[3], ptype{'u', 32}) & 0xFF
			ln := t.valT(&ops[4], ptype{'u', 32}) & 0xFF
			if ln == 0 || pos >= uint64(w) {
				put(t, b)
				return nil
			}
			mk := mask(int(min(ln, uint64(w)))) << pos
			put(t, b&^mk|(a<<pos)&mk)
			return nil
		}, nil
	}
	return nil, fmt.Errorf("instruction %s.%s is not modelled", base, typ)
}

// wide is a double-width product.
type wide struct{ hi, lo uint64 }

func new64(x, y int64, w int) wide {
	if w < 64 {
		p := x * y
		return wide{uint64(p>>w) & mask(w), uint64(p) & mask(w)}
	}
	neg := (x < 0) != (y < 0)
	ax, ay := uint64(x), uint64(y)
	if x < 0 {
		ax = uint64(-x)
	}
	if y < 0 {
		ay = uint64(-y)
	}
	hi, lo := bits.Mul64(ax, ay)
	if neg {
		lo = ^lo + 1
		hi = ^hi
		if lo == 0 {
			hi++
		}
	}
	return wide{hi, lo}
}

// compileCall compiles call{.uni} (rets), f, (args) and call f, (args).
func (m *Module) compileCall(f *function, in *instr) (func(*thread) error, error) {
	ops := in.ops
	var rets, args []operand
	var name string
	switch {
	case len(ops) >= 2 && ops[0].kind == opParams && ops[1].kind == opSym:
		rets, name = ops[0].sub, ops[1].name
		if len(ops) > 2 {
			args = ops[2].sub
		}
	case len(ops) >= 1 && ops[0].kind == opSym:
		name = ops[0].name
		if len(ops) > 1 {
			args = ops[1].sub
		}
	default:
		return nil, fmt.Errorf("call form")
	}
	return func(t *thread) error {
		callee, ok := t.b.g.m.funcs[name]
		if !ok {
			return fmt.Errorf("call of unknown function %s", name)
		}
		if len(args) != len(callee.params) || len(rets) != len(callee.ret) {
			return fmt.Errorf("call of %s with %d arguments and %d results", name, len(args), len(rets))
		}
		caller := t.fr()
		fr := &frame{f: callee, regs: make([]uint64, callee.nregs), params: make([]uint64, len(callee.locals))}
		for k, p := range callee.params {
			slot, ok := caller.f.locals[args[k].name]
			if !ok {
				return fmt.Errorf("call argument %s is not a parameter", args[k].name)
			}
			fr.params[callee.locals[p.name]] = caller.params[slot]
		}
		for _, r := range rets {
			slot, ok := caller.f.locals[r.name]
			if !ok {
				return fmt.Errorf("call result %s is not a parameter", r.name)
			}
			fr.retTo = append(fr.retTo, slot)
		}
		t.frames = append(t.frames, fr)
		t.cur = fr
		return nil
	}, nil
}
