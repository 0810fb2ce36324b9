package memory

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/internal/cowmap"
)

// Call stacks of allocations, shared by the profile (profile.go) and the
// tracer (trace.go): a stack is captured as program counters, interned
// once as a small id, and turned into function names only when a profile
// or a trace is written.

// maxStackDepth bounds the frames kept of each stack (Go's heap profile
// keeps 32 as well).
const maxStackDepth = 32

// stackRec is one interned call stack. Records are never freed: a program
// has a bounded number of allocation sites.
type stackRec struct {
	id uint32
	// key is the stack as captureStack found it (on amd64 the return
	// addresses of the physical frames), what lookups compare; pcs is the
	// same stack as runtime.Callers gives it (one address per logical
	// frame), what symbolize reads. They are one slice where the capture
	// is runtime.Callers.
	key, pcs []uintptr
	next     atomic.Pointer[stackRec] // the next record with the same hash
	buckets  atomic.Pointer[bucket]   // the profile's buckets of this stack (bucketOf)
}

// stackTable interns stacks. Lookups take no lock and allocate nothing (a
// copy-on-write map of hashes to chains of records); insertions take mu.
type stackTable struct {
	byHash cowmap.Map[uint64, *stackRec]
	mu     sync.Mutex
	all    []*stackRec // by id-1
	n      atomic.Uint32
}

var stacks stackTable

// hashPCs hashes a stack: FNV-1a over whole words, which walkFrames
// computes as it walks the stack.
func hashPCs(pcs []uintptr) uint64 {
	h := uint64(hashStart)
	for _, pc := range pcs {
		h = (h ^ uint64(pc)) * hashPrime
	}
	return h
}

const (
	hashStart = 14695981039346656037
	hashPrime = 1099511628211
)

// find returns the record of the stack key (hash h), or nil.
func (t *stackTable) find(h uint64, key []uintptr) *stackRec {
	r, ok := t.byHash.Load(h)
	if !ok {
		return nil
	}
	for ; r != nil; r = r.next.Load() {
		if slices.Equal(r.key, key) {
			return r
		}
	}
	return nil
}

// intern returns the record of a stack in runtime.Callers' form.
func (t *stackTable) intern(pcs []uintptr) *stackRec {
	h := hashPCs(pcs)
	if r := t.find(h, pcs); r != nil {
		return r
	}
	return t.insert(h, pcs, pcs)
}

// insert returns the record of the stack key (hash h), adding one with
// pcs when there is none.
func (t *stackTable) insert(h uint64, key, pcs []uintptr) *stackRec {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r := t.find(h, key); r != nil {
		return r
	}
	r := &stackRec{id: uint32(len(t.all) + 1), key: slices.Clone(key)}
	r.pcs = r.key
	if !slices.Equal(key, pcs) {
		r.pcs = slices.Clone(pcs)
	}
	t.all = append(t.all, r)
	t.n.Store(uint32(len(t.all)))
	if last, ok := t.byHash.Load(h); ok {
		for last.next.Load() != nil {
			last = last.next.Load()
		}
		last.next.Store(r)
	} else {
		t.byHash.Store(h, r)
	}
	return r
}

// byID returns the record with id, or nil.
func (t *stackTable) byID(id uint32) *stackRec {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id == 0 || int(id) > len(t.all) {
		return nil
	}
	return t.all[id-1]
}

// Frame is one function call of a symbolized stack.
type Frame struct {
	Func string `json:"func"`
	File string `json:"file"`
	Line int    `json:"line"`
}

// String is "pkg.Func (file.go:12)", the file's base name only.
func (f Frame) String() string {
	file := f.File
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		file = file[i+1:]
	}
	return f.Func + " (" + file + ":" + itoa(f.Line) + ")"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// libraryPackages are gpuarr's own packages, relative to the module: the
// frames of the allocation path that a profile leaves out so that its top
// entries are the user's functions.
var libraryPackages = []string{"memory", "gpuarr", "unified", "gcpressure", "device", "internal", "collective", "linalg", "p2p"}

const modulePath = "github.com/gpuarr/gpuarr/"

// isLibraryFrame reports whether f is a frame of gpuarr's allocation path:
// a function of one of libraryPackages (not a test in it).
func isLibraryFrame(f Frame) bool {
	if strings.HasSuffix(f.File, "_test.go") {
		return false
	}
	rel, ok := strings.CutPrefix(f.Func, modulePath)
	if !ok {
		return false
	}
	// The package path ends at the first '.' after its last '/'.
	slash := strings.LastIndexByte(rel, '/')
	if dot := strings.IndexByte(rel[slash+1:], '.'); dot >= 0 {
		rel = rel[:slash+1+dot]
	}
	top, _, _ := strings.Cut(rel, "/")
	return slices.Contains(libraryPackages, top)
}

// frameGroup is the logical frames of one program counter (several when
// calls were inlined), innermost first.
type frameGroup struct {
	pc     uintptr
	frames []Frame
}

// symbolize turns a stack into logical frames grouped by program counter,
// innermost first, leaving out the leading frames of gpuarr's allocation
// path (all of them are kept when nothing else remains).
func symbolize(pcs []uintptr) []frameGroup {
	var groups []frameGroup
	for _, pc := range pcs {
		g := frameGroup{pc: pc}
		fr := runtime.CallersFrames([]uintptr{pc})
		for {
			f, more := fr.Next()
			if f.Function != "" {
				g.frames = append(g.frames, Frame{Func: f.Function, File: f.File, Line: f.Line})
			}
			if !more {
				break
			}
		}
		if len(g.frames) > 0 {
			groups = append(groups, g)
		}
	}
	// Drop leading library frames, group by group and within the first
	// group that has a user frame.
	for i, g := range groups {
		for j, f := range g.frames {
			if !isLibraryFrame(f) {
				rest := append([]frameGroup{{pc: g.pc, frames: g.frames[j:]}}, groups[i+1:]...)
				return rest
			}
		}
	}
	return groups
}

// frames is symbolize flattened.
func frames(pcs []uintptr) []Frame {
	var out []Frame
	for _, g := range symbolize(pcs) {
		out = append(out, g.frames...)
	}
	return out
}
