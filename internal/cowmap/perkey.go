package cowmap

import "sync/atomic"

// PerKey is a Map of values made once per key (a layer's state per
// device), with the last value found kept aside: while a program uses one
// key, Get costs one atomic load and a comparison. The zero value is empty
// and ready to use.
type PerKey[K comparable, V any] struct {
	m    Map[K, *keyed[K, V]]
	last atomic.Pointer[keyed[K, V]]
}

type keyed[K comparable, V any] struct {
	k K
	v V
}

// Get returns k's value, made by create(k) on first use.
func (p *PerKey[K, V]) Get(k K, create func(K) V) V {
	if e := p.last.Load(); e != nil && e.k == k {
		return e.v
	}
	e, _, _ := p.m.LoadOrCreate(k, func() (*keyed[K, V], error) { return &keyed[K, V]{k, create(k)}, nil })
	p.last.Store(e)
	return e.v
}
