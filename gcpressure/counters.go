package gcpressure

import "time"

// Counters is what eager collection has done so far.
type Counters struct {
	Collections uint64        // eager collections run
	Skipped     uint64        // collections the time budget refused
	BytesFreed  uint64        // device bytes freed by them (cleanups included)
	Time        time.Duration // total time in them, cleanup waits included
	MaxPause    time.Duration // longest single collection
}

func (c *Counters) record(took time.Duration, freed uint64) {
	c.Collections++
	c.BytesFreed += freed
	c.Time += took
	c.MaxPause = max(c.MaxPause, took)
}
