//go:build race

package numpytest_test

// raceEnabled: under the race detector the host backend is many times
// slower, so TestNumPy runs a sample of the cases (see sampled).
const raceEnabled = true
