package report

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// StartProfiles starts a CPU profile and an execution trace into the named
// files (either may be empty) and returns the function that stops them.
func StartProfiles(cpuFile, traceFile string) (stop func() error, err error) {
	var stops []func() error
	stop = func() error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i]())
		}
		return errors.Join(errs...)
	}
	if cpuFile != "" {
		f, err := os.Create(cpuFile)
		if err != nil {
			return nil, fmt.Errorf("-cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("-cpuprofile: %w", err)
		}
		stops = append(stops, func() error { pprof.StopCPUProfile(); return f.Close() })
	}
	if traceFile != "" {
		f, err := os.Create(traceFile)
		if err != nil {
			return nil, errors.Join(stop(), fmt.Errorf("-trace: %w", err))
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return nil, errors.Join(stop(), fmt.Errorf("-trace: %w", err))
		}
		stops = append(stops, func() error { trace.Stop(); return f.Close() })
	}
	return stop, nil
}
