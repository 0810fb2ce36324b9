//go:build race

package testutil

// RaceEnabled reports whether the binary runs under the race detector,
// where the host backend and the big-float references are many times
// slower: long tests take a sample of their inputs under it and their full
// size in the runs without -race.
const RaceEnabled = true
