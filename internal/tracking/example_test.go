package tracking_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/tracking"
	"github.com/gpuarr/gpuarr/memory"
)

// One buffer's record: work on the allocating stream makes no driver call;
// the first read on another stream costs one event record and one wait;
// Release declares that stream to the pool, so the memory is reused only
// after it.
func Example() {
	dev, err := device.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	s1 := dev.DefaultStream()
	s2, err := dev.NewStream()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s2.Close()
	res, err := memory.Default(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	blk, err := res.Alloc(s1, 1024)
	if err != nil {
		fmt.Println(err)
		return
	}

	var st tracking.State
	st.Start(s1) // the allocation is a write on s1
	_, waits0, records0 := tracking.Counts()
	st.Lock()
	err = st.UseLocked(s1, tracking.Write) // same stream: stream order suffices
	if err == nil {
		err = st.UseLocked(s2, tracking.Read) // s2 waits for s1's write, on the device
	}
	st.Unlock()
	_, waits, records := tracking.Counts()
	fmt.Println(waits-waits0, "wait,", records-records0, "record,", err)
	fmt.Println("shared:", st.Shared(s1), st.Release(res, blk))
	// Output:
	// 1 wait, 1 record, <nil>
	// shared: true <nil>
}
