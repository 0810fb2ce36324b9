package memory

// readTSC reads the time-stamp counter (traceclock_amd64.s).
func readTSC() uint64

// invariantTSC reports whether the processor's time-stamp counter runs at
// a constant rate (traceclock_amd64.s).
func invariantTSC() bool

// haveTSC reports whether the tracer's clock may count time-stamp counter
// ticks.
var haveTSC = invariantTSC()
