package device_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/hostkernel"
)

// storePTX is the entry name(p ptr, v u32): *p = v. On a GPU the PTX runs;
// on a device that runs Go kernels, storeKernel, bound to the name.
func storePTX(name string) string {
	return strings.ReplaceAll(storePTXTemplate, "NAME", name)
}

// Bindings last for the process: each test run binds names of its own.
var runs atomic.Int64

func uniqueName(prefix string) string { return fmt.Sprintf("%s_%d", prefix, runs.Add(1)) }

const storePTXTemplate = `
.visible .entry NAME(
	.param .u64 store_p,
	.param .u32 store_v
)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;

	ld.param.u64 %rd1, [store_p];
	ld.param.u32 %r1, [store_v];
	cvta.to.global.u64 %rd1, %rd1;
	st.global.u32 [%rd1], %r1;
	ret;
}
`

func storeKernel(l *hostkernel.Launch) error {
	p, err := hostkernel.View[uint32](l, l.Args.Ptr(0), 1)
	if err != nil {
		return err
	}
	p[0] = l.Args.U32(1)
	return nil
}

// A kernel written in Go stands for its PTX entry on the host backend and
// is refused, naming why, where PTX runs; either way the module loads and
// the launch stores the value.
func TestRegisterHostKernel(t *testing.T) {
	dev := testDevice(t)
	name := uniqueName("gpuarr_devtest_store")
	bound, err := dev.RegisterHostKernel(name, storeKernel)
	if dev.RunsHostKernels() {
		require.NoError(t, err)
		assert.True(t, bound)
		again, err := dev.RegisterHostKernel(name, func(*hostkernel.Launch) error { return errors.New("the second binding ran") })
		require.NoError(t, err)
		assert.False(t, again, "the first binding of a name wins")
	} else {
		require.ErrorIs(t, err, device.ErrNotSupported)
		assert.ErrorContains(t, err, "the "+dev.Backend()+" backend runs PTX")
		assert.False(t, bound)
	}

	m, err := dev.LoadPTX(dev.PTXHeader() + storePTX(name))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	k, err := m.Kernel(name)
	require.NoError(t, err)
	s := newStream(t, dev)
	p := alloc(t, dev, 4)
	require.NoError(t, s.Memset32(p, 0, 1))
	require.NoError(t, s.Launch(k, device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}, p, uint32(0xC0FFEE)))
	assert.Equal(t, []uint32{0xC0FFEE}, download(t, s, p, 1))
}

func TestRegisterHostKernelRefusesBadInput(t *testing.T) {
	dev := testDevice(t)
	if !dev.RunsHostKernels() {
		_, err := dev.RegisterHostKernel("", nil)
		require.ErrorIs(t, err, device.ErrNotSupported, "the missing capability comes first")
		t.Skipf("%s runs PTX: TestRegisterHostKernel covers its refusal", dev)
	}
	for _, name := range []string{"", "9lives", "two words", "dash-name", "dot.name"} {
		_, err := dev.RegisterHostKernel(name, storeKernel)
		require.ErrorIs(t, err, device.ErrInvalidValue, "name %q", name)
		assert.ErrorContains(t, err, "is not a PTX identifier")
	}
	_, err := dev.RegisterHostKernel("gpuarr_devtest_nil", nil)
	require.ErrorIs(t, err, device.ErrInvalidValue)
	assert.ErrorContains(t, err, "nil kernel for entry gpuarr_devtest_nil")

	// Names PTX accepts: letters, digits after the first, _ and $.
	bound, err := dev.RegisterHostKernel(uniqueName("_gpuarr$devtest_ok9"), storeKernel)
	require.NoError(t, err)
	assert.True(t, bound)
}

// SetPeerLink changes which host devices can be peers; on a GPU the links
// are the hardware's and it is refused.
func TestSetPeerLink(t *testing.T) {
	devs, err := device.Devices()
	require.NoError(t, err)
	d0 := devs[0]
	err = d0.SetPeerLink(d0, true)
	if errors.Is(err, device.ErrNotSupported) {
		assert.ErrorContains(t, err, "the "+d0.Backend()+" backend's peer links are its hardware's")
		t.Skipf("%s: peer links are the hardware's", d0)
	}
	require.ErrorIs(t, err, device.ErrInvalidValue)
	assert.ErrorContains(t, err, "always its own peer")
	require.ErrorIs(t, d0.SetPeerLink(nil, true), device.ErrInvalidValue)
	if len(devs) < 2 {
		t.Skip("the rest needs two devices (GPUARR_HOST_DEVICES=2)")
	}
	d1 := devs[1]
	t.Cleanup(func() { require.NoError(t, d0.SetPeerLink(d1, true)) })

	require.NoError(t, d0.SetPeerLink(d1, false))
	ok, err := d1.CanAccessPeer(d0)
	require.NoError(t, err)
	assert.False(t, ok, "both directions")
	require.ErrorIs(t, d0.EnablePeerAccess(d1), device.ErrPeerAccessUnsupported)

	require.NoError(t, d1.SetPeerLink(d0, true))
	ok, err = d0.CanAccessPeer(d1)
	require.NoError(t, err)
	assert.True(t, ok)
	require.NoError(t, d0.EnablePeerAccess(d1))
}
