package memviz

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/headless"
	"github.com/gpuarr/gpuarr/memory"
)

// build pairs each free with its allocation, ignores frees of blocks
// allocated before the trace, follows the reserved bytes and turns segment
// frees and marks into marks.
func TestBuild(t *testing.T) {
	ev := []memory.TraceEvent{
		{T: 1, Op: memory.OpAlloc, Level: memory.TraceSegment, Ptr: 100, Size: 4096},
		{T: 2, Op: memory.OpAlloc, Level: memory.TraceBlock, Ptr: 100, Size: 512, Stream: 9, Stack: 7},
		{T: 3, Op: memory.OpFree, Level: memory.TraceBlock, Ptr: 50, Size: 512}, // allocated before the trace
		{T: 4, Op: memory.OpAlloc, Level: memory.TraceBlock, Ptr: 612, Size: 1024, Stream: 9},
		{T: 5, Op: memory.OpFree, Level: memory.TraceBlock, Ptr: 100, Size: 512, Stream: 9},
		{T: 6, Op: memory.OpGC, Device: -1, Note: "cycle 1"},
		{T: 7, Op: memory.OpOOM, Level: memory.TraceSegment, Size: 1 << 30},
		{T: 8, Op: memory.OpOOM, Level: memory.TraceBlock, Size: 1 << 30, Stack: 7},
		{T: 9, Op: memory.OpFree, Level: memory.TraceSegment, Ptr: 100, Size: 4096},
	}
	f := &memory.TraceFile{Events: ev, Devices: map[int]string{0: "host:0"},
		Stacks: map[uint32][]memory.Frame{7: {{Func: "main.f", File: "/a/b.go", Line: 3}}}}
	d := build(f, "t")
	assert.Equal(t, []int64{2, 4}, d.Allocs.T0)
	assert.Equal(t, []int64{5, -1}, d.Allocs.T1)
	assert.Equal(t, []int32{1, 2, -1}, d.Order)
	assert.Equal(t, []int32{1, 0}, d.Allocs.Stack)
	assert.Equal(t, []string{"main.f (b.go:3)"}, d.Stacks[1])
	assert.Equal(t, [][2]int64{{1, 4096}, {9, 0}}, d.Reserved[0])
	var ops []string
	for _, m := range d.Marks {
		ops = append(ops, m.Op)
	}
	assert.Equal(t, []string{"gc", "oom", "release"}, ops)
	assert.Equal(t, int64(9), d.End)
	assert.Equal(t, []string{"0x9"}, d.Streams)

	var buf bytes.Buffer
	require.NoError(t, Write(&buf, f, "a </script> title"))
	html := buf.String()
	assert.Equal(t, 2, strings.Count(html, "</script>"), "the data cannot close its script element")
	assert.NotContains(t, html, dataMarker)
	assert.NotRegexp(t, `(?i)(src|href)=["']?https?:`, html, "the page loads nothing from the network")
}

//go:noinline
func allocateForTimeline(t *testing.T, r memory.Resource, s *device.Stream, n int) []*memory.Block {
	var bs []*memory.Block
	for range n {
		b, err := r.Alloc(s, 1<<20)
		require.NoError(t, err)
		bs = append(bs, b)
	}
	return bs
}

// recordTrace runs a small workload under a tracer: allocations from
// allocateForTimeline, frees, an eager collection and a ladder step
// (marked as package gcpressure marks them), an out-of-memory error and a
// trim.
func recordTrace(t *testing.T) *memory.TraceFile {
	dev, err := device.Default()
	require.NoError(t, err)
	tr := memory.NewTracer(100000)
	never := memory.ReclaimFunc(func(*device.Device, uint64, int) bool { return false })
	pool := memory.Caching(tr.Wrap(memory.Limit(memory.Direct(dev), 32<<20), memory.TraceSegment), memory.CachingOptions{Reclaimer: never})
	r := tr.Wrap(pool, memory.TraceBlock)
	s, err := dev.NewStream()
	require.NoError(t, err)
	defer s.Close()
	bs := allocateForTimeline(t, r, s, 12)
	for _, b := range bs[:6] {
		require.NoError(t, r.Free(b))
	}
	memory.TraceMark(nil, memory.OpEagerGC, 6<<20, time.Millisecond, "on allocation at pressure 0.80")
	memory.TraceMark(dev, memory.OpReclaim, 0, time.Millisecond, "level 1 (collect)")
	_, err = r.Alloc(s, 64<<20)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	bs = append(bs[6:], allocateForTimeline(t, r, s, 4)...)
	for _, b := range bs {
		require.NoError(t, r.Free(b))
	}
	require.NoError(t, r.Trim(0))
	return tr.Snapshot()
}

func count(f *memory.TraceFile, op, level string) int {
	n := 0
	for _, e := range f.Events {
		if e.Op == op && (level == "*" || e.Level == level) {
			n++
		}
	}
	return n
}

// The page, loaded from a file in headless Chromium, shows the recorded
// events: its counts (from the DOM after the script ran) match the trace,
// the legend names the allocating function, and the screenshot has the
// colours of the top stack's band and of the out-of-memory mark.
func TestPageInBrowser(t *testing.T) {
	browser, err := headless.Find()
	if err != nil {
		if headless.Required() {
			t.Fatalf("%v, and %s=1 requires the browser test", err, headless.EnvRequire)
		}
		t.Skipf("%v (%s=1 makes this a failure)", err, headless.EnvRequire)
	}
	f := recordTrace(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "timeline.html")
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, f, "browser test"))
	require.NoError(t, os.WriteFile(page, buf.Bytes(), 0o644))

	dom, err := headless.DumpDOM(browser, page, 2*time.Minute)
	require.NoError(t, err)
	require.True(t, strings.Contains(dom, `data-rendered="1"`), "the script ran to its end")
	num := func(id string) int {
		m := regexp.MustCompile(`id="` + regexp.QuoteMeta(id) + `">(\d+)<`).FindStringSubmatch(dom)
		require.NotNil(t, m, "element %s in the DOM", id)
		n, _ := strconv.Atoi(m[1])
		return n
	}
	assert.Equal(t, count(f, memory.OpAlloc, memory.TraceBlock), num("n-allocs"))
	assert.Equal(t, 16, num("n-allocs"))
	assert.Equal(t, count(f, memory.OpFree, memory.TraceBlock), num("n-frees"))
	assert.Equal(t, 1, num("n-oom"))
	assert.Equal(t, 1, num("n-eager_gc"))
	assert.Equal(t, 1, num("n-reclaim"))
	assert.Equal(t, 1, num("n-trim"))
	assert.Equal(t, count(f, memory.OpGC, "*"), num("n-gc"))
	assert.Equal(t, count(f, memory.OpFree, memory.TraceSegment), num("n-release"))
	assert.Positive(t, num("n-release"))
	assert.True(t, strings.Contains(dom, `<span class="sw" style="background:#4e79a7"></span>github.com/gpuarr/gpuarr/memory/memviz.allocateForTimeline (memviz_test.go:`),
		"the legend names the allocating function first")

	shot := filepath.Join(dir, "timeline.png")
	require.NoError(t, headless.Screenshot(browser, page, shot, 1300, 800, 2*time.Minute))
	r, err := os.Open(shot)
	require.NoError(t, err)
	defer r.Close()
	img, err := png.Decode(r)
	require.NoError(t, err)
	assert.Greater(t, pixels(img, 0x4e, 0x79, 0xa7), 500, "the top stack's band")
	assert.Greater(t, pixels(img, 0xd6, 0x27, 0x28), 20, "the out-of-memory mark")
	assert.Greater(t, pixels(img, 0x1f, 0x77, 0xb4), 20, "the eager-GC mark")
}

// pixels counts the pixels of img of colour (r, g, b), give or take 2.
func pixels(img image.Image, r, g, b uint8) int {
	n := 0
	near := func(a uint32, b uint8) bool { d := int(a>>8) - int(b); return d >= -2 && d <= 2 }
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr, r) && near(pg, g) && near(pb, b) {
				n++
			}
		}
	}
	return n
}
