package device

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// lastArgs is a backend stream that keeps the arguments of its last
// launch.
type lastArgs struct {
	driver.Stream
	args driver.Args
}

func (r *lastArgs) Launch(_ driver.Function, _, _ driver.Dim3, _ uint32, a *driver.Args) error {
	r.args = *a
	return nil
}

// owner stands for an object that owns device memory.
type owner struct{ p Ptr }

func (o *owner) LaunchPtr() Ptr { return o.p }

// A PtrArg marshals as the address it stands for, read at the launch, and
// a pointer PtrArg passes without an allocation.
func TestPtrArgPassesItsAddress(t *testing.T) {
	dev := &Device{}
	rec := &lastArgs{}
	s := &Stream{dev: dev, drv: rec}
	k := &Kernel{mod: &Module{dev: dev, drv: nopModule{}}, drv: nopFunction{}}
	require.NoError(t, s.Launch(k, LaunchConfig{}, Ptr(0x1000), uint64(7)))
	want := rec.args
	o := &owner{p: 0x1000}
	require.NoError(t, s.Launch(k, LaunchConfig{}, o, uint64(7)))
	assert.Equal(t, want, rec.args, "the same arguments as the Ptr")
	o.p = 0x2000
	require.NoError(t, s.Launch(k, LaunchConfig{}, o, uint64(7)))
	assert.NotEqual(t, want, rec.args, "the address is read at the launch")

	allocs := testing.AllocsPerRun(1000, func() {
		_ = s.Launch(k, LaunchConfig{}, o, o, o, uint64(1<<20))
	})
	assert.Zero(t, allocs)
}
