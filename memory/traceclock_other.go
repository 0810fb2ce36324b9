//go:build !amd64

package memory

// readTSC is not used off amd64 (haveTSC is false).
func readTSC() uint64 { return 0 }

// haveTSC reports whether the tracer's clock may count time-stamp counter
// ticks: never off amd64.
func haveTSC() bool { return false }
