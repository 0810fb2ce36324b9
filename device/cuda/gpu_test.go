//go:build cgo

package cuda

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
)

// These tests need a GPU; without one they skip, saying why.

func gpu(t testing.TB) *device {
	t.Helper()
	return gpus(t)[0].(*device)
}

// gpus returns the CUDA devices. It skips the test only when there is no
// GPU to test (no driver library, or the driver finds no usable device);
// any other failure to open the devices is a failure of the test.
func gpus(t testing.TB) []driver.Device {
	t.Helper()
	devs, err := Backend().Devices()
	switch {
	case noGPU(err):
		t.Skipf("needs a CUDA device: %v", err)
	case err != nil:
		t.Fatalf("opening the CUDA devices: %v", err)
	}
	return devs
}

// noGPU reports whether err says there is no GPU to test: no driver
// library, or no usable device.
func noGPU(err error) bool {
	return errors.Is(err, driver.ErrNoDriver) || errors.Is(err, driver.ErrNoDevice)
}

// Only a missing driver or device skips the GPU tests; any other error
// opening the devices fails them.
func TestOnlyNoGPUSkips(t *testing.T) {
	for _, c := range []struct {
		err  error
		skip bool
	}{
		{&driver.Error{Call: "dlopen libcuda.so.1", Code: driver.LibraryMissing}, true},
		{&driver.Error{Call: "cuInit", Code: driver.NoDevice}, true},
		{fmt.Errorf("wrapped: %w", &driver.Error{Call: "cuDeviceGetCount", Code: driver.NoDevice}), true},
		{&driver.Error{Call: "cuDeviceGetName", Code: driver.InvalidValue}, false},
		{&driver.Error{Call: "cuDevicePrimaryCtxRetain", Code: driver.OutOfMemory}, false},
		{&driver.Error{Call: "cuCtxSetCurrent", Code: driver.NotSupported}, false},
		{errors.New("anything else"), false},
	} {
		assert.Equal(t, c.skip, noGPU(c.err), "%v", c.err)
	}
}

func newStream(t testing.TB, d *device) *stream {
	t.Helper()
	s, err := d.NewStream()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s.(*stream)
}

func alloc(t testing.TB, d *device, n uint64) driver.Ptr {
	t.Helper()
	p, err := d.Alloc(n)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Free(p) })
	return p
}

// testPTX: a spin-then-write kernel, a fill and a store through a pointer.
const testPTX = `
.visible .entry t_spin(.param .u64 out, .param .u32 v, .param .u64 ns)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<6>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	or.b32 %r1, %r1, %r2;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r2, [v];
	ld.param.u64 %rd2, [ns];
	mov.u64 %rd3, %globaltimer;
SPIN:
	mov.u64 %rd4, %globaltimer;
	sub.u64 %rd5, %rd4, %rd3;
	setp.lt.u64 %p1, %rd5, %rd2;
	@%p1 bra SPIN;
	st.global.u32 [%rd1], %r2;
DONE:
	ret;
}

.visible .entry t_fill(.param .u64 dst, .param .u32 v, .param .u64 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [dst];
	ld.param.u32 %r4, [v];
	ld.param.u64 %rd2, [n];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mul.wide.u32 %rd3, %r1, %r2;
	cvt.u64.u32 %rd4, %r3;
	add.u64 %rd3, %rd3, %rd4;
	setp.ge.u64 %p1, %rd3, %rd2;
	@%p1 bra DONE;
	shl.b64 %rd5, %rd3, 2;
	add.u64 %rd5, %rd1, %rd5;
	st.global.u32 [%rd5], %r4;
DONE:
	ret;
}

.visible .entry t_store(.param .u64 p)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, 1;
	st.global.u32 [%rd1], %r1;
	ret;
}

.visible .entry t_empty()
{
	ret;
}
`

func header(d *device) string {
	sm := min(d.info.ComputeMajor*10+d.info.ComputeMinor, 90)
	return fmt.Sprintf(".version 7.8\n.target sm_%d\n.address_size 64\n", sm)
}

type kernels struct {
	spin, fill, store, empty driver.Function
}

func loadKernels(t testing.TB, d *device) kernels {
	t.Helper()
	m, err := d.LoadModule(header(d) + testPTX)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	var k kernels
	for _, f := range []struct {
		dst  *driver.Function
		name string
	}{{&k.spin, "t_spin"}, {&k.fill, "t_fill"}, {&k.store, "t_store"}, {&k.empty, "t_empty"}} {
		*f.dst, err = m.Function(f.name)
		require.NoError(t, err)
	}
	return k
}

func args(vals ...any) *driver.Args {
	a := new(driver.Args)
	for _, v := range vals {
		switch x := v.(type) {
		case driver.Ptr:
			a.Append(driver.ArgPtr, uint64(x))
		case uint32:
			a.Append(driver.ArgU32, uint64(x))
		case uint64:
			a.Append(driver.ArgU64, x)
		default:
			panic(fmt.Sprintf("args: %T", v))
		}
	}
	return a
}

var one = driver.Dim3{X: 1, Y: 1, Z: 1}

func spin(t testing.TB, s *stream, k kernels, out driver.Ptr, v uint32, d time.Duration) {
	t.Helper()
	require.NoError(t, s.Launch(k.spin, one, one, 0, args(out, v, uint64(d.Nanoseconds()))))
}

func download(t testing.TB, s *stream, p driver.Ptr, n int) []uint32 {
	t.Helper()
	out := make([]uint32, n)
	require.NoError(t, s.CopyDtoH(unsafe.Pointer(&out[0]), p, uint64(4*n)))
	return out
}

func TestDeviceInfo(t *testing.T) {
	d := gpu(t)
	info := d.Info()
	t.Logf("%+v", info)
	assert.Equal(t, "cuda", info.Backend)
	assert.NotEmpty(t, info.Name)
	assert.GreaterOrEqual(t, info.ComputeMajor, 5)
	assert.Positive(t, info.TotalMemory)
	assert.GreaterOrEqual(t, info.DriverVersion, 11020)
	assert.Positive(t, info.Multiprocessors)
	assert.Positive(t, info.L2CacheBytes)
	assert.True(t, info.UnifiedAddressing)
	free, total, err := d.MemInfo()
	require.NoError(t, err)
	assert.Equal(t, info.TotalMemory, total)
	assert.Positive(t, free)
	for _, name := range []string{"cuEventElapsedTime", "cuMemAllocAsync", "cuMemPoolCreate", "cuLaunchKernel"} {
		i := symbols().index[name]
		t.Logf("%s bound as %s (present %v)", name, symName(i), symbolPresent(name))
	}
}

func TestAllocFree(t *testing.T) {
	d := gpu(t)
	p, err := d.Alloc(4096)
	require.NoError(t, err)
	require.NoError(t, d.Free(p))
	for _, bad := range []driver.Ptr{p, 0x10, p + 0x1000000000} {
		err := d.Free(bad)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, "free of %v", bad)
	}
	// What the driver itself says about a pointer it never returned.
	t.Logf("raw cuMemFree_v2(0x10): %v", d.rawFree(0x10))

	_, err = d.Alloc(0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = d.Alloc(d.info.TotalMemory + 1<<30)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
	assert.Contains(t, err.Error(), "cuMemAlloc_v2")
	q, err := d.Alloc(1 << 20)
	require.NoError(t, err, "the device is usable after an OOM")
	require.NoError(t, d.Free(q))
}

func TestCopyRoundTrips(t *testing.T) {
	d := gpu(t)
	s := newStream(t, d)
	for _, n := range []int{1, 3, 4096, 1<<20 + 7, 64 << 20} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rand.Uint32())
		}
		a, b := alloc(t, d, uint64(n)), alloc(t, d, uint64(n))
		sp := unsafe.Pointer(&src[0])

		// Synchronous copies.
		require.NoError(t, d.CopyHtoD(a, sp, uint64(n)))
		require.NoError(t, d.CopyDtoD(b, a, uint64(n)))
		got := make([]byte, n)
		require.NoError(t, d.CopyDtoH(unsafe.Pointer(&got[0]), b, uint64(n)))
		require.True(t, bytes.Equal(src, got), "sync round trip of %d bytes", n)

		// Stream-ordered copies.
		require.NoError(t, s.Memset8(a, 0, uint64(n)))
		require.NoError(t, s.Memset8(b, 0, uint64(n)))
		require.NoError(t, s.CopyHtoD(a, sp, uint64(n)))
		require.NoError(t, s.CopyDtoD(b, a, uint64(n)))
		clear(got)
		require.NoError(t, s.CopyDtoH(unsafe.Pointer(&got[0]), b, uint64(n)))
		require.True(t, bytes.Equal(src, got), "async round trip of %d bytes", n)
	}
}

func TestMemset(t *testing.T) {
	d := gpu(t)
	s := newStream(t, d)
	p := alloc(t, d, 4096)
	require.NoError(t, s.Memset32(p, 0xDEADBEEF, 1024))
	require.NoError(t, s.Memset8(p, 0xAB, 5))
	got := download(t, s, p, 3)
	assert.Equal(t, []uint32{0xABABABAB, 0xDEADBEAB, 0xDEADBEEF}, got)
}

// An event recorded after a spinning kernel on s1 orders s2's read after it.
func TestEventOrdersStreams(t *testing.T) {
	d := gpu(t)
	k := loadKernels(t, d)
	s1, s2 := newStream(t, d), newStream(t, d)
	p := alloc(t, d, 4)
	require.NoError(t, s1.Memset32(p, 0, 1))
	require.NoError(t, s1.Synchronize())

	start, err := d.NewEvent(true)
	require.NoError(t, err)
	defer start.Close()
	end, err := d.NewEvent(true)
	require.NoError(t, err)
	defer end.Close()

	done, err := end.Query()
	require.NoError(t, err)
	assert.True(t, done, "an event never recorded counts as reached")

	require.NoError(t, s1.Record(start))
	spin(t, s1, k, p, 7, 50*time.Millisecond)
	require.NoError(t, s1.Record(end))
	require.NoError(t, s2.Wait(end))

	busy, err := s1.Query()
	require.NoError(t, err)
	assert.False(t, busy, "the spinning stream is not done")
	done, err = end.Query()
	require.NoError(t, err)
	assert.False(t, done)

	assert.Equal(t, uint32(7), download(t, s2, p, 1)[0], "s2 read after s1's write")
	require.NoError(t, end.Synchronize())
	ms, err := end.ElapsedSince(start)
	require.NoError(t, err)
	assert.InDelta(t, 50, ms, 20)
	done, err = end.Query()
	require.NoError(t, err)
	assert.True(t, done)

	plain, err := d.NewEvent(false)
	require.NoError(t, err)
	_, err = plain.ElapsedSince(start)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	require.NoError(t, plain.Close())
	assert.ErrorIs(t, plain.Close(), driver.ErrClosed)
}

// 10,000 launches on one stream run in order: each writes its index after
// the previous one's.
func TestStreamIsInOrder(t *testing.T) {
	d := gpu(t)
	k := loadKernels(t, d)
	s := newStream(t, d)
	p := alloc(t, d, 4*10000)
	for i := range 10000 {
		require.NoError(t, s.Launch(k.fill, one, one, 0, args(p.Add(uint64(4*i)), uint32(i), uint64(1))))
	}
	got := download(t, s, p, 10000)
	for i, v := range got {
		if v != uint32(i) {
			t.Fatalf("word %d = %d", i, v)
		}
	}
}

// The device-to-host copy returns only once the data is in Go memory, even
// when it waits behind a kernel.
func TestCopyDtoHWaitsForTheData(t *testing.T) {
	d := gpu(t)
	k := loadKernels(t, d)
	s := newStream(t, d)
	p := alloc(t, d, 4)
	require.NoError(t, s.Memset32(p, 0, 1))
	spin(t, s, k, p, 42, 100*time.Millisecond)
	t0 := time.Now()
	var got uint32
	require.NoError(t, s.CopyDtoH(unsafe.Pointer(&got), p, 4))
	took := time.Since(t0)
	assert.Equal(t, uint32(42), got)
	t.Logf("CopyDtoH behind a 100 ms kernel returned after %v", took)
}

// The host-to-device copy from Go memory returns once the source may be
// reused, even when queued behind a kernel.
func TestCopyHtoDSourceReusable(t *testing.T) {
	d := gpu(t)
	k := loadKernels(t, d)
	s := newStream(t, d)
	const n = 1 << 20
	p := alloc(t, d, 4*n)
	scratch := alloc(t, d, 4)
	src := make([]uint32, n)
	for i := range src {
		src[i] = uint32(i) * 2654435761
	}
	want := append([]uint32(nil), src...)
	spin(t, s, k, scratch, 1, 100*time.Millisecond)
	t0 := time.Now()
	require.NoError(t, s.CopyHtoD(p, unsafe.Pointer(&src[0]), 4*n))
	took := time.Since(t0)
	for i := range src {
		src[i] = 0xFFFFFFFF
	}
	got := download(t, s, p, n)
	require.Equal(t, want, got)
	t.Logf("CopyHtoD of 4 MiB behind a 100 ms kernel returned after %v", took)
}

func TestModuleErrors(t *testing.T) {
	d := gpu(t)
	_, err := d.LoadModule(header(d) + `
.visible .entry broken(.param .u64 a)
{
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [a];
	add.f32 %rd1, %rd1, %nosuchreg;
	ret;
}
`)
	require.Error(t, err)
	assert.ErrorIs(t, err, driver.ErrInvalidPTX)
	var de *driver.Error
	require.ErrorAs(t, err, &de)
	assert.Contains(t, de.Detail, "line")
	t.Logf("JIT error: %v", err)

	_, err = d.LoadModule("this is not PTX")
	assert.ErrorIs(t, err, driver.ErrInvalidPTX)
	t.Logf("garbage module: %v", err)

	m, err := d.LoadModule(header(d) + testPTX)
	require.NoError(t, err)
	_, err = m.Function("no_such_kernel")
	assert.ErrorIs(t, err, driver.ErrNotFound)
	assert.Contains(t, err.Error(), "no_such_kernel")
	f, err := m.Function("t_empty")
	require.NoError(t, err)
	require.NoError(t, m.Close())
	s := newStream(t, d)
	assert.ErrorIs(t, s.Launch(f, one, one, 0, nil), driver.ErrClosed)
	assert.ErrorIs(t, m.Close(), driver.ErrClosed)
}

func TestLaunchFillsAndAllocatesNothing(t *testing.T) {
	d := gpu(t)
	k := loadKernels(t, d)
	s := newStream(t, d)
	const n = 100000
	p := alloc(t, d, 4*n)
	a := args(p, uint32(0xC0FFEE), uint64(n))
	require.NoError(t, s.Launch(k.fill, driver.Dim3{X: (n + 255) / 256, Y: 1, Z: 1}, driver.Dim3{X: 256, Y: 1, Z: 1}, 0, a))
	for i, v := range download(t, s, p, n) {
		if v != 0xC0FFEE {
			t.Fatalf("word %d = %#x", i, v)
		}
	}
	allocs := testing.AllocsPerRun(200, func() {
		if err := s.Launch(k.empty, one, one, 0, nil); err != nil {
			panic(err)
		}
	})
	assert.Zero(t, allocs, "a launch allocates nothing")
	require.NoError(t, s.Synchronize())
}

func TestHiddenSymbolDisablesOnlyItsFeature(t *testing.T) {
	d := gpu(t)
	s := newStream(t, d)
	restore := d.HideSymbol("cuMemAllocAsync")
	_, err := s.AllocAsync(1024)
	require.Error(t, err)
	assert.ErrorIs(t, err, driver.ErrSymbolMissing)
	assert.Contains(t, err.Error(), "cuMemAllocAsync")
	p := alloc(t, d, 1024)
	require.NoError(t, s.Memset32(p, 5, 256))
	assert.Equal(t, uint32(5), download(t, s, p, 1)[0])
	restore()
	q, err := s.AllocAsync(1024)
	require.NoError(t, err)
	require.NoError(t, s.FreeAsync(q))
	require.NoError(t, s.Synchronize())

	// The versioned name works too.
	restore = d.HideSymbol("cuMemcpyDtoHAsync_v2")
	var x uint32
	err = s.CopyDtoH(unsafe.Pointer(&x), p, 4)
	restore()
	assert.ErrorIs(t, err, driver.ErrSymbolMissing)
	assert.Contains(t, err.Error(), "cuMemcpyDtoHAsync_v2")
}

func TestMemPool(t *testing.T) {
	d := gpu(t)
	if !d.info.MemoryPools {
		t.Skip("device has no memory pools")
	}
	s := newStream(t, d)
	pool, err := d.NewMemPool(1 << 20)
	require.NoError(t, err)
	p, err := pool.AllocAsync(8<<20, s)
	require.NoError(t, err)
	require.NoError(t, s.Memset32(p, 9, 2<<20))
	require.NoError(t, s.Synchronize())
	reserved, used, err := pool.Usage()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, used, uint64(8<<20))
	assert.GreaterOrEqual(t, reserved, used)
	require.NoError(t, pool.FreeAsync(p, s))
	require.NoError(t, s.Synchronize())
	require.NoError(t, pool.SetReleaseThreshold(0))
	require.NoError(t, pool.TrimTo(0))
	reserved, used, err = pool.Usage()
	require.NoError(t, err)
	assert.Zero(t, used)
	assert.Zero(t, reserved, "trimmed to nothing")
	require.NoError(t, pool.Close())
	assert.ErrorIs(t, pool.Close(), driver.ErrClosed)

	// The default pool through the stream.
	q, err := s.AllocAsync(1 << 20)
	require.NoError(t, err)
	require.NoError(t, s.FreeAsync(q))
	require.NoError(t, s.Synchronize())
}

// 64 goroutines, each on its own stream: contexts are made current per OS
// thread inside the shim, so goroutines may land on any thread.
func TestConcurrentStreams(t *testing.T) {
	d := gpu(t)
	k := loadKernels(t, d)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 64 {
		wg.Go(func() {
			err := func() error {
				st, err := d.NewStream()
				if err != nil {
					return err
				}
				defer st.Close()
				s := st.(*stream)
				for i := range 20 {
					p, err := s.AllocAsync(4096)
					if err != nil {
						return err
					}
					v := uint32(g<<16 | i)
					if err := s.Launch(k.fill, one, driver.Dim3{X: 1024, Y: 1, Z: 1}, 0, args(p, v, uint64(1024))); err != nil {
						return err
					}
					got := make([]uint32, 1024)
					if err := s.CopyDtoH(unsafe.Pointer(&got[0]), p, 4096); err != nil {
						return err
					}
					if err := s.FreeAsync(p); err != nil {
						return err
					}
					for j, x := range got {
						if x != v {
							return fmt.Errorf("goroutine %d round %d word %d = %#x, want %#x", g, i, j, x, v)
						}
					}
				}
				return s.Synchronize()
			}()
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestPeers(t *testing.T) {
	devs := gpus(t)
	a := devs[0].(*device)
	ok, err := a.CanAccessPeer(a)
	require.NoError(t, err)
	assert.True(t, ok)
	require.NoError(t, a.EnablePeerAccess(a))
	if len(devs) < 2 {
		t.Skip("needs two CUDA devices")
	}
	b := devs[1].(*device)
	ok, err = a.CanAccessPeer(b)
	require.NoError(t, err)
	if !ok {
		assert.ErrorIs(t, a.EnablePeerAccess(b), driver.ErrPeerAccessUnsupported)
		return
	}
	require.NoError(t, a.EnablePeerAccess(b))
	require.NoError(t, a.EnablePeerAccess(b), "enabling twice succeeds")
	s := newStream(t, a)
	pa, pb := alloc(t, a, 4096), alloc(t, b, 4096)
	require.NoError(t, s.Memset32(pa, 77, 1024))
	require.NoError(t, s.CopyPeer(pb, b, pa, a, 4096))
	sb := newStream(t, b)
	require.NoError(t, s.Synchronize())
	assert.Equal(t, uint32(77), download(t, sb, pb, 1)[0])
}

const stickyChildEnv = "GPUARR_CUDA_STICKY_CHILD"

// An illegal address poisons the device for good, so it runs in a child
// process: this test re-executes the test binary for TestStickyChild.
func TestStickyErrorPoisonsDevice(t *testing.T) {
	gpu(t)
	if os.Getenv(stickyChildEnv) != "" {
		t.Skip("in the child")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStickyChild$", "-test.v")
	cmd.Env = append(os.Environ(), stickyChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	require.NoError(t, err)
	assert.Contains(t, string(out), "--- PASS: TestStickyChild")
}

func TestStickyChild(t *testing.T) {
	if os.Getenv(stickyChildEnv) == "" {
		t.Skip("run by TestStickyErrorPoisonsDevice")
	}
	d := gpu(t)
	k := loadKernels(t, d)
	st, err := d.NewStream()
	require.NoError(t, err)
	s := st.(*stream)
	require.NoError(t, s.Launch(k.store, one, one, 0, args(driver.Ptr(8))))
	err = s.Synchronize()
	require.Error(t, err)
	t.Logf("first failure: %v", err)
	assert.ErrorIs(t, err, driver.ErrDeviceLost)
	_, err = d.Alloc(4096)
	require.Error(t, err)
	t.Logf("then: %v", err)
	assert.ErrorIs(t, err, driver.ErrDeviceLost)
	assert.Contains(t, err.Error(), "cuMemAlloc_v2")
	assert.Contains(t, err.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS")
	_, err = d.NewStream()
	assert.ErrorIs(t, err, driver.ErrDeviceLost)
	var de *driver.Error
	require.True(t, errors.As(err, &de))
}

func BenchmarkLaunchEmpty(b *testing.B) {
	d := gpu(b)
	k := loadKernels(b, d)
	s := newStream(b, d)
	for i := 0; b.Loop(); i++ {
		if err := s.Launch(k.empty, one, one, 0, nil); err != nil {
			b.Fatal(err)
		}
		if i%256 == 255 {
			b.StopTimer()
			_ = s.Synchronize()
			b.StartTimer()
		}
	}
}
