package memory

import (
	"regexp"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The capture of stacks against runtime.Callers on several call shapes:
// callers finds the same physical frames (the same program counters where
// nothing was inlined), and captureStack's records hold exactly
// runtime.Callers' stack, from the same frame (the skip).

// stackPair is one stack captured two ways: got by the code under test,
// want by runtime.Callers.
type stackPair struct{ got, want []uintptr }

// leaf captures its caller's stack both ways.
type leaf func() stackPair

// callersLeaf captures with callers.
//
//go:noinline
func callersLeaf() stackPair {
	got := make([]uintptr, 2*maxStackDepth)
	want := make([]uintptr, 2*maxStackDepth)
	n, h := callers(2, got)
	if h != hashPCs(got[:n]) {
		panic("callers: the hash is not hashPCs")
	}
	return stackPair{got[:n], want[:runtime.Callers(2, want)]}
}

// shortCallersLeaf is callersLeaf keeping maxStackDepth frames.
//
//go:noinline
func shortCallersLeaf() stackPair {
	var got, want [maxStackDepth]uintptr
	n, _ := callers(2, got[:])
	return stackPair{slices.Clone(got[:n]), slices.Clone(want[:runtime.Callers(2, want[:])])}
}

// recordLeaf captures with captureStack (got: the record's pcs).
//
//go:noinline
func recordLeaf() stackPair {
	rec := captureStack(1)
	var want [maxStackDepth]uintptr
	return stackPair{rec.pcs, slices.Clone(want[:runtime.Callers(2, want[:])])}
}

//go:noinline
func nestA(f leaf) stackPair { return nestB(f) }

//go:noinline
func nestB(f leaf) stackPair { return nestC(f) }

//go:noinline
func nestC(f leaf) stackPair { return f() }

// Small helpers that the compiler inlines into inlinedOuter.
func inlinedMid(f leaf) stackPair   { return inlinedInner(f) }
func inlinedInner(f leaf) stackPair { return f() }

//go:noinline
func inlinedOuter(f leaf) stackPair { return inlinedMid(f) }

//go:noinline
func recurse(depth int, f leaf) stackPair {
	if depth == 0 {
		return inlinedOuter(f)
	}
	return recurse(depth-1, f)
}

// growStack recurses with a large frame, so that a fresh goroutine's
// stack is copied (and its frame pointers moved) before the capture.
//
//go:noinline
func growStack(depth int, sink *byte, f leaf) stackPair {
	var big [8 << 10]byte
	big[depth%len(big)] = byte(depth)
	if depth == 0 {
		return nestA(f)
	}
	p := growStack(depth-1, &big[0], f)
	*sink += big[depth%len(big)]
	return p
}

// onGoroutine runs shape on a new goroutine, started through a go
// statement with arguments (a wrapper function the compiler generates,
// which runtime.Callers leaves out).
func onGoroutine(shape func(leaf) stackPair) func(leaf) stackPair {
	return func(f leaf) stackPair {
		out := make(chan stackPair)
		go runShape(shape, f, out)
		return <-out
	}
}

//go:noinline
func runShape(shape func(leaf) stackPair, f leaf, out chan<- stackPair) { out <- shape(f) }

type callShape struct {
	name    string
	shape   func(leaf) stackPair
	inlined bool // the stack has inlined calls
}

var callShapes = []callShape{
	{"nested", nestA, false},
	{"inlined", inlinedOuter, true},
	{"deep", func(f leaf) stackPair { return recurse(3*maxStackDepth, f) }, true},
	{"goroutine", onGoroutine(nestA), false},
	{"grown", onGoroutine(func(f leaf) stackPair { var b byte; return growStack(40, &b, f) }), false},
}

// callers finds the physical frames: runtime.Callers' program counters
// less those it adds for inlined calls, plus the wrappers it leaves out.
func TestCallersMatchesRuntimeCallers(t *testing.T) {
	for _, c := range callShapes {
		t.Run(c.name, func(t *testing.T) {
			for _, f := range []leaf{callersLeaf, shortCallersLeaf} {
				p := c.shape(f)
				require.NotEmpty(t, p.want)
				if runtime.GOARCH == "amd64" && len(p.want) < maxStackDepth {
					// The wrapper that starts the goroutine (go statement)
					// is there: callers walked the frame pointers rather
					// than falling back to runtime.Callers.
					assert.True(t, slices.ContainsFunc(p.got, isWrapperPC), "frame pointers walked")
				}
				got := slices.DeleteFunc(slices.Clone(p.got), isWrapperPC)
				if !c.inlined {
					assert.Equal(t, p.want, got)
					continue
				}
				assert.Equal(t, p.want[0], got[0])
				if len(p.want) == len(p.got) {
					// Both stopped at the buffer's end: runtime.Callers
					// spent two entries on the calls inlined into
					// inlinedOuter, and so saw two physical frames less.
					require.Greater(t, len(got), 2)
					got = got[:len(got)-2]
				} else {
					assert.Greater(t, len(p.want), len(got), "runtime.Callers adds the inlined calls")
				}
				assert.True(t, isSubsequence(got, p.want), "callers' frames are among runtime.Callers'")
			}
		})
	}
}

// isWrapperPC reports whether pc returns into a wrapper function that the
// compiler generates for a go or defer statement or a promoted method.
func isWrapperPC(pc uintptr) bool {
	fn := runtime.FuncForPC(pc - 1)
	if fn == nil {
		return false
	}
	file, _ := fn.FileLine(pc - 1)
	return file == "<autogenerated>" || wrapperName.MatchString(fn.Name())
}

var wrapperName = regexp.MustCompile(`\.(gowrap|deferwrap)[0-9]+$`)

func isSubsequence(sub, seq []uintptr) bool {
	i := 0
	for _, pc := range seq {
		if i < len(sub) && sub[i] == pc {
			i++
		}
	}
	return i == len(sub)
}

// A captured record's pcs are runtime.Callers' stack, inlined calls and
// the elided wrappers included, so that symbolize and the pprof writer
// read them as before.
func TestCaptureStackMatchesRuntimeCallers(t *testing.T) {
	for _, c := range callShapes {
		t.Run(c.name, func(t *testing.T) {
			var recs [][]uintptr
			for range 2 { // the second capture finds the first's record
				p := c.shape(recordLeaf)
				require.NotEmpty(t, p.want)
				assert.Equal(t, p.want, p.got)
				recs = append(recs, p.got)
			}
			assert.Same(t, &recs[0][0], &recs[1][0], "one record")
		})
	}
	p := inlinedOuter(recordLeaf)
	fr := frames(p.got)
	require.GreaterOrEqual(t, len(fr), 3)
	assert.Equal(t, "github.com/gpuarr/gpuarr/memory.inlinedInner", fr[0].Func)
	assert.Equal(t, "github.com/gpuarr/gpuarr/memory.inlinedMid", fr[1].Func)
	assert.Equal(t, "github.com/gpuarr/gpuarr/memory.inlinedOuter", fr[2].Func)
}

// captureBoth captures its caller's stack with captureStack and with
// runtime.Callers, skip frames above it left out.
//
//go:noinline
func captureBoth(skip int) stackPair {
	rec := captureStack(skip + 1)
	var pcs [maxStackDepth]uintptr
	return stackPair{rec.pcs, slices.Clone(pcs[:runtime.Callers(skip+2, pcs[:])])}
}

//go:noinline
func captureSkip(skip int) stackPair { return nestSkip(skip) }

//go:noinline
func nestSkip(skip int) stackPair { return captureBoth(skip) }

// captureStack's skip counts frames as runtime.Callers does.
func TestCaptureStackSkip(t *testing.T) {
	for skip := range 3 {
		p := captureSkip(skip)
		assert.Equal(t, p.want, p.got, "skip %d", skip)
	}
	assert.Equal(t, "github.com/gpuarr/gpuarr/memory.captureSkip", frames(captureSkip(1).got)[0].Func)
}
