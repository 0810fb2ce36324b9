//go:build !race

package memory

// storeWord writes one word of a record its writer owns (traceRing.put).
// Readers check what they copy with the slot's sequence word and the
// ring's count, so a plain store suffices (under the race detector it is
// atomic: tracestore_race.go).
func storeWord(p *uint64, v uint64) { *p = v }
