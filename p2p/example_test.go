package p2p_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/p2p"
)

// Route says how bytes travel between two devices; a staged copy goes
// through pinned host buffers, ordered after the source stream's earlier
// work and before the destination stream's later work. Both streams may
// belong to one device, as here.
func Example() {
	dev, err := device.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p2p.Route(dev, dev))

	srcS := dev.DefaultStream()
	dstS, err := dev.NewStream()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dstS.Close()
	src, err := dev.Alloc(16)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Free(src)
	dst, err := dev.Alloc(16)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Free(dst)

	out := make([]uint32, 4)
	err = device.Upload(srcS, src, []uint32{1, 2, 3, 4})
	if err == nil {
		err = p2p.CopyStaged(dstS, dst, srcS, src, 16)
	}
	if err == nil {
		err = device.Download(dstS, out, dst)
	}
	fmt.Println(out, err)
	// Output:
	// local
	// [1 2 3 4] <nil>
}
