// Package cowmap is a copy-on-write map for lookups on hot paths: Load
// reads an immutable snapshot through one atomic pointer and takes no lock;
// inserts (rare: one per device, per kernel shape, per stream) copy the
// snapshot under a mutex, so a value is created once however many
// goroutines miss at the same time (Example).
package cowmap

import (
	"sync"
	"sync/atomic"
)

// Map is a copy-on-write map. The zero value is empty and ready to use; a
// Map must not be copied after first use.
type Map[K comparable, V any] struct {
	mu   sync.Mutex
	snap atomic.Pointer[map[K]V]
}

// Load returns the value stored for k, without locking.
func (m *Map[K, V]) Load(k K) (V, bool) {
	if s := m.snap.Load(); s != nil {
		v, ok := (*s)[k]
		return v, ok
	}
	var zero V
	return zero, false
}

// Snapshot returns the current snapshot, which the caller must not modify
// (nil while the map is empty). Index it directly where the key is a
// string converted from a []byte: m.Snapshot()[string(b)] does not
// allocate, while Load(string(b)) copies the bytes.
func (m *Map[K, V]) Snapshot() map[K]V {
	if s := m.snap.Load(); s != nil {
		return *s
	}
	return nil
}

// LoadOrCreate returns k's value, calling create under the map's lock when
// there is none yet. A create that fails stores nothing, and the next call
// tries again.
func (m *Map[K, V]) LoadOrCreate(k K, create func() (V, error)) (v V, created bool, err error) {
	if v, ok := m.Load(k); ok {
		return v, false, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.Load(k); ok {
		return v, false, nil
	}
	v, err = create()
	if err != nil {
		return v, false, err
	}
	m.storeLocked(k, v)
	return v, true, nil
}

// Store sets k's value.
func (m *Map[K, V]) Store(k K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.storeLocked(k, v)
}

// Delete removes k.
func (m *Map[K, V]) Delete(k K) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.snap.Load()
	if old == nil {
		return
	}
	if _, ok := (*old)[k]; !ok {
		return
	}
	next := make(map[K]V, len(*old))
	for ok, ov := range *old {
		if ok != k {
			next[ok] = ov
		}
	}
	m.snap.Store(&next)
}

// Range calls f for each entry of the current snapshot until f returns
// false. Entries stored during the walk may or may not be seen.
func (m *Map[K, V]) Range(f func(K, V) bool) {
	s := m.snap.Load()
	if s == nil {
		return
	}
	for k, v := range *s {
		if !f(k, v) {
			return
		}
	}
}

// Len is the number of entries in the current snapshot.
func (m *Map[K, V]) Len() int {
	if s := m.snap.Load(); s != nil {
		return len(*s)
	}
	return 0
}

func (m *Map[K, V]) storeLocked(k K, v V) {
	old := m.snap.Load()
	n := 1
	if old != nil {
		n += len(*old)
	}
	next := make(map[K]V, n)
	if old != nil {
		for ok, ov := range *old {
			next[ok] = ov
		}
	}
	next[k] = v
	m.snap.Store(&next)
}
