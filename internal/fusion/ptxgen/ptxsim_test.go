package ptxgen

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// A sequential interpreter for the integer and float64 PTX that one
// thread's reduction bookkeeping emits (128-bit sums, the Wide Mean's
// division, casts), so that those instruction sequences are checked
// against exact arithmetic without a GPU. It knows only the instructions
// it is given here and fails the test on any other.

type ptxSim struct {
	t    *testing.T
	regs map[string]uint64 // register bits (predicates 0 or 1; f32 in the low 32 bits)
}

// simInstr is one parsed line: an optional guard, the opcode and operands
// (the destination first), or a label.
type simInstr struct {
	label string
	guard operand
	neg   bool
	op    string
	dst   string
	args  []operand
}

// parseSim parses a kernel body as gen emits it.
func parseSim(body string) []simInstr {
	var prog []simInstr
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSuffix(strings.TrimSpace(l), ";")
		var in simInstr
		switch {
		case l == "" || strings.HasPrefix(l, "//"):
			continue
		case strings.HasSuffix(l, ":"):
			in.label = strings.TrimSuffix(l, ":")
			prog = append(prog, in)
			continue
		case strings.HasPrefix(l, "@"):
			sp := strings.IndexByte(l, ' ')
			guard := l[1:sp]
			if strings.HasPrefix(guard, "!") {
				guard, in.neg = guard[1:], true
			}
			in.guard = operand{reg: guard}
			l = strings.TrimSpace(l[sp:])
		}
		sp := strings.IndexByte(l, ' ')
		in.op = l[:sp]
		for i, a := range strings.Split(l[sp:], ",") {
			a = strings.TrimSpace(a)
			switch {
			case i == 0 && in.op != "bra":
				in.dst = a
			case in.op == "bra":
				in.dst = a // the label
			default:
				in.args = append(in.args, parseOperand(a))
			}
		}
		prog = append(prog, in)
	}
	return prog
}

// operand is a register name or an immediate's bits.
type operand struct {
	reg string
	imm uint64
}

func parseOperand(op string) operand {
	var u uint64
	var err error
	switch {
	case strings.HasPrefix(op, "%"):
		return operand{reg: op}
	case strings.HasPrefix(op, "0d"), strings.HasPrefix(op, "0f"), strings.HasPrefix(op, "0x"):
		u, err = strconv.ParseUint(op[2:], 16, 64)
	default:
		var i int64
		i, err = strconv.ParseInt(op, 10, 64)
		u = uint64(i)
	}
	if err != nil {
		panic(fmt.Sprintf("ptxSim: operand %q: %v", op, err))
	}
	return operand{imm: u}
}

func (s *ptxSim) val(op operand) uint64 {
	if op.reg == "" {
		return op.imm
	}
	v, ok := s.regs[op.reg]
	if !ok {
		s.t.Fatalf("ptxSim: register %s read before it is written", op.reg)
	}
	return v
}

func f64(u uint64) float64 { return math.Float64frombits(u) }
func b64(f float64) uint64 { return math.Float64bits(f) }

// run executes prog from its first instruction to its end.
func (s *ptxSim) run(prog []simInstr) {
	labels := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			labels[in.label] = i
		}
	}
	for pc, steps := 0, 0; pc < len(prog); pc++ {
		steps++
		if steps > 1_000_000 {
			s.t.Fatal("ptxSim: runaway loop")
		}
		in := prog[pc]
		if in.label != "" || in.guard.reg != "" && (s.val(in.guard) == 1) == in.neg {
			continue
		}
		if in.op == "bra" {
			target, ok := labels[in.dst]
			require.True(s.t, ok, "label %s", in.dst)
			pc = target
			continue
		}
		s.regs[in.dst] = s.exec(in.op, in.args)
	}
}

// remByZero stands for rem.u64's unspecified result when dividing by 0.
const remByZero = 0x5A5A5A5A5A5A5A5A

func (s *ptxSim) exec(op string, a []operand) uint64 {
	v := func(i int) uint64 { return s.val(a[i]) }
	b := func(x bool) uint64 {
		if x {
			return 1
		}
		return 0
	}
	m32 := func(x uint64) uint64 { return x & math.MaxUint32 }
	switch op {
	case "mov.b64", "mov.u64", "mov.s64":
		return v(0)
	case "mov.u32", "mov.b32":
		return m32(v(0))
	case "not.b64":
		return ^v(0)
	case "add.u64", "add.s64":
		return v(0) + v(1)
	case "sub.u64", "sub.s64":
		return v(0) - v(1)
	case "sub.u32":
		return m32(v(0) - v(1))
	case "shl.b64":
		return v(0) << v(1)
	case "shr.u64":
		return v(0) >> v(1)
	case "shr.s64":
		return uint64(int64(v(0)) >> v(1))
	case "or.b64":
		return v(0) | v(1)
	case "and.b32":
		return m32(v(0) & v(1))
	case "or.pred":
		return v(0) | v(1)
	case "neg.s64":
		return -v(0)
	case "rem.u64":
		if v(1) == 0 {
			return remByZero
		}
		return v(0) % v(1)
	case "setp.lt.s64":
		return b(int64(v(0)) < int64(v(1)))
	case "setp.lt.u64":
		return b(v(0) < v(1))
	case "setp.ge.u64":
		return b(v(0) >= v(1))
	case "setp.eq.u64":
		return b(v(0) == v(1))
	case "setp.ne.u64":
		return b(v(0) != v(1))
	case "setp.ne.u32":
		return b(m32(v(0)) != m32(v(1)))
	case "selp.u64", "selp.b64", "selp.f64", "selp.b32":
		if v(2) == 1 {
			return v(0)
		}
		return v(1)
	case "cvt.u32.u64":
		return m32(v(0))
	case "cvt.s64.s32":
		return uint64(int64(int32(uint32(v(0)))))
	case "cvt.u64.u32":
		return m32(v(0))
	case "cvt.s32.s8":
		return m32(uint64(int32(int8(v(0)))))
	case "cvt.s32.s16":
		return m32(uint64(int32(int16(v(0)))))
	case "cvt.rn.f64.u64":
		return b64(float64(v(0)))
	case "cvt.rn.f32.f64":
		return uint64(math.Float32bits(float32(f64(v(0)))))
	case "div.rn.f64":
		return b64(f64(v(0)) / f64(v(1)))
	case "add.rn.f64":
		return b64(f64(v(0)) + f64(v(1)))
	case "sub.rn.f64":
		return b64(f64(v(0)) - f64(v(1)))
	case "mul.rn.f64":
		return b64(f64(v(0)) * f64(v(1)))
	case "fma.rn.f64":
		return b64(math.FMA(f64(v(0)), f64(v(1)), f64(v(2))))
	case "mov.f64":
		return v(0)
	case "setp.eq.f64":
		return b(f64(v(0)) == f64(v(1)))
	case "setp.nan.f64":
		return b(math.IsNaN(f64(v(0))) || math.IsNaN(f64(v(1))))
	case "cvt.f64.f32":
		return b64(float64(math.Float32frombits(uint32(v(0)))))
	case "neg.f64":
		return b64(-f64(v(0)))
	}
	s.t.Fatalf("ptxSim: instruction %s not modelled", op)
	return 0
}

// wideProgram is a one-input Wide Mean of values of type vt.
func wideProgram(vt, result dtype.DType) *expr.Program {
	return &expr.Program{Code: []expr.Instr{{Op: expr.OpInput, T: vt, A: -1, B: -1, C: -1}},
		Inputs: []expr.Input{{Kind: expr.Memory, T: vt}}, Reduce: expr.Mean, ArgIndex: -1, Result: result}
}

// TestSimWideMean runs the Final write of a Wide Mean (wideMean) on
// random 128-bit sums within the contract (|S| < count·2⁶³ for signed
// values, S < count·2⁶⁴ for unsigned), on edge cases and on count 0
// (whatever rem.u64 gives then), for several result types, against
// big.Int and the float formula expr.Program.FinalType states.
func TestSimWideMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	two128 := new(big.Int).Lsh(two64, 64)
	type sumCase struct {
		s *big.Int
		c uint64
	}
	cases := []sumCase{{big.NewInt(0), 1}, {big.NewInt(-1), 1}, {big.NewInt(-7), 2}, {big.NewInt(7), 2},
		{new(big.Int).Mul(big.NewInt(4), big.NewInt(math.MaxInt64/2)), 4},
		{new(big.Int).Mul(big.NewInt(5), big.NewInt(math.MinInt64)), 5},
		{new(big.Int).Mul(big.NewInt(3), new(big.Int).SetUint64(math.MaxUint64)), 3},
		{new(big.Int).Sub(new(big.Int).Mul(big.NewInt(1<<62), new(big.Int).SetUint64(math.MaxUint64)), big.NewInt(1)), 1 << 62},
		{big.NewInt(12345), 0}}
	for range 400 {
		c := rng.Uint64() >> rng.IntN(64)
		c = max(c, 1)
		mag := new(big.Int).Mul(new(big.Int).SetUint64(c), new(big.Int).SetUint64(rng.Uint64()>>1))
		mag.Add(mag, new(big.Int).SetUint64(rng.Uint64()%c))
		if rng.IntN(2) == 0 {
			mag.Neg(mag)
		}
		cases = append(cases, sumCase{mag, c})
	}
	for _, rt := range []dtype.DType{dtype.Int64, dtype.Uint64, dtype.Int8, dtype.Uint16, dtype.Float64, dtype.Float32} {
		g := newGen(wideProgram(dtype.Int64, rt))
		lo, hi, cnt := g.reg(clsB64), g.reg(clsB64), g.reg(clsB64)
		res := g.wideMean(lo, hi, cnt, rt)
		prog := parseSim(g.body.String())
		for _, c := range cases {
			bits := new(big.Int).Mod(c.s, two128)
			sim := &ptxSim{t: t, regs: map[string]uint64{
				lo: new(big.Int).Mod(bits, two64).Uint64(), hi: new(big.Int).Rsh(bits, 64).Uint64(), cnt: c.c}}
			sim.run(prog)
			got := sim.regs[res]
			if c.c == 0 { // q = r = 0 whatever rem gave: 0, or NaN (0/0)
				if rt.IsFloat() {
					require.True(t, math.IsNaN(f64(got)) || rt == dtype.Float32 && math.IsNaN(float64(math.Float32frombits(uint32(got)))), "%s: count 0", rt)
				} else {
					require.Zero(t, got&0xFF, "%s: count 0", rt)
				}
				continue
			}
			mag := new(big.Int).Abs(c.s)
			q, r := new(big.Int).QuoRem(mag, new(big.Int).SetUint64(c.c), new(big.Int))
			neg := c.s.Sign() < 0
			switch {
			case rt.IsFloat():
				m := float64(q.Uint64()) + float64(r.Uint64())/float64(c.c)
				if neg {
					m = -m
				}
				want := math.Float64bits(m)
				if rt == dtype.Float32 {
					want = uint64(math.Float32bits(float32(m)))
				}
				require.Equal(t, want, got, "%s: S %v count %d", rt, c.s, c.c)
			default:
				qs := new(big.Int).Set(q)
				if neg {
					qs.Neg(qs)
				}
				want := new(big.Int).Mod(qs, two64).Uint64() // 64-bit two's complement
				mask := uint64(math.MaxUint64)
				if rt.Size() < 8 {
					mask = 1<<(8*rt.Size()) - 1
				}
				require.Equal(t, want&mask, got&mask, "%s: S %v count %d", rt, c.s, c.c)
			}
		}
	}
}

// TestSimWideAccumulate folds values of each integer type into a Wide
// accumulator (extension by signedness, then 128-bit adds) and compares
// the 128-bit sum with big.Int.
func TestSimWideAccumulate(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, vt := range []dtype.DType{dtype.Int8, dtype.Int16, dtype.Int32, dtype.Int64, dtype.Uint8, dtype.Uint16, dtype.Uint32, dtype.Uint64} {
		g := newGen(wideProgram(vt, 0))
		a := g.newAcc()
		const n = 200
		regs := map[string]uint64{}
		want := new(big.Int)
		for i := range n {
			r := g.regT(vt)
			u := rng.Uint64()
			if i%3 == 0 { // extremes
				lo, hi := intRange(vt)
				u = []uint64{lo, hi}[i%2]
			}
			w := uint(8 * vt.Size())
			var x *big.Int
			switch {
			case vt.IsSigned():
				sv := int64(u<<(64-w)) >> (64 - w)
				x = big.NewInt(sv)
				u = uint64(sv) // registers hold narrow values sign-extended
			default:
				u = u << (64 - w) >> (64 - w)
				x = new(big.Int).SetUint64(u)
			}
			if vt.Size() < 8 {
				u &= math.MaxUint32
			}
			regs[r] = u
			want.Add(want, x)
			g.accumulate(a, r, "", "")
		}
		sim := &ptxSim{t: t, regs: regs}
		sim.run(parseSim(g.body.String()))
		got := new(big.Int).Lsh(big.NewInt(int64(sim.regs[a.x])), 64)
		got.Add(got, new(big.Int).SetUint64(sim.regs[a.v]))
		require.Equal(t, want.String(), got.String(), "%s", vt)
	}
}

// TestSimWidePartialCombine adds 128-bit partials (low word value, high
// word as the second word), as the Final stage over partials does.
func TestSimWidePartialCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	p := wideProgram(dtype.Uint64, dtype.Int64)
	p.Inputs = append(p.Inputs, expr.Input{Kind: expr.Memory, T: dtype.Int64})
	p.ArgIndex = 1
	g := newGen(p)
	a := g.newAcc()
	regs := map[string]uint64{}
	want := new(big.Int)
	for range 100 {
		lo, hi := g.reg(clsB64), g.reg(clsB64)
		regs[lo], regs[hi] = rng.Uint64(), uint64(rng.Int64N(1<<40)-1<<39)
		x := new(big.Int).Lsh(big.NewInt(int64(regs[hi])), 64)
		want.Add(want, x.Add(x, new(big.Int).SetUint64(regs[lo])))
		g.accumulate(a, lo, hi, "")
	}
	sim := &ptxSim{t: t, regs: regs}
	sim.run(parseSim(g.body.String()))
	got := new(big.Int).Lsh(big.NewInt(int64(sim.regs[a.x])), 64)
	got.Add(got, new(big.Int).SetUint64(sim.regs[a.v]))
	require.Equal(t, want.String(), got.String())
}

// momentsProgram is a one-input moments reduction r of values of type
// vt; over partials (ArgIndex 1) when partials is set.
func momentsProgram(r expr.ReduceOp, vt dtype.DType, partials bool) *expr.Program {
	p := &expr.Program{Code: []expr.Instr{{Op: expr.OpInput, T: vt, A: -1, B: -1, C: -1}},
		Inputs: []expr.Input{{Kind: expr.Memory, T: vt}}, Reduce: r, ArgIndex: -1}
	if partials {
		p.Inputs = append(p.Inputs, expr.Input{Kind: expr.Memory, T: dtype.Float64}, expr.Input{Kind: expr.Memory, T: dtype.Float64})
		p.ArgIndex = 1
	}
	return p
}

// exactMoments is the sum, count and M2 = Σ(x − mean)² of xs skipping
// NaN when skip is set, in 256-bit floats.
func exactMoments(xs []float64, skip bool) (s, n, m2 float64) {
	sum, cnt := new(big.Float).SetPrec(256), 0
	for _, x := range xs {
		if skip && math.IsNaN(x) {
			continue
		}
		sum.Add(sum, new(big.Float).SetPrec(256).SetFloat64(x))
		cnt++
	}
	mean := new(big.Float).SetPrec(256).Quo(sum, new(big.Float).SetInt64(int64(max(cnt, 1))))
	acc := new(big.Float).SetPrec(256)
	for _, x := range xs {
		if skip && math.IsNaN(x) {
			continue
		}
		d := new(big.Float).SetPrec(256).Sub(new(big.Float).SetFloat64(x), mean)
		acc.Add(acc, d.Mul(d, d))
	}
	s, _ = sum.Float64()
	m2, _ = acc.Float64()
	return s, float64(cnt), m2
}

// TestSimMoments runs what one thread emits for Var and NanMean (fold
// into raw shifted sums, settle, Chan's combination of two threads) on
// data whose mean dwarfs its spread, where Σx² − n·mean² would lose every
// digit, and checks S, n and M2 against exact arithmetic.
func TestSimMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, c := range []struct {
		name string
		r    expr.ReduceOp
		vt   dtype.DType
		gen  func(i int) float64
	}{
		{"var f64 offset 1e9", expr.Var, dtype.Float64, func(int) float64 { return 1e9 + rng.NormFloat64() }},
		{"var f64 mixed scales", expr.Var, dtype.Float64, func(i int) float64 { return math.Ldexp(rng.Float64()-0.5, i%40-20) }},
		{"var f32 offset 1e4", expr.Var, dtype.Float32, func(int) float64 { return float64(float32(1e4 + rng.Float64())) }},
		{"nanmean with NaNs", expr.NanMean, dtype.Float64, func(i int) float64 {
			if i%7 == 3 {
				return math.NaN()
			}
			return rng.NormFloat64() * 100
		}},
	} {
		g := newGen(momentsProgram(c.r, c.vt, false))
		regs := map[string]uint64{}
		var xs []float64
		for i := range 300 {
			xs = append(xs, c.gen(i))
		}
		if c.r != expr.NanMean { // the group's shift: its first value
			g.shift = g.reg(clsF64)
			regs[g.shift] = math.Float64bits(xs[0])
		}
		a, b := g.newAcc(), g.newAcc()
		for i, x := range xs {
			r := g.regT(c.vt)
			if c.vt == dtype.Float32 {
				regs[r] = uint64(math.Float32bits(float32(x)))
			} else {
				regs[r] = math.Float64bits(x)
			}
			acc := a
			if i >= 110 { // two threads of unequal runs
				acc = b
			}
			g.accumulate(acc, r, "", "")
		}
		g.settle(a)
		g.settle(b)
		g.combine(a, b.v, b.x, b.y)
		sim := &ptxSim{t: t, regs: regs}
		sim.run(parseSim(g.body.String()))
		s, n, m2 := exactMoments(xs, c.r == expr.NanMean)
		require.Equal(t, n, f64(sim.regs[a.x]), c.name)
		if c.r == expr.Var {
			dev := make([]float64, len(xs)) // deviations from the shift (exact: Sterbenz or small)
			for i, x := range xs {
				dev[i] = x - xs[0]
			}
			s, _, _ = exactMoments(dev, false)
			require.InDelta(t, s, f64(sim.regs[a.v]), 1e-12*math.Sqrt(m2*n), c.name)
			require.InEpsilon(t, m2, f64(sim.regs[a.y]), 1e-13, c.name)
		} else {
			require.InEpsilon(t, s, f64(sim.regs[a.v]), 1e-14, c.name)
		}
	}
}

// TestSimMomentsPartials folds partial accumulators (a Final stage over
// them) and empty ones, and checks Chan's combination against the exact
// moments of the values the partials stand for.
func TestSimMomentsPartials(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	g := newGen(momentsProgram(expr.Var, dtype.Float64, true))
	a := g.newAcc()
	regs := map[string]uint64{}
	var all []float64
	for k := range 12 {
		var part []float64
		if k%4 != 1 { // every fourth part is empty
			for range 1 + rng.IntN(50) {
				part = append(part, 5e6+rng.NormFloat64()*3)
			}
		}
		all = append(all, part...)
		s, n, m2 := exactMoments(part, false)
		if n == 0 {
			s, m2 = 0, 0
		}
		rs, rn, rm := g.reg(clsF64), g.reg(clsF64), g.reg(clsF64)
		regs[rs], regs[rn], regs[rm] = math.Float64bits(s), math.Float64bits(n), math.Float64bits(m2)
		g.accumulate(a, rs, rn, rm)
	}
	sim := &ptxSim{t: t, regs: regs}
	sim.run(parseSim(g.body.String()))
	s, n, m2 := exactMoments(all, false)
	require.Equal(t, n, f64(sim.regs[a.x]))
	require.InEpsilon(t, s, f64(sim.regs[a.v]), 1e-14)
	require.InEpsilon(t, m2, f64(sim.regs[a.y]), 1e-9)
}
