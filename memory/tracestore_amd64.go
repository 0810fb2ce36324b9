//go:build amd64 && !race

package memory

// commitSlot publishes a slot's record: stores v, the event's sequence
// number plus one, to the slot's sequence word after the record's words
// (tracestore_amd64.s: a plain store, which amd64 orders after the
// earlier ones; an atomic store would also wait for them to drain).
func commitSlot(seq *uint64, v uint64)
