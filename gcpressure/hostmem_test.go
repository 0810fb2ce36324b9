package gcpressure

import (
	"errors"
	"io/fs"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const meminfo = `MemTotal:       16384000 kB
MemFree:         1000000 kB
MemAvailable:    8192000 kB
Buffers:           10000 kB
Cached:           500000 kB
HugePages_Total:       0
`

func TestReadSystemMemory(t *testing.T) {
	const gib = 1 << 30
	kb := func(n uint64) uint64 { return n * 1024 }
	cases := []struct {
		name  string
		files map[string]string
		want  systemMemory
	}{
		{"no cgroup", map[string]string{"proc/meminfo": meminfo},
			systemMemory{Total: kb(16384000), Available: kb(8192000)}},
		{"old kernel without MemAvailable", map[string]string{"proc/meminfo": "MemTotal: 100 kB\nMemFree: 10 kB\nBuffers: 1 kB\nCached: 4 kB\n"},
			systemMemory{Total: kb(100), Available: kb(15)}},
		{"v2 unlimited", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/a/b\n",
			"sys/fs/cgroup/a/b/memory.max": "max\n", "sys/fs/cgroup/a/b/memory.current": "123\n"},
			systemMemory{Total: kb(16384000), Available: kb(8192000)}},
		{"v2 limit on an ancestor", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/a/b\n",
			"sys/fs/cgroup/a/b/memory.max": "max\n", "sys/fs/cgroup/a/b/memory.current": "123\n",
			"sys/fs/cgroup/a/memory.max": "4294967296\n", "sys/fs/cgroup/a/memory.current": "1073741824\n"},
			systemMemory{Total: 4 * gib, Available: 3 * gib, Cgroup: true}},
		{"v2 in a container (root of the mount)", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n",
			"sys/fs/cgroup/memory.max": "2147483648\n", "sys/fs/cgroup/memory.current": "2147483648\n"},
			systemMemory{Total: 2 * gib, Available: 0, Cgroup: true}},
		{"v1 memory controller", map[string]string{"proc/meminfo": meminfo,
			"proc/self/cgroup": "5:cpu,cpuacct:/x\n4:memory:/job\n0::/\n",
			"sys/fs/cgroup/memory/job/memory.limit_in_bytes": "1073741824\n",
			"sys/fs/cgroup/memory/job/memory.usage_in_bytes": "536870912\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":     "9223372036854771712\n"},
			systemMemory{Total: gib, Available: gib / 2, Cgroup: true}},
		{"cgroup looser than the machine", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n",
			"sys/fs/cgroup/memory.max": "68719476736\n", "sys/fs/cgroup/memory.current": "1\n"},
			systemMemory{Total: kb(16384000), Available: kb(8192000)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, data := range c.files {
				fsys[name] = &fstest.MapFile{Data: []byte(data)}
			}
			got, err := readSystemMemory(fsys)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
	_, err := readSystemMemory(fstest.MapFS{"proc/meminfo": {Data: []byte("Nothing: 1 kB\n")}})
	assert.ErrorContains(t, err, "MemTotal")
}

// skipWithoutMeminfo skips the test when err (of currentSystemMemory)
// says this system has no /proc/meminfo, and fails it on any other error:
// a meminfo that is there but unreadable or malformed is a bug to see.
func skipWithoutMeminfo(t *testing.T, err error) {
	t.Helper()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.Skipf("no /proc/meminfo here: %v", err)
	case err != nil:
		t.Fatalf("reading this machine's memory: %v", err)
	}
}

// Only a missing /proc/meminfo is a reason to skip: the errors
// readSystemMemory gives without one, and with a malformed one.
func TestOnlyMissingMeminfoSkips(t *testing.T) {
	_, err := readSystemMemory(fstest.MapFS{})
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = readSystemMemory(fstest.MapFS{"proc/meminfo": {Data: []byte("Nothing: 1 kB\n")}})
	require.Error(t, err)
	assert.NotErrorIs(t, err, fs.ErrNotExist, "a malformed meminfo fails the tests that read it")
}

// This machine's figures are plausible.
func TestReadSystemMemoryHere(t *testing.T) {
	sm, err := currentSystemMemory()
	skipWithoutMeminfo(t, err)
	t.Logf("system memory: %v", sm)
	assert.Positive(t, sm.Total)
	assert.LessOrEqual(t, sm.Available, sm.Total)
}

// The account's pressure drives eager collection like a device's.
func TestHostAccountPressure(t *testing.T) {
	w := &fakeWorld{clock: time.Unix(0, 0), gcTime: time.Millisecond}
	c := w.collector(testPolicy())
	avail := uint64(1 << 30)
	var mu sync.Mutex
	sys := func() (systemMemory, error) {
		mu.Lock()
		defer mu.Unlock()
		return systemMemory{Total: 1 << 31, Available: avail}, nil
	}
	h := newHostAccount(c, sys)
	require.NoError(t, h.charge(300))
	require.NoError(t, h.charge(100))
	h.release(50)
	assert.Equal(t, uint64(350), h.used.Load())
	assert.Zero(t, w.calls(), "plenty available: no collection")

	// The system runs short: pressure 350 / (350 + 100) is over the
	// threshold, and the next announcement collects.
	mu.Lock()
	avail = 100
	mu.Unlock()
	w.advance(time.Hour)
	assert.Equal(t, reading{Live: 350, Limit: 450}, h.g.measure())
	assert.InDelta(t, 0.78, h.g.measure().Pressure(), 0.01)
	assert.True(t, h.beforeAlloc(10))
	assert.Equal(t, 1, w.calls())

	// Plenty available again: no collection.
	mu.Lock()
	avail = 1 << 30
	mu.Unlock()
	w.advance(time.Hour)
	assert.False(t, h.beforeAlloc(10))
	assert.Equal(t, 1, w.calls())

	// An unreadable system means no limit: no collection, no refusal.
	h2 := newHostAccount(c, func() (systemMemory, error) { return systemMemory{}, errors.New("no /proc") })
	require.NoError(t, h2.charge(1<<50))
	assert.Zero(t, h2.measure().Pressure())
	assert.False(t, h2.beforeAlloc(1))
	assert.Equal(t, 1, w.calls())
}

// A charge that would leave the system less than its reserve is refused
// after one collection, and counts nothing; one that the collection makes
// room for passes.
func TestChargeHostRefuses(t *testing.T) {
	w := &fakeWorld{clock: time.Unix(0, 0), gcTime: time.Millisecond}
	c := w.collector(testPolicy())
	var avail atomic.Uint64
	avail.Store(1000)
	h := newHostAccount(c, func() (systemMemory, error) {
		return systemMemory{Total: 1600, Available: avail.Load()}, nil // reserve 100
	})
	require.NoError(t, h.charge(900), "exactly the reserve left")
	avail.Store(100) // the allocation took it
	calls := w.calls()

	err := h.charge(1)
	require.ErrorIs(t, err, ErrHostMemory)
	assert.EqualError(t, err, "gcpressure: 1 B of pinned or managed memory refused: not enough system memory: "+
		"100 B available of 1.6 KiB (system), of which 100 B stays free for the system; 900 B charged already")
	assert.Equal(t, uint64(900), h.used.Load(), "a refused charge counts nothing")
	assert.Greater(t, w.calls(), calls, "a collection before refusing")

	// A collection that frees a forgotten pinned array makes room.
	inner := c.gc
	c.gc = func(d time.Duration) time.Duration {
		if avail.Load() == 100 {
			h.release(400)
			avail.Store(500)
		}
		return inner(d)
	}
	w.advance(time.Hour)
	require.NoError(t, h.charge(400))
	assert.Equal(t, uint64(900), h.used.Load())

	assert.PanicsWithValue(t, "gcpressure: ReleaseHost(901) with only 900 bytes charged", func() { h.release(901) })
}

// The process's account, on this machine's memory.
func TestChargeHostHere(t *testing.T) {
	before := HostCharged()
	require.NoError(t, ChargeHost(1<<20))
	assert.Equal(t, before+1<<20, HostCharged())
	ReleaseHost(1 << 20)
	assert.Equal(t, before, HostCharged())
	_, err := currentSystemMemory()
	skipWithoutMeminfo(t, err)
	err = ChargeHost(1 << 62)
	require.ErrorIs(t, err, ErrHostMemory)
	assert.ErrorContains(t, err, "4.0 EiB of pinned or managed memory refused")
	assert.Equal(t, before, HostCharged())
}

func TestHostAccountConcurrent(t *testing.T) {
	h := newHostAccount(newCollector(testPolicy()), func() (systemMemory, error) {
		return systemMemory{Total: 1 << 40, Available: 1 << 40}, nil
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				if assert.NoError(t, h.charge(4096)) {
					h.release(4096)
				}
			}
		})
	}
	wg.Wait()
	assert.Zero(t, h.used.Load())
}
