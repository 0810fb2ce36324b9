package indexcheck_test

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/indexcheck"
)

// An operation reserves a check, passes its slot to the kernel that meets
// the indices, and calls Issued after the launch; the first host wait's
// Poll reports the first bad index. The kernel here is written in Go
// (RecordHost) and runs on the host device; a GPU kernel does the same
// with atom.min and atom.cas (Protocol).
func Example() {
	dev, err := device.Open("host")
	if err != nil {
		fmt.Println(err)
		return
	}
	// example_check(idx ptr, n u64, extent i64, slot ptr): records every
	// index outside [0, extent).
	check := func(l *hostkernel.Launch) error {
		n, extent := l.Args.U64(1), l.Args.I64(2)
		idx, err := hostkernel.View[int64](l, l.Args.Ptr(0), n)
		if err != nil {
			return err
		}
		slot, err := l.Bytes(l.Args.Ptr(3), indexcheck.SlotSize)
		if err != nil {
			return err
		}
		for i, v := range idx {
			if v < 0 || v >= extent {
				indexcheck.RecordHost(slot, uint64(i), v)
			}
		}
		return nil
	}
	if _, err := dev.RegisterHostKernel("example_check", check); err != nil {
		fmt.Println(err)
		return
	}
	mod, err := dev.LoadPTX(dev.PTXHeader() + `
.visible .entry example_check(.param .u64 idx, .param .u64 n, .param .s64 extent, .param .u64 slot)
{
	ret;
}
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mod.Close()
	k, err := mod.Kernel("example_check")
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := dev.Alloc(8 * 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Free(p)
	s := dev.DefaultStream()
	if err := device.Upload(s, p, []int64{2, 7, 0, 9}); err != nil {
		fmt.Println(err)
		return
	}
	c, err := indexcheck.Reserve(s, indexcheck.Site{Call: "Take", Axis: -1, Extent: 5, NoNegative: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Launch(k, device.Linear(1, 1), p, uint64(4), int64(5), c.Ptr()); err != nil {
		c.Cancel()
		fmt.Println(err)
		return
	}
	if err := c.Issued(s); err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Synchronize(); err != nil {
		fmt.Println(err)
		return
	}
	err = indexcheck.Poll(dev)
	var bad *indexcheck.Error
	fmt.Println(errors.As(err, &bad), bad.Pos, bad.Index, errors.Is(err, indexcheck.ErrIndex))
	fmt.Println(indexcheck.Poll(dev)) // reported once
	// Output:
	// true 1 7 true
	// <nil>
}
