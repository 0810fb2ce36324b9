package gcpressure

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
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
// GPUARR_GC_BACKGROUND, the two threshold variables and GPUARR_DEBUG. A
// malformed value is an error naming the variable.
func policyFromEnv() (policy, error) {
	c := policy{Enabled: true, Background: true, Threshold: 0.75, BlockingThreshold: 0.50, BackgroundThreshold: 0.90, Budget: 0.05,
		CleanupWaitMax: 50 * time.Millisecond, ReclaimWaitMax: time.Second}
	if v, ok := os.LookupEnv(envGCBackground); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("%s=%q: want true or false", envGCBackground, v)
		}
		c.Background = b
	}
	if v, ok := os.LookupEnv(envGCEarly); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("%s=%q: want true or false", envGCEarly, v)
		}
		c.Enabled = b
	}
	for _, t := range []struct {
		env string
		v   *float64
	}{{envGCThreshold, &c.Threshold}, {envGCBlockingThreshold, &c.BlockingThreshold}} {
		v, ok := os.LookupEnv(t.env)
		if !ok || v == "" {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f <= 1) {
			return c, fmt.Errorf("%s=%q: want a pressure in (0, 1]", t.env, v)
		}
		*t.v = f
		if t.env == envGCThreshold {
			c.BackgroundThreshold = f
		}
	}
	for _, w := range strings.Split(os.Getenv(envDebug), ",") {
		if strings.TrimSpace(w) == "gc" {
			c.Log = os.Stderr
		}
	}
	return c, nil
}
