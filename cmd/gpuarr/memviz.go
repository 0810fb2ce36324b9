package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gpuarr/gpuarr/memory/memviz"
)

// memvizCmd writes the timeline page of a memory trace: gpuarr memviz
// [-o page.html] trace.json (standard output without -o).
func memvizCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("memviz", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the page to this file instead of standard output")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "gpuarr memviz: want one trace file (GPUARR_MEMORY_TRACE, an example's -gpumemtrace), got %d arguments\n\n%s", fs.NArg(), usage)
		return 2
	}
	w := stdout
	var f *os.File
	if *out != "" {
		var err error
		if f, err = os.Create(*out); err != nil {
			fmt.Fprintln(stderr, "gpuarr memviz:", err)
			return 1
		}
		w = f
	}
	bw := bufio.NewWriter(w)
	err := memviz.WriteFile(bw, fs.Arg(0))
	if err == nil {
		err = bw.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "gpuarr memviz:", err)
		return 1
	}
	return 0
}
