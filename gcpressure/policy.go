package gcpressure

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/debugenv"
)

// policy is the eager-collection policy. policyFromEnv reads it from the
// environment; tests build their own.
type policy struct {
	// Enabled turns eager collection on (GPUARR_GC_EARLY, default true).
	Enabled bool
	// Threshold and BlockingThreshold are the pressures below which nothing
	// happens, on allocation and before a blocking wait, for collections
	// in the caller. BackgroundThreshold replaces both in Background mode
	// (see collector.threshold).
	Threshold, BlockingThreshold, BackgroundThreshold float64
	// Budget is the base fraction of time eager collections may take.
	Budget float64
	// CleanupWaitMax bounds the wait for queued cleanups after an eager
	// collection; ReclaimWaitMax after the reclaim ladder's collection,
	// where the alternative is an out-of-memory error.
	CleanupWaitMax, ReclaimWaitMax time.Duration
	// Background runs eager collections on a goroutine of their own, so
	// the caller goes on while the GC marks concurrently and the cleanups
	// free memory (GPUARR_GC_BACKGROUND, default true); the time budget is
	// then four times larger, as it bounds the GC's share of the CPU rather
	// than stalls. The reclaim ladder's collections always run in the
	// caller.
	Background bool
	// Log receives one line per collection and reclaim step when non-nil
	// (GPUARR_DEBUG=gc).
	Log io.Writer
}

// Environment variables read by policyFromEnv.
const (
	envGCEarly      = "GPUARR_GC_EARLY"
	envGCBackground = "GPUARR_GC_BACKGROUND"
	envDebug        = "GPUARR_DEBUG"
	// envGCThreshold overrides Threshold and BackgroundThreshold, and
	// envGCBlockingThreshold BlockingThreshold (a pressure in (0, 1]).
	envGCThreshold         = "GPUARR_GC_THRESHOLD"
	envGCBlockingThreshold = "GPUARR_GC_BLOCKING_THRESHOLD"
)

// policyFromEnv returns the documented policy, adjusted by GPUARR_GC_EARLY,
// GPUARR_GC_BACKGROUND, the two threshold variables and GPUARR_DEBUG.
func policyFromEnv() (policy, error) { return policyFrom(os.Getenv) }

// debugWords are the words GPUARR_DEBUG may list.
var debugWords = []string{"gc", debugenv.NoEventReuse, debugenv.NoPoolEventReuse, debugenv.NoTrackingEventReuse}

// policyFrom is policyFromEnv reading the variables through getenv. Every
// well-formed variable applies; each malformed one is a
// *device.ConfigError naming it (matching device.ErrBadConfig), all of
// them joined, and leaves its default.
func policyFrom(getenv func(string) string) (policy, error) {
	c := policy{Enabled: true, Background: true, Threshold: 0.75, BlockingThreshold: 0.50, BackgroundThreshold: 0.90, Budget: 0.05,
		CleanupWaitMax: 50 * time.Millisecond, ReclaimWaitMax: time.Second}
	var errs []error
	bad := func(name, v, reason string) {
		errs = append(errs, &device.ConfigError{Var: name, Value: v, Reason: reason})
	}
	for _, b := range []struct {
		env string
		v   *bool
	}{{envGCBackground, &c.Background}, {envGCEarly, &c.Enabled}} {
		v := strings.TrimSpace(getenv(b.env))
		if v == "" {
			continue
		}
		on, err := strconv.ParseBool(v)
		if err != nil {
			bad(b.env, v, "want true or false (or 1 or 0)")
			continue
		}
		*b.v = on
	}
	for _, t := range []struct {
		env string
		v   *float64
	}{{envGCThreshold, &c.Threshold}, {envGCBlockingThreshold, &c.BlockingThreshold}} {
		v := strings.TrimSpace(getenv(t.env))
		if v == "" {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f <= 1) {
			bad(t.env, v, "want a pressure in (0, 1], such as 0.8")
			continue
		}
		*t.v = f
		if t.env == envGCThreshold {
			c.BackgroundThreshold = f
		}
	}
	if v := getenv(envDebug); strings.TrimSpace(v) != "" {
		for _, w := range strings.Split(v, ",") {
			switch w = strings.ToLower(strings.TrimSpace(w)); {
			case w == "":
			case w == "gc":
				c.Log = os.Stderr
			case w == debugenv.NoEventReuse, w == debugenv.NoPoolEventReuse, w == debugenv.NoTrackingEventReuse: // read by tracking and memory
			default:
				bad(envDebug, v, fmt.Sprintf("unknown word %q: want a comma-separated list of %s", w, strings.Join(debugWords, ", ")))
			}
		}
	}
	return c, errors.Join(errs...)
}
