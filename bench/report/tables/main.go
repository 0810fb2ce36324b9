// Command tables prints benchmark results (bench/results/*.json, written by
// the programs under bench/) as Markdown tables with all of their label and
// metric columns: the tables in BENCHMARKS.md come from it.
//
//	go run ./bench/report/tables bench/results/h100/alloc.json ...
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gpuarr/gpuarr/bench/report"
)

func main() {
	if err := tables(os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "tables:", err)
		os.Exit(1)
	}
}

// tables prints each file's report as one Markdown table.
func tables(w io.Writer, paths []string) error {
	if len(paths) == 0 {
		return fmt.Errorf("usage: tables FILE.json ... (bench/results/*.json)")
	}
	for _, p := range paths {
		r, err := report.Load(p)
		if err != nil {
			return err
		}
		labels, metrics := r.Keys()
		r.Markdown(w, labels, metrics)
	}
	return nil
}
