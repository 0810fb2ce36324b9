package cowmap

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadStoreDelete(t *testing.T) {
	var m Map[string, int]
	_, ok := m.Load("a")
	assert.False(t, ok)
	m.Store("a", 1)
	m.Store("b", 2)
	v, ok := m.Load("a")
	assert.True(t, ok)
	assert.Equal(t, 1, v)
	assert.Equal(t, 2, m.Len())
	m.Delete("a")
	_, ok = m.Load("a")
	assert.False(t, ok)
	assert.Equal(t, 1, m.Len())
	m.Delete("missing")
	seen := map[string]int{}
	m.Range(func(k string, v int) bool { seen[k] = v; return true })
	assert.Equal(t, map[string]int{"b": 2}, seen)
}

func TestLoadOrCreateCreatesOnceUnderContention(t *testing.T) {
	var m Map[int, *int]
	var creates atomic.Int32
	var wg sync.WaitGroup
	results := make([]*int, 32)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, _, err := m.LoadOrCreate(7, func() (*int, error) {
				creates.Add(1)
				x := 42
				return &x, nil
			})
			require.NoError(t, err)
			results[i] = v
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), creates.Load())
	for _, r := range results {
		assert.Same(t, results[0], r)
	}
}

func TestLoadOrCreateFailureStoresNothing(t *testing.T) {
	var m Map[string, int]
	boom := errors.New("boom")
	_, created, err := m.LoadOrCreate("k", func() (int, error) { return 0, boom })
	assert.ErrorIs(t, err, boom)
	assert.False(t, created)
	_, ok := m.Load("k")
	assert.False(t, ok)
	v, created, err := m.LoadOrCreate("k", func() (int, error) { return 5, nil })
	require.NoError(t, err)
	assert.True(t, created)
	assert.Equal(t, 5, v)
}

// A snapshot is the map as it was: later stores make a new one.
func TestSnapshot(t *testing.T) {
	var m Map[string, int]
	assert.Nil(t, m.Snapshot())
	m.Store("a", 1)
	s := m.Snapshot()
	m.Store("b", 2)
	assert.Equal(t, map[string]int{"a": 1}, s)
	key := []byte("a key longer than the compiler's 32-byte stack buffer for conversions")
	m.Store(string(key), 3)
	assert.Equal(t, 3, m.Snapshot()[string(key)])
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = m.Snapshot()[string(key)] }), "a []byte key costs no copy")
}

// PerKey makes each key's value once and finds it again, whichever key
// was asked last.
func TestPerKey(t *testing.T) {
	var p PerKey[int, *int]
	made := 0
	mk := func(k int) *int { made++; v := k * 10; return &v }
	a := p.Get(1, mk)
	b := p.Get(2, mk)
	assert.Equal(t, 10, *a)
	assert.Equal(t, 20, *b)
	assert.Same(t, a, p.Get(1, mk), "the first key again, after another")
	assert.Same(t, a, p.Get(1, mk), "the same key twice")
	assert.Same(t, b, p.Get(2, mk))
	assert.Equal(t, 2, made, "one value per key")
}
