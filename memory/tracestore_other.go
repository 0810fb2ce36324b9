//go:build !amd64 && !race

package memory

import "sync/atomic"

// commitSlot publishes a slot's record: stores v, the event's sequence
// number plus one, to the slot's sequence word after the record's words.
func commitSlot(seq *uint64, v uint64) { atomic.StoreUint64(seq, v) }
