// Command tables prints benchmark results (the JSON files the programs
// under bench/ write, e.g. bench/results/h100/run-b6ea8f8/*.json) as Markdown tables
// with every label and metric column and each row's verdict:
//
//	go run ./bench/tables bench/results/h100/run-b6ea8f8/alloc.json ...
//
// With -section it writes BENCHMARKS.md's latest section instead: the
// verdicts of every judged figure in each of the given runs (folders of
// one bundle run's JSON), misses first; -write FILE puts it between the
// section markers in FILE (the one command that updates BENCHMARKS.md):
//
//	go run ./bench/tables -section -write BENCHMARKS.md bench/results/h100/run-b6ea8f8 ...
//
// Results written before rows carried their targets are judged by the
// targets the programs set now (legacy.go). It is a tool for reading
// results, not a benchmark: make bench and the GPU bundle do not run it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gpuarr/gpuarr/bench/report"
)

func main() {
	sec := flag.Bool("section", false, "write the latest-runs section (verdicts of every judged figure, misses first) of the run folders given")
	write := flag.String("write", "", "with -section: replace the section between the markers in this file (BENCHMARKS.md)")
	title := flag.String("title", "", "with -section: the section's heading (default: the runs' devices, commits and dates)")
	flag.Parse()
	var err error
	if *sec {
		err = sections(os.Stdout, *write, *title, flag.Args())
	} else if *write != "" || *title != "" {
		err = fmt.Errorf("-write and -title go with -section")
	} else {
		err = tables(os.Stdout, flag.Args())
	}
	if err != nil {
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
		judgeLegacy(r)
		labels, metrics := r.Keys()
		r.Markdown(w, labels, metrics)
	}
	return nil
}

// sections writes the section of the run folders dirs to w, or into file.
func sections(w io.Writer, file, title string, dirs []string) error {
	if len(dirs) == 0 {
		return fmt.Errorf("-section: no run folders given (usage: tables -section [-write BENCHMARKS.md] DIR ...)")
	}
	var runs []run
	for _, d := range dirs {
		r, err := loadRun(d)
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	command := "go run ./bench/tables -section"
	if file != "" {
		command += " -write " + file
	}
	if title != "" {
		command += " -title '" + title + "'"
	}
	command += " " + strings.Join(dirs, " ")
	var b strings.Builder
	section(&b, title, command, runs)
	if file == "" {
		_, err := io.WriteString(w, b.String())
		return err
	}
	return writeSection(file, b.String())
}
