package memory

import "sync/atomic"

// hook is a process-wide value that may be replaced at any time (the
// Reclaimer, the Pressure); loading it costs one atomic load.
type hook[T any] struct{ p atomic.Pointer[box[T]] }

type box[T any] struct{ v T }

// swap installs v and returns the previous value.
func (h *hook[T]) swap(v T) (previous T) {
	if old := h.p.Swap(&box[T]{v}); old != nil {
		previous = old.v
	}
	return previous
}

// load returns the installed value (the zero T when none is).
func (h *hook[T]) load() (v T) {
	if b := h.p.Load(); b != nil {
		v = b.v
	}
	return v
}
