//go:build race

package memory

import "sync/atomic"

// storeWord writes one word of a record its writer owns (traceRing.put),
// atomically under the race detector, which would otherwise report the
// readers' checked copies of a slot being rewritten.
func storeWord(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

// commitSlot publishes a slot's record: stores v, the event's sequence
// number plus one, to the slot's sequence word after the record's words.
func commitSlot(seq *uint64, v uint64) { atomic.StoreUint64(seq, v) }
