package gcpressure

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeWorld is a device whose live bytes a fake GC frees, on a fake clock.
type fakeWorld struct {
	mu       sync.Mutex
	live     uint64
	limit    uint64
	garbage  uint64 // freed by the next collection
	clock    time.Time
	gcTime   time.Duration
	gcCalls  int
	inFlight atomic.Int32
}

func (w *fakeWorld) read() reading {
	w.mu.Lock()
	defer w.mu.Unlock()
	return reading{Live: w.live, Limit: w.limit}
}

// calls is how many collections ran (gcCalls, read under the lock for
// collections on other goroutines).
func (w *fakeWorld) calls() int { w.mu.Lock(); defer w.mu.Unlock(); return w.gcCalls }

func (w *fakeWorld) collector(cfg policy) *collector {
	c := newCollector(cfg)
	c.now = func() time.Time { w.mu.Lock(); defer w.mu.Unlock(); return w.clock }
	c.gc = func(time.Duration) time.Duration {
		if w.inFlight.Add(1) > 1 {
			panic("two collections at once")
		}
		defer w.inFlight.Add(-1)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.gcCalls++
		w.live -= w.garbage
		w.garbage = 0
		w.clock = w.clock.Add(w.gcTime)
		return w.gcTime
	}
	return c
}

// gatedBackground is a background-mode collector over w whose collections
// start and then wait for gate to close before they collect.
func (w *fakeWorld) gatedBackground() (c *collector, gate chan struct{}) {
	cfg := testPolicy()
	cfg.Background = true
	c = w.collector(cfg)
	gate = make(chan struct{})
	inner := c.gc
	c.gc = func(d time.Duration) time.Duration { <-gate; return inner(d) }
	return c, gate
}

func (w *fakeWorld) advance(d time.Duration) { w.mu.Lock(); w.clock = w.clock.Add(d); w.mu.Unlock() }

func testPolicy() policy {
	return policy{Enabled: true, Threshold: 0.75, BlockingThreshold: 0.5, BackgroundThreshold: 0.85, Budget: 0.05}
}

func TestNoCollectionBelowThreshold(t *testing.T) {
	cases := []struct {
		live     uint64
		blocking bool
		want     bool
	}{
		{74, false, false}, {75, false, true}, {60, false, false},
		{49, true, false}, {50, true, true}, {60, true, true},
	}
	for _, c := range cases {
		w := &fakeWorld{live: c.live, limit: 100, clock: time.Unix(0, 0), gcTime: time.Millisecond}
		got := w.collector(testPolicy()).maybeCollect(w.read, c.blocking)
		assert.Equal(t, c.want, got, "live=%d blocking=%v", c.live, c.blocking)
		assert.Equal(t, map[bool]int{true: 1, false: 0}[c.want], w.gcCalls)
	}
}

// In background mode one threshold, BackgroundThreshold, applies on
// allocation and before a blocking wait alike: a background collection
// does not overlap the wait.
func TestBackgroundThreshold(t *testing.T) {
	cfg := testPolicy()
	cfg.Background = true
	for _, c := range []struct {
		live     uint64
		blocking bool
		want     bool
	}{
		{60, true, false}, {84, true, false}, {85, true, true}, {85, false, true}, {84, false, false}, {75, false, false},
	} {
		w := &fakeWorld{live: c.live, limit: 100, clock: time.Unix(0, 0), gcTime: time.Millisecond}
		col := w.collector(cfg)
		assert.Equal(t, c.want, col.maybeCollect(w.read, c.blocking), "live=%d blocking=%v", c.live, c.blocking)
		col.waitIdle()
		assert.Equal(t, map[bool]int{true: 1, false: 0}[c.want], w.calls(), "live=%d blocking=%v", c.live, c.blocking)
	}
	assert.Equal(t, 0.85, newCollector(cfg).threshold(true))
	assert.Equal(t, 0.85, newCollector(cfg).threshold(false))
	cfg.Background = false
	assert.Equal(t, 0.5, newCollector(cfg).threshold(true))
	assert.Equal(t, 0.75, newCollector(cfg).threshold(false))
}

func TestDisabledNeverCollects(t *testing.T) {
	w := &fakeWorld{live: 99, limit: 100, clock: time.Unix(0, 0)}
	cfg := testPolicy()
	cfg.Enabled = false
	c := w.collector(cfg)
	for range 10 {
		assert.False(t, c.maybeCollect(w.read, true))
	}
	assert.Zero(t, w.gcCalls)
	assert.Zero(t, c.snapshot().Collections)

	// Switched on at run time (SetEager), it collects; off again, it stops.
	assert.False(t, c.setEnabled(true))
	assert.True(t, c.policy().Enabled)
	assert.True(t, c.maybeCollect(w.read, true))
	assert.True(t, c.setEnabled(false))
	w.advance(time.Hour)
	assert.False(t, c.maybeCollect(w.read, true))
	assert.Equal(t, 1, w.gcCalls)
}

// With 1 ms collections and a 5% budget, collections may come at most
// every 20 ms; the multipliers widen that.
func TestTimeBudgetSpacesCollections(t *testing.T) {
	cases := []struct {
		name     string
		live     uint64
		garbage  uint64
		blocking bool
		minGapMs int // smallest gap at which a second collection runs
	}{
		{"base 5%", 80, 0, false, 20},
		{"blocking doubles", 80, 0, true, 10},
		{"above 0.90 doubles", 92, 0, false, 10},
		{"above 0.95 doubles twice", 96, 0, false, 5},
		{"big last free doubles", 85, 15, false, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &fakeWorld{live: c.live, limit: 100, garbage: c.garbage, clock: time.Unix(0, 0), gcTime: time.Millisecond}
			col := w.collector(testPolicy())
			require.True(t, col.maybeCollect(w.read, c.blocking))
			w.mu.Lock()
			w.live = c.live
			w.mu.Unlock()
			w.advance(time.Duration(c.minGapMs-1) * time.Millisecond)
			assert.False(t, col.maybeCollect(w.read, c.blocking), "too soon")
			w.advance(1*time.Millisecond + 100*time.Microsecond)
			assert.True(t, col.maybeCollect(w.read, c.blocking), "budget allows it now")
			assert.Equal(t, uint64(1), col.snapshot().Skipped)
		})
	}
}

func TestCountersAndLog(t *testing.T) {
	var log bytes.Buffer
	w := &fakeWorld{live: 90, limit: 100, garbage: 40, clock: time.Unix(0, 0), gcTime: 3 * time.Millisecond}
	cfg := testPolicy()
	cfg.Log = &log
	c := w.collector(cfg)
	require.True(t, c.maybeCollect(w.read, false))
	got := c.snapshot()
	assert.Equal(t, uint64(1), got.Collections)
	assert.Equal(t, uint64(40), got.BytesFreed)
	assert.Equal(t, 3*time.Millisecond, got.Time)
	assert.Equal(t, 3*time.Millisecond, got.MaxPause)
	assert.Contains(t, log.String(), "gpuarr gc: eager collection on allocation at pressure 0.90 freed 40 B in 3ms")
}

func TestConcurrentCallersShareOneCollection(t *testing.T) {
	w := &fakeWorld{live: 99, limit: 100, clock: time.Unix(0, 0), gcTime: time.Millisecond}
	c := w.collector(testPolicy())
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range 100 {
				c.maybeCollect(w.read, false)
				w.advance(time.Millisecond)
			}
		})
	}
	wg.Wait()
	assert.Positive(t, c.snapshot().Collections)
}

func TestPolicyFromEnvironment(t *testing.T) {
	t.Setenv(envGCEarly, "false")
	t.Setenv(envDebug, " gc ")
	c, err := policyFromEnv()
	require.NoError(t, err)
	assert.False(t, c.Enabled)
	assert.NotNil(t, c.Log)
	t.Setenv(envGCEarly, "sometimes")
	_, err = policyFromEnv()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `GPUARR_GC_EARLY="sometimes"`)
}

func TestThresholdsFromEnvironment(t *testing.T) {
	c, err := policyFromEnv()
	require.NoError(t, err)
	assert.Equal(t, [3]float64{0.75, 0.5, 0.90}, [3]float64{c.Threshold, c.BlockingThreshold, c.BackgroundThreshold}, "the defaults")
	t.Setenv(envGCThreshold, "0.8")
	t.Setenv(envGCBlockingThreshold, "0.6")
	c, err = policyFromEnv()
	require.NoError(t, err)
	assert.Equal(t, 0.8, c.Threshold)
	assert.Equal(t, 0.8, c.BackgroundThreshold)
	assert.Equal(t, 0.6, c.BlockingThreshold)
	for _, bad := range []string{"0", "1.5", "-0.2", "high", "NaN"} {
		t.Setenv(envGCBlockingThreshold, bad)
		c, err = policyFromEnv()
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), envGCBlockingThreshold+`="`+bad+`"`)
		assert.Equal(t, 0.8, c.Threshold, "the valid variable still applies")
	}
}

// In background mode an eager collection on allocation runs on its own
// goroutine: maybeCollect returns before it ends, the counters put its
// time under BackgroundTime (nobody waited), and a forced collection
// (the ladder's) waits for it and then runs one of its own.
func TestBackgroundCollection(t *testing.T) {
	w := &fakeWorld{live: 90, limit: 100, garbage: 40, clock: time.Unix(0, 0), gcTime: 2 * time.Millisecond}
	c, release := w.gatedBackground()

	require.True(t, c.maybeCollect(w.read, false), "started")
	assert.Equal(t, uint64(90), w.read().Live, "the caller did not wait for the collection")
	assert.False(t, c.maybeCollect(w.read, false), "one collection at a time")
	done := make(chan struct{})
	go func() {
		defer close(done)
		ran, _, _ := c.collect(w.read, 0)
		assert.True(t, ran, "a forced collection runs its own after the background one")
	}()
	close(release) // from here on c.gc collects at once
	<-done
	got := c.snapshot()
	assert.Equal(t, uint64(1), got.Collections)
	assert.Equal(t, uint64(1), got.Background)
	assert.Equal(t, 2*time.Millisecond, got.BackgroundTime)
	assert.Zero(t, got.Time, "no caller waited")
	assert.Equal(t, 2, w.gcCalls)

	// Before a blocking wait too: the caller goes on.
	w.mu.Lock()
	w.live, w.garbage = 88, 30 // above BackgroundThreshold, which background mode uses before waits too
	w.clock = w.clock.Add(time.Hour)
	w.mu.Unlock()
	gate, open := make(chan struct{}), c.gc
	c.gc = func(d time.Duration) time.Duration { <-gate; return open(d) }
	require.True(t, c.maybeCollect(w.read, true))
	assert.Equal(t, uint64(88), w.read().Live, "not waited for")
	close(gate)
	_, _, _ = c.collect(w.read, 0) // waits for it
	assert.Equal(t, uint64(2), c.snapshot().Background)
	assert.Zero(t, c.snapshot().Time)
}
