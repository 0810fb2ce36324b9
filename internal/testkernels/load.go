package testkernels

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
)

// Set is the test kernels loaded as one module on one device.
type Set struct {
	Module                                   *device.Module
	VAdd, SpinWrite, Step, Copy, Fill, Empty *device.Kernel
}

// Load loads every test kernel on dev: their PTX on a GPU; on a device
// that runs kernels written in Go (the host backend), the Go halves, bound
// to the same entry names first.
func Load(dev *device.Device) (*Set, error) {
	if err := bindHostKernels(dev); err != nil {
		return nil, fmt.Errorf("testkernels on %s: %w", dev, err)
	}
	m, err := dev.LoadPTX(PTX(dev))
	if err != nil {
		return nil, fmt.Errorf("testkernels on %s: %w", dev, err)
	}
	s := &Set{Module: m}
	for _, k := range []struct {
		dst  **device.Kernel
		name string
	}{
		{&s.VAdd, "gpuarr_vadd_f32"},
		{&s.SpinWrite, "gpuarr_spin_write_u32"},
		{&s.Step, "gpuarr_step_u32"},
		{&s.Copy, "gpuarr_copy_u32"},
		{&s.Fill, "gpuarr_fill_u32"},
		{&s.Empty, "gpuarr_empty"},
	} {
		if *k.dst, err = m.Kernel(k.name); err != nil {
			_ = m.Close()
			return nil, fmt.Errorf("testkernels on %s: %w", dev, err)
		}
	}
	return s, nil
}
