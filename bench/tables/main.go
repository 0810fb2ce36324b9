// Command tables prints benchmark results (the JSON files the programs
// under bench/ write, e.g. bench/results/h200/*.json) as Markdown tables
// with every label and metric column: the tables in BENCHMARKS.md come
// from it.
//
//	go run ./bench/tables bench/results/h200/alloc.json ...
//
// It is a tool for reading results, not a benchmark: make bench and the GPU
// bundle do not run it.
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

// tables prints each JSON file as a Markdown table.
func tables(w io.Writer, paths []string) error {
	if len(paths) == 0 {
		return fmt.Errorf("no JSON files given (usage: tables FILE.json ...)")
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
