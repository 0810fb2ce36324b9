package host

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Each feature answers to its CUDA entry point: hiding it makes just that
// feature fail with SymbolMissing naming the entry point, until restored.
func TestHideSymbol(t *testing.T) {
	type env struct {
		d    *device
		s    *stream
		x    driver.Ptr
		k    map[string]driver.Function
		pool driver.MemPool
		ev   driver.Event
	}
	cases := []struct {
		symbol string
		use    func(e env) error
	}{
		{"cuMemAlloc_v2", func(e env) error { _, err := e.d.Alloc(16); return err }},
		{"cuMemAllocAsync", func(e env) error { _, err := e.s.AllocAsync(16); return err }},
		{"cuMemFreeAsync", func(e env) error { return e.s.FreeAsync(e.x) }},
		{"cuMemPoolCreate", func(e env) error { _, err := e.d.NewMemPool(0); return err }},
		{"cuMemAllocFromPoolAsync", func(e env) error { _, err := e.pool.AllocAsync(16, e.s); return err }},
		{"cuMemcpyPeerAsync", func(e env) error { return e.s.CopyPeer(e.x, e.d, e.x+8, e.d, 4) }},
		{"cuModuleLoadDataEx", func(e env) error { _, err := e.d.LoadModule(ptxModule("hosttest_step")); return err }},
		{"cuEventElapsedTime", func(e env) error { _, err := e.ev.ElapsedSince(e.ev); return err }},
		{"cuMemsetD32Async", func(e env) error { return e.s.Memset32(e.x, 0, 1) }},
		{"cuLaunchKernel", func(e env) error { return e.s.Launch(e.k["step"], one, one, 0, args(e.x, uint32(0))) }},
		{"cuStreamWaitEvent", func(e env) error { return e.s.Wait(e.ev) }},
		{"cuCtxEnablePeerAccess", func(e env) error { return e.d.EnablePeerAccess(e.d) }},
		{"cuMemcpyHtoDAsync", func(e env) error { return e.s.CopyHtoD(e.x, ptrOf(new(uint32)), 4) }}, // without _v2
	}
	for _, c := range cases {
		t.Run(c.symbol, func(t *testing.T) {
			d := testSystem(t).devs[0]
			pool, err := d.NewMemPool(0)
			require.NoError(t, err)
			ev, err := d.NewEvent(true)
			require.NoError(t, err)
			e := env{d: d, s: newTestStream(t, d), k: testKernels(t, d), pool: pool, ev: ev}
			require.NoError(t, e.s.Record(ev))
			e.x, err = e.s.AllocAsync(64)
			require.NoError(t, err)

			restore := d.HideSymbol(c.symbol)
			err = c.use(e)
			require.Error(t, err)
			assert.ErrorIs(t, err, driver.ErrSymbolMissing)
			assert.ErrorIs(t, err, driver.ErrNotSupported)
			var de *driver.Error
			require.ErrorAs(t, err, &de)
			assert.Equal(t, canonicalSymbol(c.symbol), canonicalSymbol(de.Call))

			// Everything else still works.
			require.NoError(t, e.s.Memset8(e.x, 1, 64))
			require.NoError(t, e.s.Synchronize())

			restore()
			restore() // idempotent
			require.NoError(t, c.use(e))
			require.NoError(t, e.s.Synchronize())
		})
	}
}

func TestHideSymbolNests(t *testing.T) {
	d := testSystem(t).devs[0]
	r1 := d.HideSymbol("cuMemAlloc_v2")
	r2 := d.HideSymbol("cuMemAlloc")
	r1()
	_, err := d.Alloc(8)
	assert.ErrorIs(t, err, driver.ErrSymbolMissing, "still hidden by the second call")
	r2()
	p, err := d.Alloc(8)
	require.NoError(t, err)
	require.NoError(t, d.Free(p))
}
