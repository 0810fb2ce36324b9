package memory

import (
	"bytes"
	"os"
	"sync"
)

// readTSC reads the time-stamp counter (traceclock_amd64.s).
func readTSC() uint64

// invariantTSC reports whether the processor's time-stamp counter runs at
// a constant rate (traceclock_amd64.s).
func invariantTSC() bool

// haveTSC reports whether the tracer's clock may count time-stamp counter
// ticks: the processor says the counter is invariant, or the kernel keeps
// its own clock on it (a virtual machine may not pass the processor's
// flag on).
var haveTSC = sync.OnceValue(func() bool {
	if invariantTSC() {
		return true
	}
	b, err := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource")
	return err == nil && string(bytes.TrimSpace(b)) == "tsc"
})
