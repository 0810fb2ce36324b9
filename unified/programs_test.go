package unified_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/unified"
)

// Randomized "user programs": each trial runs one to three goroutines that
// allocate unified and device arrays, take views of them, write them from
// the CPU and the GPU on several streams, copy between them (across
// devices where there are two), read them back every way the API offers,
// release them, drop them for the GC, hand them to each other, and misuse
// released ones, checking every value against a model kept on the host.
// It counts crashes (unexpected panics and errors) and wrong values; both
// must be zero. Run it in the host backend's checking mode
// (GPUARR_HOST_CHECK=1), which delays stream work at random and poisons or
// quarantines freed memory, so that a missing synchronization or a use of
// freed memory shows.
//
// GPUARR_TEST_PROGRAMS sets the number of trials (default 200; 50 with
// -short or on a GPU); GPUARR_TEST_PROGRAM_SEED the seed of the first
// (default 1), so that a failure's trial can be run again alone.
const (
	envPrograms    = "GPUARR_TEST_PROGRAMS"
	envProgramSeed = "GPUARR_TEST_PROGRAM_SEED"
)

func TestUserPrograms(t *testing.T) {
	dev := testDevice(t)
	trials, seed := 200, uint64(1)
	if testing.Short() || dev.Backend() != "host" {
		trials = 50 // a GPU's kernels are compiled and launched for real (and checked, under compute-sanitizer)
	}
	if v := os.Getenv(envPrograms); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "%s=%q: want a number of trials", envPrograms, v)
		trials = n
	}
	if v := os.Getenv(envProgramSeed); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, "%s=%q: want a seed", envProgramSeed, v)
		seed = n
	}
	devs := []*device.Device{dev}
	all, err := device.Devices()
	require.NoError(t, err)
	for _, d := range all {
		if d != dev && d.Backend() == dev.Backend() && d.Info().ManagedMemory && len(devs) < 2 {
			devs = append(devs, d)
		}
	}
	const maxWorkers = 3
	streams := make([]map[*device.Device][]*device.Stream, maxWorkers)
	for w := range streams {
		streams[w] = map[*device.Device][]*device.Stream{}
		for _, d := range devs {
			streams[w][d] = []*device.Stream{nil, newStream(t, d), newStream(t, d)} // nil: the default stream
		}
	}

	res := &results{}
	start := time.Now()
	for i := range trials {
		runTrial(seed+uint64(i), devs, streams, res)
		if res.failed() >= 5 {
			break
		}
	}
	t.Logf("%d trials from seed %d on %d device(s) in %v: %d operations, %d crashes, %d wrong values",
		trials, seed, len(devs), time.Since(start).Round(time.Millisecond), res.ops, res.crashes, res.wrong)
	t.Logf("operations by kind: %v", res.kinds)
	for _, m := range res.messages {
		t.Error(m)
	}
	assert.Zero(t, res.crashes, "crashes")
	assert.Zero(t, res.wrong, "wrong values")
}

// results is what the trials found.
type results struct {
	mu             sync.Mutex
	ops            int
	kinds          map[string]int // operations by their first word
	crashes, wrong int
	messages       []string
}

func (r *results) failed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.crashes + r.wrong
}

func (r *results) add(trace []string, crashes, wrong int, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.kinds == nil {
		r.kinds = map[string]int{}
	}
	for _, op := range trace {
		kind, _, _ := strings.Cut(op, " ")
		r.kinds[kind]++
	}
	r.ops += len(trace)
	r.crashes += crashes
	r.wrong += wrong
	if msg != "" && len(r.messages) < 5 {
		r.messages = append(r.messages, msg)
	}
}

// group is one buffer and the handles on it: its elements (the model),
// and whether they are unified. A group belongs to one goroutine at a
// time; a hand-off through a channel moves it whole.
type group struct {
	dev     *device.Device
	unified bool
	data    []int32
	handles []*handle
}

// handle is an array on a group's buffer: element i of it is g.data[idx[i]].
type handle struct {
	g      *group
	a      *gpuarr.Array[int32]
	shape  gpuarr.Shape
	idx    []int
	contig bool // a destination for EvalInto and Copy
}

func (h *handle) want() []int32 {
	out := make([]int32, len(h.idx))
	for i, j := range h.idx {
		out[i] = h.g.data[j]
	}
	return out
}

// frozen is a View of a dropped unified group and what it must read: no
// GPU work touches the group any more, so the View stays exact, and it
// alone keeps the array alive.
type frozen struct {
	v    unified.View[int32]
	want []int32
}

type worker struct {
	id       int
	rng      *rand.Rand
	devs     []*device.Device
	streams  map[*device.Device][]*device.Stream
	groups   []*group
	released []*handle
	frozen   []frozen
	inbox    chan *group
	peers    []chan *group

	crashes, wrong int
	msg            string
	trace          []string // the operations run, for the failure message
}

var programShapes = []gpuarr.Shape{{1}, {7}, {64}, {300}, {4, 16}, {16, 4}, {3, 5}, {2, 3, 4}}

func runTrial(seed uint64, devs []*device.Device, streams []map[*device.Device][]*device.Stream, res *results) {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	n := 1 + r.IntN(len(streams))
	ws := make([]*worker, n)
	for i := range ws {
		ws[i] = &worker{id: i, rng: rand.New(rand.NewPCG(seed, uint64(i))), devs: devs, streams: streams[i], inbox: make(chan *group, 16)}
	}
	for _, w := range ws {
		for _, o := range ws {
			if o != w {
				w.peers = append(w.peers, o.inbox)
			}
		}
	}
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(5 + w.rng.IntN(25))
		}()
	}
	wg.Wait()
	// Groups handed to a goroutine that had finished.
	for _, w := range ws {
		w.guard(func() {
			w.receive()
			w.finish()
		})
	}
	for _, w := range ws {
		msg := w.msg
		if msg != "" {
			msg = fmt.Sprintf("trial with seed %d, goroutine %d of %d: %s\nits operations: %s", seed, w.id, n, msg, strings.Join(w.trace, "; "))
		}
		res.add(w.trace, w.crashes, w.wrong, msg)
	}
}

// guard runs f, counting a panic as a crash.
func (w *worker) guard(f func()) {
	defer func() {
		if r := recover(); r != nil {
			w.crash("panic: %v\n%s", r, debug.Stack())
		}
	}()
	f()
}

func (w *worker) crash(format string, args ...any) {
	w.crashes++
	if w.msg == "" {
		w.msg = "crash: " + fmt.Sprintf(format, args...)
	}
}

func (w *worker) check(what string, got, want []int32) {
	if !slices.Equal(got, want) {
		w.wrong++
		if w.msg == "" {
			w.msg = fmt.Sprintf("wrong values from %s: got %v, want %v", what, clip(got), clip(want))
		}
	}
}

func clip(s []int32) []int32 { return s[:min(len(s), 24)] }

func (w *worker) note(format string, args ...any) {
	w.trace = append(w.trace, fmt.Sprintf(format, args...))
}

func (w *worker) run(steps int) {
	w.guard(func() {
		for range steps {
			w.receive()
			w.step()
		}
		w.finish()
	})
}

func (w *worker) receive() {
	for {
		select {
		case g := <-w.inbox:
			w.note("receive %v", g.handles[0].shape)
			w.groups = append(w.groups, g)
		default:
			return
		}
	}
}

func (w *worker) stream(dev *device.Device) *device.Stream {
	ss := w.streams[dev]
	return ss[w.rng.IntN(len(ss))]
}

func on(s *device.Stream, dev *device.Device) gpuarr.Option {
	if s == nil {
		return gpuarr.OnDevice(dev)
	}
	return gpuarr.On(s)
}

// live returns a random live handle (contiguous ones only when contig),
// or nil.
func (w *worker) live(contig bool, ok func(*handle) bool) *handle {
	var hs []*handle
	for _, g := range w.groups {
		for _, h := range g.handles {
			if (!contig || h.contig) && (ok == nil || ok(h)) {
				hs = append(hs, h)
			}
		}
	}
	if len(hs) == 0 {
		return nil
	}
	return hs[w.rng.IntN(len(hs))]
}

func (w *worker) step() {
	switch p := w.rng.IntN(100); {
	case p < 16 || len(w.groups) == 0:
		w.alloc()
	case p < 26:
		w.view()
	case p < 40:
		w.cpuWrite()
	case p < 56:
		w.gpuWrite()
	case p < 74:
		w.read()
	case p < 79:
		w.copy()
	case p < 86:
		w.release()
	case p < 90:
		w.drop()
	case p < 94:
		w.misuse()
	case p < 97:
		w.handOff()
	case p < 99:
		w.prefetch()
	default:
		w.note("gc")
		runtime.GC()
	}
}

func elems(sh gpuarr.Shape) int {
	n := 1
	for _, d := range sh {
		n *= d
	}
	return n
}

func (w *worker) alloc() {
	sh := programShapes[w.rng.IntN(len(programShapes))]
	dev := w.devs[w.rng.IntN(len(w.devs))]
	uni := w.rng.IntN(5) < 3
	n := elems(sh)
	data := make([]int32, n)
	for i := range data {
		data[i] = w.rng.Int32N(2001) - 1000
	}
	s := w.stream(dev)
	var a *gpuarr.Array[int32]
	var err error
	how := w.rng.IntN(3)
	w.note("alloc unified=%v %v on %s how %d", uni, sh, dev, how)
	switch {
	case uni && how == 0:
		a, err = unified.Zeros[int32](sh, unifiedOn(s, dev))
		clear(data)
	case uni && how == 1:
		a, err = unified.FromSlice(data, sh, unifiedOn(s, dev))
	case uni:
		if a, err = unified.Empty[int32](sh, unifiedOn(s, dev)); err == nil {
			err = gpuarr.EvalInto(a, gpuarr.Scalar(data[0]), on(s, dev))
			for i := range data {
				data[i] = data[0]
			}
		}
	case how == 0:
		a, err = gpuarr.Zeros[int32](sh, on(s, dev))
		clear(data)
	case how == 1:
		a, err = gpuarr.FromSlice(data, sh, on(s, dev))
	default:
		a, err = gpuarr.Full(sh, data[0], on(s, dev))
		for i := range data {
			data[i] = data[0]
		}
	}
	if err != nil {
		w.crash("alloc: %v", err)
		return
	}
	g := &group{dev: dev, unified: uni, data: data}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	g.handles = []*handle{{g: g, a: a, shape: sh, idx: idx, contig: true}}
	w.groups = append(w.groups, g)
}

func unifiedOn(s *device.Stream, dev *device.Device) unified.Option {
	if s == nil {
		return unified.OnDevice(dev)
	}
	return unified.On(s)
}

func (w *worker) view() {
	h := w.live(false, nil)
	if h == nil {
		return
	}
	sh := h.shape
	var v *gpuarr.Array[int32]
	var err error
	nh := &handle{g: h.g}
	switch k := w.rng.IntN(4); {
	case k == 0 && sh[0] > 1: // rows
		i := w.rng.IntN(sh[0])
		j := i + 1 + w.rng.IntN(sh[0]-i)
		w.note("rows %d:%d of %v", i, j, sh)
		v, err = h.a.Slice(i, j)
		row := elems(sh[1:])
		nh.shape = append(gpuarr.Shape{j - i}, sh[1:]...)
		nh.idx = h.idx[i*row : j*row]
		nh.contig = h.contig
	case k == 1 && len(sh) == 2: // transpose
		w.note("transpose %v", sh)
		v, err = h.a.Transpose()
		nh.shape = gpuarr.Shape{sh[1], sh[0]}
		for c := range sh[1] {
			for r := range sh[0] {
				nh.idx = append(nh.idx, h.idx[r*sh[1]+c])
			}
		}
	case k == 2 && h.contig: // reshape
		w.note("flatten %v", sh)
		v, err = h.a.Reshape(gpuarr.Shape{-1})
		nh.shape = gpuarr.Shape{elems(sh)}
		nh.idx = h.idx
		nh.contig = true
	case sh[0] > 1: // every other row, backwards
		w.note("step %v", sh)
		v, err = h.a.Step(0, sh[0]-1, -1, -2)
		row := elems(sh[1:])
		nh.shape = append(gpuarr.Shape{(sh[0] + 1) / 2}, sh[1:]...)
		for r := sh[0] - 1; r >= 0; r -= 2 {
			nh.idx = append(nh.idx, h.idx[r*row:(r+1)*row]...)
		}
	default:
		return
	}
	if err != nil {
		w.crash("view of %v: %v", sh, err)
		return
	}
	nh.a = v
	h.g.handles = append(h.g.handles, nh)
}

func (w *worker) cpuWrite() {
	h := w.live(false, func(h *handle) bool { return h.g.unified })
	if h == nil {
		return
	}
	v, err := unified.Host(h.a)
	if err != nil {
		w.crash("Host: %v", err)
		return
	}
	n := len(h.idx)
	switch k := w.rng.IntN(3); {
	case k == 0 && v.Contiguous():
		w.note("cpu Borrow %v", h.shape)
		base := w.rng.Int32N(100)
		err = v.Borrow(func(s []int32) error {
			for i := range s {
				s[i] = base + int32(i)
				h.g.data[h.idx[i]] = base + int32(i)
			}
			return nil
		})
		if err != nil {
			w.crash("Borrow: %v", err)
		}
	case k == 1 && len(h.shape) == 2:
		w.note("cpu SetIndex %v", h.shape)
		for range 4 {
			r, c := w.rng.IntN(h.shape[0]), w.rng.IntN(h.shape[1])
			x := w.rng.Int32N(1000)
			v.SetIndex(x, r, c)
			h.g.data[h.idx[r*h.shape[1]+c]] = x
		}
	default:
		w.note("cpu Set %v", h.shape)
		for range 1 + n/4 {
			i, x := w.rng.IntN(n), w.rng.Int32N(1000)
			v.Set(i, x)
			h.g.data[h.idx[i]] = x
		}
	}
}

func (w *worker) gpuWrite() {
	dst := w.live(true, nil)
	if dst == nil {
		return
	}
	operand := func() *handle {
		if w.rng.IntN(3) == 0 {
			return dst
		}
		return w.live(false, func(h *handle) bool {
			return h.g != dst.g && h.g.dev == dst.g.dev && h.shape.Equal(dst.shape)
		})
	}
	x, y := operand(), operand()
	s := w.stream(dst.g.dev)
	k, c := w.rng.Int32N(5)-2, w.rng.Int32N(100)
	var e gpuarr.Expr[int32]
	var f func(i int) int32
	switch {
	case x != nil && y != nil:
		w.note("gpu x+y*k into %v", dst.shape)
		e = gpuarr.Add[int32](x.a, gpuarr.Mul[int32](y.a, gpuarr.Scalar(k)))
		xv, yv := x.want(), y.want()
		f = func(i int) int32 { return xv[i] + yv[i]*k }
	case x != nil:
		w.note("gpu x*k-c into %v", dst.shape)
		e = gpuarr.Sub[int32](gpuarr.Mul[int32](x.a, gpuarr.Scalar(k)), gpuarr.Scalar(c))
		xv := x.want()
		f = func(i int) int32 { return xv[i]*k - c }
	default:
		w.note("gpu fill %v", dst.shape)
		e = gpuarr.Scalar(c)
		f = func(int) int32 { return c }
	}
	if err := gpuarr.EvalInto(dst.a, e, on(s, dst.g.dev)); err != nil {
		w.crash("EvalInto %v: %v", dst.shape, err)
		return
	}
	for i, j := range dst.idx {
		dst.g.data[j] = f(i)
	}
}

func (w *worker) read() {
	h := w.live(false, nil)
	if h == nil {
		return
	}
	want := h.want()
	if !h.g.unified || w.rng.IntN(4) == 0 {
		w.note("ToSlice %v", h.shape)
		got, err := h.a.ToSlice()
		if err != nil {
			w.crash("ToSlice: %v", err)
			return
		}
		w.check("ToSlice", got, want)
		return
	}
	v, err := unified.Host(h.a)
	if err != nil {
		w.crash("Host: %v", err)
		return
	}
	var got []int32
	switch k := w.rng.IntN(5); {
	case k == 0:
		w.note("read At %v", h.shape)
		for i := range v.Len() {
			got = append(got, v.At(i))
		}
	case k == 1:
		w.note("read Values %v", h.shape)
		for x := range v.Values() {
			got = append(got, x)
		}
	case k == 2:
		w.note("read All %v", h.shape)
		for i, x := range v.All() {
			if i != len(got) {
				w.check("All's positions", []int32{int32(i)}, []int32{int32(len(got))})
			}
			got = append(got, x)
		}
	case k == 3 && v.Contiguous():
		w.note("read Borrow %v", h.shape)
		if err := v.Borrow(func(s []int32) error { got = append(got, s...); return nil }); err != nil {
			w.crash("Borrow: %v", err)
			return
		}
	case len(h.shape) == 2:
		w.note("read AtIndex %v", h.shape)
		for r := range h.shape[0] {
			for c := range h.shape[1] {
				got = append(got, v.AtIndex(r, c))
			}
		}
	default:
		w.note("read unified.Values %v", h.shape)
		vals, err := unified.Values(h.a)
		if err != nil {
			w.crash("Values: %v", err)
			return
		}
		for x := range vals {
			got = append(got, x)
		}
	}
	w.check("a View", got, want)
}

func (w *worker) copy() {
	dst := w.live(true, nil)
	if dst == nil {
		return
	}
	src := w.live(false, func(h *handle) bool { return h.g != dst.g && h.shape.Equal(dst.shape) })
	if src == nil {
		return
	}
	w.note("copy %v from %s to %s", dst.shape, src.g.dev, dst.g.dev)
	if err := gpuarr.Copy(dst.a, src.a, on(w.stream(dst.g.dev), dst.g.dev)); err != nil {
		w.crash("Copy: %v", err)
		return
	}
	for i, x := range src.want() {
		dst.g.data[dst.idx[i]] = x
	}
}

// prefetch moves a unified array's memory to its device or the CPU, in
// the order of a stream: a use like any other.
func (w *worker) prefetch() {
	h := w.live(false, func(h *handle) bool { return h.g.unified })
	if h == nil {
		return
	}
	to := unified.CPU
	if w.rng.IntN(2) == 0 {
		to = h.g.dev
	}
	w.note("prefetch %v to %v", h.shape, to)
	s := w.stream(h.g.dev)
	if s == nil {
		s = h.g.dev.DefaultStream()
	}
	if err := unified.Prefetch(h.a, to, s); err != nil {
		w.crash("Prefetch: %v", err)
	}
}

// remove takes h out of its group, and the group out of the worker's
// when it has no handle left.
func (w *worker) remove(h *handle) {
	g := h.g
	g.handles = slices.DeleteFunc(g.handles, func(o *handle) bool { return o == h })
	if len(g.handles) == 0 {
		w.groups = slices.DeleteFunc(w.groups, func(o *group) bool { return o == g })
	}
}

func (w *worker) release() {
	h := w.live(false, nil)
	if h == nil {
		return
	}
	w.note("release %v", h.shape)
	if err := h.a.Release(); err != nil {
		w.crash("Release: %v", err)
	}
	w.remove(h)
	w.released = append(w.released, h)
	if len(w.released) > 8 {
		w.released = w.released[1:]
	}
}

// drop forgets a whole group without releasing it; a View of a unified
// one may be kept, which alone keeps its array alive, and read later.
func (w *worker) drop() {
	if len(w.groups) == 0 {
		return
	}
	g := w.groups[w.rng.IntN(len(w.groups))]
	w.note("drop %d handles", len(g.handles))
	if g.unified && len(w.frozen) < 4 {
		h := g.handles[w.rng.IntN(len(g.handles))]
		v, err := unified.Host(h.a)
		if err != nil {
			w.crash("Host: %v", err)
			return
		}
		w.frozen = append(w.frozen, frozen{v: v, want: h.want()})
	}
	w.groups = slices.DeleteFunc(w.groups, func(o *group) bool { return o == g })
	if len(w.frozen) > 0 && w.rng.IntN(2) == 0 {
		runtime.GC()
		f := w.frozen[0]
		w.frozen = w.frozen[1:]
		w.readFrozen(f)
	}
}

func (w *worker) readFrozen(f frozen) {
	w.note("read a dropped array's View")
	var got []int32
	for x := range f.v.Values() {
		got = append(got, x)
	}
	w.check("a dropped array's View", got, f.want)
}

// misuse uses a released handle (every use fails with ErrReleased), or
// releases an array under a View of it (every access panics).
func (w *worker) misuse() {
	if h := w.live(false, func(h *handle) bool { return h.g.unified }); h != nil && w.rng.IntN(2) == 0 {
		v, err := unified.Host(h.a)
		if err != nil {
			w.crash("Host: %v", err)
			return
		}
		w.note("release under a View %v", h.shape)
		if err := h.a.Release(); err != nil {
			w.crash("Release: %v", err)
		}
		w.remove(h)
		for name, f := range map[string]func(){
			"At":  func() { v.At(0) },
			"Set": func() { v.Set(0, -1) },
			"Values": func() {
				for range v.Values() {
				}
			},
		} {
			if err := panicked(f); !errors.Is(err, gpuarr.ErrReleased) {
				w.crash("View.%s after Release: panicked with %v, want ErrReleased", name, err)
			}
		}
		if err := v.Borrow(func([]int32) error { return nil }); !errors.Is(err, gpuarr.ErrReleased) {
			w.crash("View.Borrow after Release: %v, want ErrReleased", err)
		}
		return
	}
	if len(w.released) == 0 {
		return
	}
	h := w.released[w.rng.IntN(len(w.released))]
	w.note("use released %v", h.shape)
	if _, err := h.a.ToSlice(); !errors.Is(err, gpuarr.ErrReleased) {
		w.crash("ToSlice after Release: %v, want ErrReleased", err)
	}
	if h.contig {
		if err := gpuarr.EvalInto(h.a, gpuarr.Scalar[int32](1)); !errors.Is(err, gpuarr.ErrReleased) {
			w.crash("EvalInto after Release: %v, want ErrReleased", err)
		}
	}
	if h.g.unified {
		if _, err := unified.Host(h.a); !errors.Is(err, gpuarr.ErrReleased) {
			w.crash("Host after Release: %v, want ErrReleased", err)
		}
		if err := unified.Borrow(h.a, func([]int32) error { return nil }); !errors.Is(err, gpuarr.ErrReleased) {
			w.crash("Borrow after Release: %v, want ErrReleased", err)
		}
	}
}

// panicked runs f and returns what it panicked with as an error (nil
// when it did not panic).
func panicked(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	f()
	return nil
}

func (w *worker) handOff() {
	if len(w.groups) == 0 || len(w.peers) == 0 {
		return
	}
	g := w.groups[w.rng.IntN(len(w.groups))]
	what := fmt.Sprintf("hand off %v", g.handles[0].shape) // g is the receiver's once sent
	select {
	case w.peers[w.rng.IntN(len(w.peers))] <- g:
		w.note("%s", what)
		w.groups = slices.DeleteFunc(w.groups, func(o *group) bool { return o == g })
	default:
	}
}

// finish checks every group the worker holds, releases some and drops
// the rest, and reads the Views of dropped arrays it kept.
func (w *worker) finish() {
	for _, g := range w.groups {
		for _, h := range g.handles {
			got, err := h.a.ToSlice()
			if err != nil {
				w.crash("ToSlice: %v", err)
				continue
			}
			w.check("the final read", got, h.want())
		}
	}
	for _, g := range w.groups {
		if w.rng.IntN(2) == 0 {
			for _, h := range g.handles {
				if err := h.a.Release(); err != nil {
					w.crash("Release: %v", err)
				}
			}
		}
	}
	w.groups = nil
	for _, f := range w.frozen {
		w.readFrozen(f)
	}
	w.frozen, w.released = nil, nil
}
