package gcpressure

import (
	"errors"
	"sync"
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
		want  SystemMemory
	}{
		{"no cgroup", map[string]string{"proc/meminfo": meminfo},
			SystemMemory{Total: kb(16384000), Available: kb(8192000)}},
		{"old kernel without MemAvailable", map[string]string{"proc/meminfo": "MemTotal: 100 kB\nMemFree: 10 kB\nBuffers: 1 kB\nCached: 4 kB\n"},
			SystemMemory{Total: kb(100), Available: kb(15)}},
		{"v2 unlimited", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/a/b\n",
			"sys/fs/cgroup/a/b/memory.max": "max\n", "sys/fs/cgroup/a/b/memory.current": "123\n"},
			SystemMemory{Total: kb(16384000), Available: kb(8192000)}},
		{"v2 limit on an ancestor", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/a/b\n",
			"sys/fs/cgroup/a/b/memory.max": "max\n", "sys/fs/cgroup/a/b/memory.current": "123\n",
			"sys/fs/cgroup/a/memory.max": "4294967296\n", "sys/fs/cgroup/a/memory.current": "1073741824\n"},
			SystemMemory{Total: 4 * gib, Available: 3 * gib, Cgroup: true}},
		{"v2 in a container (root of the mount)", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n",
			"sys/fs/cgroup/memory.max": "2147483648\n", "sys/fs/cgroup/memory.current": "2147483648\n"},
			SystemMemory{Total: 2 * gib, Available: 0, Cgroup: true}},
		{"v1 memory controller", map[string]string{"proc/meminfo": meminfo,
			"proc/self/cgroup": "5:cpu,cpuacct:/x\n4:memory:/job\n0::/\n",
			"sys/fs/cgroup/memory/job/memory.limit_in_bytes": "1073741824\n",
			"sys/fs/cgroup/memory/job/memory.usage_in_bytes": "536870912\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":     "9223372036854771712\n"},
			SystemMemory{Total: gib, Available: gib / 2, Cgroup: true}},
		{"cgroup looser than the machine", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n",
			"sys/fs/cgroup/memory.max": "68719476736\n", "sys/fs/cgroup/memory.current": "1\n"},
			SystemMemory{Total: kb(16384000), Available: kb(8192000)}},
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

// This machine's figures are plausible.
func TestReadSystemMemoryHere(t *testing.T) {
	sm, err := ReadSystemMemory()
	if err != nil {
		t.Skipf("no /proc/meminfo here: %v", err)
	}
	t.Logf("system memory: %v", sm)
	assert.Positive(t, sm.Total)
	assert.LessOrEqual(t, sm.Available, sm.Total)
}

func TestHostMemoryAccounting(t *testing.T) {
	w := &fakeWorld{clock: time.Unix(0, 0), gcTime: time.Millisecond}
	c := w.collector(testConfig())
	avail := uint64(100)
	var mu sync.Mutex
	sys := func() (SystemMemory, error) {
		mu.Lock()
		defer mu.Unlock()
		return SystemMemory{Total: 1000, Available: avail}, nil
	}
	h := newHostMemory(c, sys)
	h.Add(300)
	h.Add(100)
	h.Sub(50)
	assert.Equal(t, uint64(350), h.Used())
	assert.Equal(t, Reading{Live: 350, Limit: 450}, h.Reading())
	assert.InDelta(t, 0.78, h.Reading().Pressure(), 0.01)

	// Pressure 0.78 is over the threshold: BeforeAlloc collects.
	assert.True(t, h.BeforeAlloc(10))
	assert.Equal(t, 1, w.gcCalls)

	// Plenty available: no collection.
	mu.Lock()
	avail = 1 << 30
	mu.Unlock()
	w.advance(time.Hour)
	assert.False(t, h.BeforeAlloc(10))
	assert.Equal(t, 1, w.gcCalls)

	// An unreadable system means no limit, not a collection.
	h2 := newHostMemory(c, func() (SystemMemory, error) { return SystemMemory{}, errors.New("no /proc") })
	h2.Add(1 << 40)
	assert.Zero(t, h2.Reading().Pressure())
	assert.False(t, h2.BeforeAlloc(1))
}

func TestHostMemoryConcurrent(t *testing.T) {
	h := newHostMemory(NewCollector(testConfig()), func() (SystemMemory, error) { return SystemMemory{Total: 1 << 40, Available: 1 << 40}, nil })
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				h.BeforeAlloc(4096)
				h.Add(4096)
				h.Sub(4096)
			}
		})
	}
	wg.Wait()
	assert.Zero(t, h.Used())
}
