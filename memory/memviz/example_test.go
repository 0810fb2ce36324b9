package memviz_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
	"github.com/gpuarr/gpuarr/memory/memviz"
)

// A traced resource's calls drawn as one self-contained HTML page.
func Example() {
	dev, err := device.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	res, tr := memory.Trace(memory.Direct(dev), 1024)
	for _, n := range []uint64{1 << 20, 4 << 20} {
		b, err := res.Alloc(nil, n)
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := res.Free(b); err != nil {
			fmt.Println(err)
			return
		}
	}
	var page bytes.Buffer
	if err := memviz.Write(&page, tr.Snapshot(), "two blocks"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(tr.Events()), "events;", strings.HasPrefix(page.String(), "<!DOCTYPE html>"), strings.Contains(page.String(), "two blocks"))
	// Output: 4 events; true true
}
