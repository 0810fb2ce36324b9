package lifetime

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type stacked struct {
	next *stacked
}

// The registrar's list gives each handle its depth, so adds from many
// goroutines see every depth from 1 to n exactly once, and a drain starts
// the count again.
func TestRegistrarDepths(t *testing.T) {
	var handled []*Handle
	r := &cleanupRegistrar{batchStack: newBatchStack(pendingLink, func(h *Handle) { handled = append(handled, h) })}
	r.start.Do(func() {}) // no goroutine: the test drains

	const adders, each = 8, 200
	seen := make([]int, adders*each+1)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range adders {
		wg.Go(func() {
			for range each {
				h := new(Handle)
				r.add(h)
				mu.Lock()
				seen[h.pendingDepth]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	assert.Zero(t, seen[0])
	for d := 1; d < len(seen); d++ {
		require.Equal(t, 1, seen[d], "depth %d", d)
	}
	r.drain()
	assert.Len(t, handled, adders*each)
	h := new(Handle)
	r.add(h)
	assert.Nil(t, h.link)
	assert.Equal(t, uint16(1), h.pendingDepth, "the count starts again after a drain")
}

// A drain handles what was on the stack when it began, and no more: an
// entry pushed meanwhile (here by the handler itself, as a pushing
// goroutine would) waits for the next drain instead of being chased.
func TestBatchStackDrainTakesTheStackOnce(t *testing.T) {
	var handled []*stacked
	var s *batchStack[stacked]
	late := new(stacked)
	s = newBatchStack(func(x *stacked) **stacked { return &x.next }, func(x *stacked) {
		handled = append(handled, x)
		if len(handled) == 1 {
			s.push(late)
		}
	})
	s.start.Do(func() {}) // no goroutine: the test drains
	first, second := new(stacked), new(stacked)
	s.push(first)
	s.push(second)
	s.drain()
	assert.Equal(t, []*stacked{second, first}, handled, "the entries pushed before the drain, newest first")
	assert.Same(t, late, s.head.Load(), "the entry pushed during the drain waits")
	s.drain()
	assert.Equal(t, []*stacked{second, first, late}, handled)
	assert.Nil(t, s.head.Load())
}
