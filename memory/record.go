package memory

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// DefaultTraceEvents is the trace ring RecordTo sets up when
// GPUARR_MEMORY_TRACE is unset: about an hour of a training loop that
// allocates a few hundred blocks a second.
const DefaultTraceEvents = 1 << 20

// RecordTo serves a program's -gpumemprofile and -gpumemtrace flags (the
// example programs have both): call it before the program's first
// allocation with the files to write (either may be empty), and call the
// function it returns at the end. With tracePath it sets
// GPUARR_MEMORY_TRACE to DefaultTraceEvents unless the environment sets
// it, so that each device's default resource records a trace. With
// profilePath it samples at FineProfileRate unless GPUARR_MEMPROFILE_RATE
// is set: a program run to be profiled trades allocation speed for a
// finer profile. finish then
// writes the profile (WriteProfileFile) and each device's trace (the
// first device's to tracePath, another's to the name with ".<ordinal>"
// before its extension). A device whose default resource was built
// before RecordTo has no trace; finish says so in its error.
func RecordTo(profilePath, tracePath string) (finish func() error) {
	if tracePath != "" && strings.TrimSpace(os.Getenv(EnvTrace)) == "" {
		os.Setenv(EnvTrace, strconv.Itoa(DefaultTraceEvents))
	}
	if profilePath != "" && strings.TrimSpace(os.Getenv(EnvProfileRate)) == "" {
		SetProfileRate(FineProfileRate)
	}
	return func() error {
		var errs []error
		if profilePath != "" {
			errs = append(errs, WriteProfileFile(profilePath))
		}
		if tracePath != "" {
			n := 0
			for _, e := range sortedDefaults() {
				if e.tracer == nil {
					continue
				}
				path := tracePath
				if n > 0 {
					ext := ""
					if j := strings.LastIndexByte(path, '.'); j > strings.LastIndexByte(path, '/') {
						path, ext = path[:j], path[j:]
					}
					path = fmt.Sprintf("%s.%d%s", path, e.dev.Ordinal(), ext)
				}
				errs = append(errs, e.tracer.WriteFile(path))
				n++
			}
			if n == 0 {
				errs = append(errs, fmt.Errorf("memory: no trace to write to %s: no device's default resource records one (%s was 0 or set after the first allocation)", tracePath, EnvTrace))
			}
		}
		return errors.Join(errs...)
	}
}
