package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
)

// benchCase is one case of the program: its name (what -only selects)
// and its measurement.
type benchCase struct {
	name string
	fn   func(*report.Report, *device.Device, config) error
}

// benchCases is every case, in the order they run.
var benchCases = []benchCase{
	{"a+b", benchAdd},
	{"a*b+c", benchFused},
	{"sin(a*b+c)", benchChain},
	{"elementwise functions", benchFunctions},
	{"float16/bfloat16 a+b", benchHalfAdd},
	{caseHalfMatmulGroup, benchHalfMatmul},
	{"sum", benchSum},
	{"matmul", benchMatmul},
	{"batched matmul", benchBatched},
	{"var/std/two-axis sum", benchStats},
	{"small op", benchSmall},
	{"jit", benchJIT},
}

// selectCases returns the cases only names (comma-separated; empty: all of
// them), in benchCases' order. An unknown name is an error that lists the
// names.
func selectCases(only string) ([]benchCase, error) {
	if strings.TrimSpace(only) == "" {
		return benchCases, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var out []benchCase
	for _, c := range benchCases {
		if want[c.name] {
			out = append(out, c)
			delete(want, c.name)
		}
	}
	if len(want) > 0 {
		var names, bad []string
		for _, c := range benchCases {
			names = append(names, strconv.Quote(c.name))
		}
		for n := range want {
			bad = append(bad, strconv.Quote(n))
		}
		sort.Strings(bad)
		return nil, fmt.Errorf("-only: no case named %s (the cases: %s)", strings.Join(bad, ", "), strings.Join(names, ", "))
	}
	return out, nil
}
