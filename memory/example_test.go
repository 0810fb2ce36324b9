package memory_test

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

// A caching pool over the driver under a 64 MiB hard limit: a freed block
// is reused by the next request of its size on its stream, and a request
// past the limit fails with an error matching device.ErrOutOfMemory.
func Example() {
	dev, err := device.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	pool := memory.Caching(memory.Limit(memory.Direct(dev), 64<<20), memory.CachingOptions{})
	defer pool.EmptyCache()

	b, err := pool.Alloc(nil, 1000) // on the default stream; rounded up to 1024 bytes
	if err != nil {
		fmt.Println(err)
		return
	}
	p := b.Ptr()
	fmt.Println(b.Size(), b.Capacity())
	if err := pool.Free(b); err != nil { // in the default stream's order
		fmt.Println(err)
		return
	}
	b, err = pool.Alloc(nil, 1000)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("reused:", b.Ptr() == p)
	defer pool.Free(b)

	_, err = pool.Alloc(nil, 128<<20)
	fmt.Println("out of memory:", errors.Is(err, device.ErrOutOfMemory))
	st := pool.Stats()
	fmt.Println("segments:", st.Segments.Current, "reserved:", memory.FormatBytes(st.ReservedBytes.Current))
	// Output:
	// 1000 1024
	// reused: true
	// out of memory: true
	// segments: 1 reserved: 2.0 MiB
}
