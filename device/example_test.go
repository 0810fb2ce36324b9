package device_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
)

// Two streams ordered by an event: s2's memset runs after s1's upload, on
// the device, and the download on s2 returns once the data is on the host.
func Example() {
	dev, err := device.Default() // a GPU when one is usable, else the host device
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
	p, err := dev.Alloc(4 * 4) // four uint32s
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Free(p)
	ev, err := dev.NewEvent()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ev.Close()

	if err := device.Upload(s1, p, []uint32{1, 2, 3, 4}); err != nil {
		fmt.Println(err)
		return
	}
	if err := s1.RecordWait(ev, s2); err != nil { // s2 waits for the upload
		fmt.Println(err)
		return
	}
	if err := s2.Memset32(p+8, 7, 2); err != nil { // the last two words
		fmt.Println(err)
		return
	}
	out := make([]uint32, 4)
	if err := device.Download(s2, out, p); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out)
	// Output: [1 2 7 7]
}
