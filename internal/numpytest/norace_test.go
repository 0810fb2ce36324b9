//go:build !race

package numpytest_test

const raceEnabled = false
