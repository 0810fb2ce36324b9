package main

import (
	"fmt"
	"io"

	"github.com/gpuarr/gpuarr/bench/report"
)

// reportTables prints every benchmark JSON file as a Markdown table with all
// of its label and metric columns: the tables in BENCHMARKS.md come from it.
func reportTables(w io.Writer, paths []string) error {
	if len(paths) == 0 {
		return fmt.Errorf("no JSON files given")
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
