package device

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gpuarr/gpuarr/device/driver"
)

// nopStream is a backend stream whose Launch does nothing, so the wrapper's
// own cost is what is measured and counted.
type nopStream struct{ driver.Stream }

func (nopStream) Launch(driver.Function, driver.Dim3, driver.Dim3, uint32, *driver.Args) error {
	return nil
}

type nopModule struct{ driver.Module }
type nopFunction struct{}

func (nopFunction) Name() string { return "nop" }

func TestLaunchWrapperAllocatesNothing(t *testing.T) {
	dev := &Device{}
	s := &Stream{dev: dev, drv: nopStream{}}
	k := &Kernel{mod: &Module{dev: dev, drv: nopModule{}}, drv: nopFunction{}}
	p := Ptr(0x1000)
	allocs := testing.AllocsPerRun(1000, func() {
		_ = s.Launch(k, LaunchConfig{}, p, p, p, uint64(1<<20))
	})
	assert.Zero(t, allocs)
}

func BenchmarkLaunchWrapper(b *testing.B) {
	dev := &Device{}
	s := &Stream{dev: dev, drv: nopStream{}}
	k := &Kernel{mod: &Module{dev: dev, drv: nopModule{}}, drv: nopFunction{}}
	p := Ptr(0x1000)
	for b.Loop() {
		_ = s.Launch(k, LaunchConfig{}, p, p, p, uint64(1<<20))
	}
}
