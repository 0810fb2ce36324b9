// Package debugenv reads GPUARR_DEBUG, the comma-separated list of
// diagnostic switches, for the packages below gcpressure that act on one
// (package gcpressure validates the variable and owns its documentation:
// an unknown word is its configuration error).
package debugenv

import (
	"os"
	"strings"
	"sync"
)

// Var is the variable's name.
const Var = "GPUARR_DEBUG"

// NoEventReuse is the word that turns off the reuse of device events:
// tracking's event pools and the caching pools create an event for every
// record and destroy it when it is given back (a driver call more per
// cross-stream hand-off), so that a bug in an event's lifetime (a record
// moved under a wait that still needs the old one) cannot hide behind
// reuse.
const NoEventReuse = "events"

// NoPoolEventReuse is NoEventReuse for the caching pools' events only, and
// NoTrackingEventReuse for tracking's only: between them they tell which
// of the two a lifetime bug is in.
const (
	NoPoolEventReuse     = "pool-events"
	NoTrackingEventReuse = "tracking-events"
)

var words = sync.OnceValue(func() map[string]bool { return parse(os.Getenv(Var)) })

// parse splits v into its lower-case words.
func parse(v string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Split(v, ",") {
		if w = strings.ToLower(strings.TrimSpace(w)); w != "" {
			m[w] = true
		}
	}
	return m
}

// Has reports whether GPUARR_DEBUG, as the process started with it,
// lists word. It reads the variable once.
func Has(word string) bool { return words()[word] }
