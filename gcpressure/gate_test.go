package gcpressure

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A gate closes with a ladder step, stays closed through the retry's grace
// period (and through the next step when the ladder goes on), then opens.
func TestGate(t *testing.T) {
	dev := defaultDevice(t)
	var gs gates
	waited := func(max time.Duration) time.Duration {
		start := time.Now()
		gs.wait(dev, max)
		return time.Since(start)
	}
	assert.Less(t, waited(time.Second), 10*time.Millisecond, "open: no wait")

	gs.close(dev)
	assert.GreaterOrEqual(t, waited(20*time.Millisecond), 20*time.Millisecond, "closed during a step: waits until max")

	done := make(chan time.Duration)
	go func() { done <- waited(time.Second) }()
	time.Sleep(5 * time.Millisecond)
	gs.reopen(dev, 30*time.Millisecond)
	gs.close(dev) // the next level begins within the grace period
	time.Sleep(50 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("the gate opened while the ladder went on")
	default:
	}
	gs.reopen(dev, 10*time.Millisecond)
	d := <-done
	assert.GreaterOrEqual(t, d, 60*time.Millisecond)
	assert.Less(t, d, 500*time.Millisecond)
	assert.Zero(t, gs.closed.Load())
	assert.Less(t, waited(time.Second), 10*time.Millisecond, "open again")

	gs.close(dev)
	assert.Less(t, func() time.Duration {
		start := time.Now()
		gs.wait(nil, time.Second)
		return time.Since(start)
	}(), 10*time.Millisecond, "other devices' allocations do not wait")
	gs.reopen(dev, 0)
}
