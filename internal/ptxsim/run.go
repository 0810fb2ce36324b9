package ptxsim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Memory is global memory as a launch sees it: Bytes returns the n bytes
// at address p, or an error when the kernel may not touch them (the
// simulator reports it as the kernel's fault).
type Memory interface {
	Bytes(p, n uint64) ([]byte, error)
}

// Dim3 is a grid or block size (zero extents count as 1).
type Dim3 struct{ X, Y, Z uint32 }

func (d Dim3) norm() Dim3 {
	return Dim3{max(d.X, 1), max(d.Y, 1), max(d.Z, 1)}
}

func (d Dim3) count() int { return int(d.X) * int(d.Y) * int(d.Z) }

// Launch is one kernel launch.
type Launch struct {
	Grid, Block Dim3
	SharedBytes int      // dynamic shared memory per block
	Params      []uint64 // each .param's bits, in order
	Mem         Memory
	// Seed, when not zero, shuffles the order in which threads and blocks
	// take turns, and the length of their turns.
	Seed uint64
	// Resident bounds the blocks running at once (0: all of them); the
	// others start, in block order, as earlier ones finish.
	Resident int
	// MaxSteps bounds the instructions the whole launch executes (0: 2³²).
	MaxSteps int64
}

// ErrFault is the error of a kernel that touched memory it may not, or
// executed something undefined (a collective some lanes skip, a barrier
// that never fills): the launch's error wraps it.
var ErrFault = errors.New("ptxsim: kernel fault")

// Run executes entry over l and returns the first fault, if any.
func (m *Module) Run(entry string, l Launch) error {
	f, ok := m.funcs[entry]
	if !ok || !f.entry {
		return fmt.Errorf("ptxsim: no entry %q", entry)
	}
	if len(l.Params) != len(f.params) {
		return fmt.Errorf("ptxsim: %s takes %d parameters, got %d", entry, len(f.params), len(l.Params))
	}
	grid, blk := l.Grid.norm(), l.Block.norm()
	if blk.count() > 1024 {
		return fmt.Errorf("ptxsim: %d threads per block, at most 1024", blk.count())
	}
	g := &grid_{m: m, entry: f, l: l, grid: grid, block: blk, mem: newMemCache(l.Mem)}
	if l.Seed != 0 {
		g.rng = rand.New(rand.NewPCG(l.Seed, l.Seed^0x9e3779b97f4a7c15))
	}
	g.maxSteps = l.MaxSteps
	if g.maxSteps == 0 {
		g.maxSteps = 1 << 32
	}
	return g.run()
}

type grid_ struct {
	m           *Module
	entry       *function
	l           Launch
	grid, block Dim3
	mem         *memCache
	rng         *rand.Rand
	steps       int64
	maxSteps    int64
}

type block struct {
	g       *grid_
	id      [3]uint32
	linear  int
	threads []*thread
	shared  []byte
	live    int
}

type tstate uint8

const (
	running tstate = iota
	atBarrier
	atCollective
	exited
)

type thread struct {
	b      *block
	tid    [3]uint32
	linear int // within the block
	lane   int
	warp   int
	frames []*frame
	state  tstate
	// A pending warp collective: its instruction and the values it
	// brought; the result is written when every lane has come.
	coll      *instr
	collMask  uint32
	collVals  [4]uint64
	collFrame *frame
	err       error
}

type frame struct {
	f      *function
	regs   []uint64
	params []uint64
	pc     int
	// where a call returns its results: the caller's param slots
	retTo []int
}

func (g *grid_) run() error {
	nb := g.grid.count()
	resident := g.l.Resident
	if resident <= 0 || resident > nb {
		resident = nb
	}
	var live []*block
	next := 0
	admit := func() {
		for len(live) < resident && next < nb {
			live = append(live, g.newBlock(next))
			next++
		}
	}
	admit()
	for len(live) > 0 {
		progress := false
		order := live
		if g.rng != nil {
			order = slices.Clone(live)
			g.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		for _, b := range order {
			p, err := b.turn()
			if err != nil {
				return fmt.Errorf("%w: block %v: %v", ErrFault, b.id, err)
			}
			progress = progress || p
		}
		kept := live[:0]
		for _, b := range live {
			if b.live > 0 {
				kept = append(kept, b)
			}
		}
		done := len(kept) < len(live)
		live = kept
		admit()
		if !progress && !done && len(live) > 0 {
			return fmt.Errorf("%w: deadlock: %s", ErrFault, describeStuck(live))
		}
		if g.steps > g.maxSteps {
			return fmt.Errorf("%w: more than %d steps (a loop that never ends?)", ErrFault, g.maxSteps)
		}
	}
	return nil
}

func describeStuck(bs []*block) string {
	var parts []string
	for _, b := range bs {
		for _, t := range b.threads {
			if t.state == exited {
				continue
			}
			fr := t.frames[len(t.frames)-1]
			what := "running"
			switch t.state {
			case atBarrier:
				what = "at bar.sync"
			case atCollective:
				what = "at " + t.coll.opcode
			}
			txt := ""
			if fr.pc < len(fr.f.code) {
				txt = fr.f.code[fr.pc].text
			}
			parts = append(parts, fmt.Sprintf("block %v thread %d %s (%q)", b.id, t.linear, what, txt))
			if len(parts) > 8 {
				return strings.Join(parts, "; ") + "; ..."
			}
		}
	}
	return strings.Join(parts, "; ")
}

func (g *grid_) newBlock(linear int) *block {
	gx, gy := int(g.grid.X), int(g.grid.Y)
	b := &block{g: g, linear: linear,
		id: [3]uint32{uint32(linear % gx), uint32(linear / gx % gy), uint32(linear / (gx * gy))}}
	b.shared = make([]byte, g.m.dynBase+g.l.SharedBytes+16)
	n := g.block.count()
	bx, by := int(g.block.X), int(g.block.Y)
	for i := 0; i < n; i++ {
		t := &thread{b: b, linear: i, lane: i % 32, warp: i / 32,
			tid: [3]uint32{uint32(i % bx), uint32(i / bx % by), uint32(i / (bx * by))}}
		fr := &frame{f: g.entry, regs: make([]uint64, g.entry.nregs), params: make([]uint64, len(g.entry.locals))}
		for k, p := range g.entry.params {
			fr.params[g.entry.locals[p.name]] = g.l.Params[k]
		}
		t.frames = []*frame{fr}
		b.threads = append(b.threads, t)
	}
	b.live = n
	return b
}

// turn runs every runnable thread of the block for a while, then
// completes barriers and collectives that have filled. It reports whether
// anything happened.
func (b *block) turn() (bool, error) {
	progress := false
	order := b.threads
	if b.g.rng != nil {
		order = slices.Clone(b.threads)
		b.g.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	for _, t := range order {
		if t.state != running {
			continue
		}
		q := 64
		if b.g.rng != nil {
			q = 1 + b.g.rng.IntN(96)
		}
		for i := 0; i < q && t.state == running; i++ {
			if err := t.step(); err != nil {
				return false, fmt.Errorf("thread %v (lane %d of warp %d): %w", t.tid, t.lane, t.warp, err)
			}
			b.g.steps++
			progress = true
		}
	}
	p, err := b.settle()
	return progress || p, err
}

// settle releases a full barrier and completes the warp collectives whose
// lanes have all arrived.
func (b *block) settle() (bool, error) {
	progress := false
	waiting, live := 0, 0
	for _, t := range b.threads {
		if t.state != exited {
			live++
		}
		if t.state == atBarrier {
			waiting++
		}
	}
	if live > 0 && waiting == live {
		for _, t := range b.threads {
			if t.state == atBarrier {
				t.state = running
				t.frames[len(t.frames)-1].pc++
			}
		}
		progress = true
	}
	for w := 0; w*32 < len(b.threads); w++ {
		lanes := b.threads[w*32 : min(len(b.threads), w*32+32)]
		for _, t := range lanes {
			if t.state != atCollective {
				continue
			}
			ok, err := b.tryCollective(lanes, t)
			if err != nil {
				return false, err
			}
			if ok {
				progress = true
			}
		}
	}
	return progress, nil
}

// tryCollective completes the collective t waits at when every lane of
// its mask waits at the same instruction with the same mask.
func (b *block) tryCollective(lanes []*thread, t *thread) (bool, error) {
	mask := t.collMask
	var buf [32]*thread
	members := buf[:0]
	for l := 0; l < 32; l++ {
		if mask&(1<<l) == 0 {
			continue
		}
		if l >= len(lanes) {
			return false, fmt.Errorf("%s names lane %d, which the block does not have (mask %#x)", t.coll.opcode, l, mask)
		}
		u := lanes[l]
		switch u.state {
		case exited:
			return false, fmt.Errorf("%q: lane %d of its mask %#x has exited", t.coll.text, l, mask)
		case atCollective:
			if u.coll != t.coll || u.collMask != mask {
				return false, fmt.Errorf("lanes of one warp wait at different collectives: %q (lane %d, mask %#x) and %q (lane %d, mask %#x)",
					t.coll.text, t.lane, mask, u.coll.text, l, u.collMask)
			}
			members = append(members, u)
		default:
			return false, nil // not there yet
		}
	}
	if mask&(1<<t.lane) == 0 {
		return false, fmt.Errorf("%q: the executing lane %d is not in its mask %#x", t.coll.text, t.lane, mask)
	}
	if err := complete(t.coll, members); err != nil {
		return false, err
	}
	for _, u := range members {
		u.state = running
		u.coll = nil
		u.frames[len(u.frames)-1].pc++
	}
	return true, nil
}

// step executes one instruction.
func (t *thread) step() error {
	fr := t.frames[len(t.frames)-1]
	if fr.pc >= len(fr.f.code) {
		return t.ret()
	}
	in := &fr.f.code[fr.pc]
	if in.guard >= 0 && (fr.regs[in.guard] != 0) == in.negate {
		fr.pc++
		return nil
	}
	before := fr.pc
	if err := in.exec(t); err != nil {
		return err
	}
	// exec moves pc itself for branches, calls, returns and waits.
	if t.state == running && len(t.frames) > 0 && t.frames[len(t.frames)-1] == fr && fr.pc == before && !isControl(in) {
		fr.pc++
	}
	return nil
}

func isControl(in *instr) bool { return in.target >= 0 || strings.HasPrefix(in.opcode, "call") }

// ret returns from the current frame (or ends the thread).
func (t *thread) ret() error {
	fr := t.frames[len(t.frames)-1]
	t.frames = t.frames[:len(t.frames)-1]
	if len(t.frames) == 0 {
		t.state = exited
		t.b.live--
		return nil
	}
	caller := t.frames[len(t.frames)-1]
	for i, p := range fr.f.ret {
		if i < len(fr.retTo) {
			caller.params[fr.retTo[i]] = fr.params[fr.f.locals[p.name]]
		}
	}
	caller.pc++
	return nil
}

func (t *thread) exit() {
	t.frames = t.frames[:0]
	t.state = exited
	t.b.live--
}

func (t *thread) fr() *frame { return t.frames[len(t.frames)-1] }

// memCache resolves global addresses through Memory, keeping the windows
// it was granted so that each access does not ask again.
type memCache struct {
	m    Memory
	wins []window // sorted by lo
}

type window struct {
	lo, hi uint64
	b      []byte
}

func newMemCache(m Memory) *memCache { return &memCache{m: m} }

func (c *memCache) bytes(p, n uint64) ([]byte, error) {
	if c.m == nil {
		return nil, fmt.Errorf("global access at %#x with no memory", p)
	}
	i, _ := slices.BinarySearchFunc(c.wins, p, func(w window, p uint64) int {
		switch {
		case w.hi <= p:
			return -1
		case w.lo > p:
			return 1
		}
		return 0
	})
	if i < len(c.wins) && c.wins[i].lo <= p && p+n <= c.wins[i].hi {
		w := c.wins[i]
		return w.b[p-w.lo : p-w.lo+n], nil
	}
	// Ask for a generous window first (the rest of the allocation is
	// likely to be touched), then smaller ones.
	var err error
	for _, size := range []uint64{1 << 20, 1 << 16, 1 << 12, 1 << 8, n} {
		if size < n {
			continue
		}
		var b []byte
		b, err = c.m.Bytes(p, size)
		if err == nil {
			w := window{p, p + size, b}
			j, _ := slices.BinarySearchFunc(c.wins, p, func(w window, p uint64) int {
				if w.lo < p {
					return -1
				}
				if w.lo > p {
					return 1
				}
				return 0
			})
			c.wins = slices.Insert(c.wins, j, w)
			return b[:n], nil
		}
	}
	return nil, err
}
