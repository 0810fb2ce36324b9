package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `usage: gpuarr <command>

commands:
  info              list the devices of every backend and mark the default one
  memviz TRACE      write the memory timeline page of a trace (GPUARR_MEMORY_TRACE,
                    -gpumemtrace) to standard output, or to -o FILE
  help              show this text

environment: GPUARR_DEVICE=host|host:N|cuda|cuda:N picks the default device;
GPUARR_HOST_DEVICES, GPUARR_HOST_MEMORY and GPUARR_HOST_PEERS shape the host backend.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the process exit status: 0 on
// success, 1 when the command failed, 2 for a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "info":
		if len(args) > 1 {
			fmt.Fprintf(stderr, "gpuarr info: unexpected argument %q\n\n%s", args[1], usage)
			return 2
		}
		if err := info(stdout); err != nil {
			fmt.Fprintln(stderr, "gpuarr info:", err)
			return 1
		}
		return 0
	case "memviz":
		return memvizCmd(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "gpuarr: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}
