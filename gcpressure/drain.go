package gcpressure

import "github.com/gpuarr/gpuarr/internal/cleanups"

// AfterCleanups registers f to run at the end of every collection made by
// this package (eager, background or in the reclaim ladder), after the
// cleanups it queued have run. A layer whose cleanups only queue the
// memory they free (package gpuarr's do: thousands of cleanups freeing
// into one pool from several goroutines contend for its locks) registers
// the function that finishes those frees, so that the memory is back in
// the pool before the collection counts as done and the reclaim ladder
// retries. f must be safe to call from any goroutine and concurrently with
// itself.
func AfterCleanups(f func()) { cleanups.AfterCleanups(f) }
