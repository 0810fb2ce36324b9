package gcpressure

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The background threshold comes down when the program makes garbage fast
// enough to outrun a collection started there, never below paceFloor, and
// goes back to BackgroundThreshold when the program slows down. Collections
// in the caller keep their thresholds.
func TestPacerLowersBackgroundThreshold(t *testing.T) {
	w := &fakeWorld{live: 900, limit: 1000, garbage: 500, clock: time.Unix(0, 0), gcTime: 2 * time.Millisecond}
	cfg := testPolicy() // BackgroundThreshold 0.85
	cfg.Background = true
	c := w.collector(cfg)
	_, _, _ = c.collect(w.read, 0) // the first collection: no rate yet
	assert.Equal(t, 0.85, c.threshold(false))

	// 500 bytes of garbage made in the 4 ms after it, collected in 2 ms:
	// 1.5 × 125 B/ms × 2 ms = 375 B of headroom.
	again := func(gap time.Duration) {
		w.mu.Lock()
		w.live += 500
		w.garbage = 500
		w.mu.Unlock()
		w.advance(gap)
		_, _, _ = c.collect(w.read, 0)
	}
	again(4 * time.Millisecond)
	require.InDelta(t, 0.625, c.threshold(false), 1e-9)
	assert.InDelta(t, 0.625, c.threshold(true), 1e-9, "before a blocking wait too")

	w.mu.Lock()
	w.live = 700 // 0.70: below 0.85, above the paced threshold
	w.mu.Unlock()
	w.advance(time.Hour) // out of the time budget's way
	assert.True(t, c.maybeCollect(w.read, false), "the paced threshold starts a collection at 0.70")
	c.waitIdle()

	again(time.Millisecond) // 500 B/ms: more headroom than the limit
	assert.Equal(t, paceFloor, c.threshold(false), "never below the floor")

	again(time.Second) // a slow phase: the configured threshold again
	assert.Equal(t, 0.85, c.threshold(false))

	cfg.Background = false
	fg := w.collector(cfg)
	fg.paced.Store(c.paced.Load())
	assert.Equal(t, 0.75, fg.threshold(false), "collections in the caller are not paced")
	assert.Equal(t, 0.5, fg.threshold(true))
}
