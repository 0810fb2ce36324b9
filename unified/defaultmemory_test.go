package unified_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/internal/testutil"
	"github.com/gpuarr/gpuarr/linalg"
	"github.com/gpuarr/gpuarr/memory"
	"github.com/gpuarr/gpuarr/unified"
)

// withDefaultMemory makes m dev's default memory for the test, and puts
// back the one it found (GPUARR_DEFAULT_MEMORY's, in the suite's second
// run) afterwards.
func withDefaultMemory(t *testing.T, dev *device.Device, m gpuarr.Memory) {
	t.Helper()
	was, err := gpuarr.DefaultMemory(dev)
	require.NoError(t, err)
	require.NoError(t, gpuarr.SetDefaultMemory(dev, m))
	t.Cleanup(func() { require.NoError(t, gpuarr.SetDefaultMemory(dev, was)) })
}

// hostValues reads a through a CPU view (not a copy).
func hostValues[T gpuarr.Numeric](t *testing.T, a *gpuarr.Array[T]) []T {
	t.Helper()
	v, err := unified.Host(a)
	require.NoError(t, err, "a CPU view of %s", a.Describe())
	var out []T
	for x := range v.Values() {
		out = append(out, x)
	}
	return out
}

// Under gpuarr.UnifiedMemory every array gpuarr allocates for its user is
// unified: constructors, Eval's results, reductions, Matmul, Clone, the
// random numbers, a library function's results (linalg), and the CPU
// reads each in place. Back under DeviceMemory, new arrays are device
// arrays again, and the CPU view refuses them with an error that says how
// to switch; the unified arrays made before keep their memory.
func TestDefaultMemoryCoversEveryAllocation(t *testing.T) {
	dev := testDevice(t)
	withDefaultMemory(t, dev, gpuarr.UnifiedMemory)
	m, err := gpuarr.DefaultMemory(dev)
	require.NoError(t, err)
	require.Equal(t, gpuarr.UnifiedMemory, m)

	x := testutil.Must(gpuarr.FromSlice([]float32{1, 2, 3, 4}, gpuarr.Shape{2, 2}))
	defer x.Release()
	made := map[string]*gpuarr.Array[float32]{
		"FromSlice": x,
		"Empty":     testutil.Must(gpuarr.Empty[float32](gpuarr.Shape{3})),
		"Zeros":     testutil.Must(gpuarr.Zeros[float32](gpuarr.Shape{2})),
		"Ones":      testutil.Must(gpuarr.Ones[float32](gpuarr.Shape{2})),
		"Full":      testutil.Must(gpuarr.Full(gpuarr.Shape{2}, float32(7))),
		"Eval":      testutil.Must(gpuarr.Eval[float32](gpuarr.Mul[float32](x, x))),
		"Sum":       testutil.Must(gpuarr.Sum[float32](x, gpuarr.Axis(0))),
		"Matmul":    testutil.Must(gpuarr.Matmul(x, x)),
		"Clone":     testutil.Must(gpuarr.Clone(x)),
		"RNG":       testutil.Must(gpuarr.Eval[float32](gpuarr.UniformExpr[float32](gpuarr.NewRNG(1), gpuarr.Shape{8}))),
		"Transpose": testutil.Must(x.Transpose()), // a view: its parent's memory
	}
	for name, a := range made {
		defer a.Release()
		mem, err := a.Memory()
		require.NoError(t, err)
		assert.Equal(t, gpuarr.UnifiedMemory, mem, name)
	}
	want := map[string][]float32{
		"FromSlice": {1, 2, 3, 4}, "Zeros": {0, 0}, "Ones": {1, 1}, "Full": {7, 7},
		"Eval": {1, 4, 9, 16}, "Sum": {4, 6}, "Matmul": {7, 10, 15, 22}, "Clone": {1, 2, 3, 4},
		"Transpose": {1, 3, 2, 4},
	}
	for name, w := range want {
		assert.Equal(t, w, hostValues(t, made[name]), name)
	}
	assert.Len(t, hostValues(t, made["Empty"]), 3)
	for _, r := range hostValues(t, made["RNG"]) {
		assert.True(t, r >= 0 && r < 1, "a uniform draw in [0, 1): %v", r)
	}

	// A library function's result (its workspace stays device memory).
	a := testutil.Must(gpuarr.FromSlice([]float64{3, 1, 1, 2}, gpuarr.Shape{2, 2}))
	defer a.Release()
	b := testutil.Must(gpuarr.FromSlice([]float64{9, 8}, gpuarr.Shape{2}))
	defer b.Release()
	sol := testutil.Must(linalg.Solve(a, b))
	defer sol.Release()
	got := hostValues(t, sol)
	assert.InDeltaSlice(t, []float64{2, 3}, got, 1e-12, "linalg.Solve's result, read in place")

	// The CPU writes in place and the GPU sees it, no copy.
	z := made["Zeros"]
	require.NoError(t, unified.Borrow(z, func(s []float32) error { s[0], s[1] = 5, 6; return nil }))
	twice := testutil.Must(gpuarr.Eval[float32](gpuarr.Add[float32](z, z)))
	defer twice.Release()
	assert.Equal(t, []float32{10, 12}, hostValues(t, twice))

	// Back to device memory.
	require.NoError(t, gpuarr.SetDefaultMemory(dev, gpuarr.DeviceMemory))
	d := testutil.Must(gpuarr.Zeros[float32](gpuarr.Shape{2}))
	defer d.Release()
	mem, err := d.Memory()
	require.NoError(t, err)
	assert.Equal(t, gpuarr.DeviceMemory, mem)
	_, err = unified.Host(d)
	require.ErrorIs(t, err, unified.ErrNotManaged)
	for _, how := range []string{"GPUARR_DEFAULT_MEMORY=unified", "gpuarr.SetDefaultMemory(dev, gpuarr.UnifiedMemory)", "unified.Empty", "ToSlice"} {
		assert.Contains(t, err.Error(), how, "the error says how to get an array the CPU reads")
	}
	err = unified.Prefetch(d, dev, dev.DefaultStream())
	require.ErrorIs(t, err, unified.ErrNotManaged)
	assert.Contains(t, err.Error(), "unified.Prefetch: ")
	assert.Contains(t, err.Error(), "GPUARR_DEFAULT_MEMORY=unified")
	assert.Equal(t, []float32{5, 6}, hostValues(t, z), "an array made under UnifiedMemory keeps its memory")
}

func TestDefaultMemoryArguments(t *testing.T) {
	dev := testDevice(t)
	assert.ErrorIs(t, gpuarr.SetDefaultMemory(nil, gpuarr.UnifiedMemory), gpuarr.ErrArgument)
	err := gpuarr.SetDefaultMemory(dev, gpuarr.Memory(9))
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "gpuarr.UnifiedMemory")
	_, err = gpuarr.DefaultMemory(nil)
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Equal(t, "unified", gpuarr.UnifiedMemory.String())
	assert.Equal(t, "device", gpuarr.DeviceMemory.String())
	_, err = (*gpuarr.Array[float32])(nil).Memory()
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
	a := testutil.Must(gpuarr.Zeros[float32](gpuarr.Shape{1}))
	require.NoError(t, a.Release())
	_, err = a.Memory()
	assert.ErrorIs(t, err, gpuarr.ErrReleased)
}

const defaultMemoryChildEnv = "GPUARR_UNIFIED_DEFAULT_MEMORY_CHILD"

// GPUARR_DEFAULT_MEMORY sets every device's default memory: "unified" (in
// any case) makes gpuarr's arrays unified, "device" device arrays; a
// malformed value fails every allocation with an error naming the
// variable, until SetDefaultMemory names a memory for the device.
func TestDefaultMemoryFromEnvironment(t *testing.T) {
	testDevice(t)
	if os.Getenv(defaultMemoryChildEnv) != "" {
		t.Skip("in the child")
	}
	for value, want := range map[string]string{
		" Unified ": "memory unified",
		"device":    "memory device",
		"":          "memory device",
		"garbage":   "refused",
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDefaultMemoryChild$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), defaultMemoryChildEnv+"=1", gpuarr.EnvDefaultMemory+"="+value)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s=%q: the child failed:\n%s", gpuarr.EnvDefaultMemory, value, out)
		assert.Contains(t, string(out), "child: "+want, "%s=%q:\n%s", gpuarr.EnvDefaultMemory, value, out)
		assert.Contains(t, string(out), "--- PASS: TestDefaultMemoryChild")
	}
}

func TestDefaultMemoryChild(t *testing.T) {
	if os.Getenv(defaultMemoryChildEnv) == "" {
		t.Skip("run by TestDefaultMemoryFromEnvironment")
	}
	dev := testDevice(t)
	a, err := gpuarr.Zeros[float32](gpuarr.Shape{4})
	if v := os.Getenv(gpuarr.EnvDefaultMemory); v == "garbage" {
		require.ErrorIs(t, err, device.ErrBadConfig)
		for _, part := range []string{"gpuarr.Zeros", gpuarr.EnvDefaultMemory, `"garbage"`, "device or unified"} {
			assert.Contains(t, err.Error(), part)
		}
		_, derr := gpuarr.DefaultMemory(dev)
		require.ErrorIs(t, derr, device.ErrBadConfig)
		// The device's own setting overrides the variable.
		require.NoError(t, gpuarr.SetDefaultMemory(dev, gpuarr.UnifiedMemory))
		a, err = gpuarr.Zeros[float32](gpuarr.Shape{4})
		require.NoError(t, err)
		assert.Equal(t, []float32{0, 0, 0, 0}, hostValues(t, a))
		t.Log("child: refused")
		return
	}
	require.NoError(t, err)
	mem, err := a.Memory()
	require.NoError(t, err)
	def, err := gpuarr.DefaultMemory(dev)
	require.NoError(t, err)
	require.Equal(t, def, mem)
	if mem == gpuarr.UnifiedMemory {
		assert.Equal(t, []float32{0, 0, 0, 0}, hostValues(t, a))
	} else {
		_, err := unified.Host(a)
		assert.ErrorIs(t, err, unified.ErrNotManaged)
	}
	t.Logf("child: memory %v", mem)
}

// The managed memory of unified arrays comes from a caching pool: a size
// freed before is handed out again without asking the driver. Without the
// cache (the host backend's checking mode, where freed managed memory is
// quarantined, and GPUARR_MEMORY_POOL=none) every array is an allocation
// of its own.
func TestManagedMemoryIsCached(t *testing.T) {
	dev := testDevice(t)
	withDefaultMemory(t, dev, gpuarr.UnifiedMemory)
	res, err := memory.DefaultManaged(dev)
	require.NoError(t, err)
	def, err := memory.Default(dev)
	require.NoError(t, err)
	_, checking := dev.Checking()
	cached := !checking && def.Stats().Kind != memory.KindDirect
	a := testutil.Must(gpuarr.Zeros[float32](gpuarr.Shape{1 << 18}))
	b := testutil.Must(unified.Zeros[float32](gpuarr.Shape{1 << 18}))
	require.NoError(t, a.Release())
	require.NoError(t, b.Release())
	before := res.Stats().SegmentsObtained
	for range 50 {
		a := testutil.Must(gpuarr.Zeros[float32](gpuarr.Shape{1 << 18}))
		b := testutil.Must(unified.Zeros[float32](gpuarr.Shape{1 << 18}))
		require.NoError(t, a.Release())
		require.NoError(t, b.Release())
	}
	obtained := res.Stats().SegmentsObtained - before
	if cached {
		assert.Zero(t, obtained, "the pool reused its memory")
		assert.Equal(t, memory.KindCaching, res.Stats().Kind)
	} else {
		assert.Equal(t, uint64(100), obtained, "uncached: an allocation per array")
	}
}

// A unified array whose memory the pool reuses from one that work queued
// on the stream still writes is not lent to the CPU before that work is
// done: the CPU's write comes after the old array's kernel, not under it.
// (Before, a fresh array counted as clean: the CPU wrote at once, and the
// slow kernel, queued for the released array, overwrote it.)
func TestReusedManagedMemoryWaitsForQueuedWork(t *testing.T) {
	dev := testDevice(t)
	ks := testutil.Kernels(t, dev)
	s := testutil.Stream(t, dev)
	one := device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}
	const n = 1 << 10
	reused := 0
	for trial := range 5 {
		a := testutil.Must(unified.Zeros[uint32](gpuarr.Shape{n}, unified.On(s)))
		pa := arrayhook.DevicePtr(a)
		// The kernel writes a[0] = 7 after 50 ms.
		require.NoError(t, gpuarr.Launch(ks.SpinWrite, one, gpuarr.Out(a), uint32(7), uint64(50_000_000), gpuarr.On(s)))
		require.NoError(t, a.Release())
		b := testutil.Must(unified.Empty[uint32](gpuarr.Shape{n}, unified.On(s)))
		if arrayhook.DevicePtr(b) == pa {
			reused++
		}
		require.NoError(t, unified.Borrow(b, func(v []uint32) error { v[0] = 42; return nil }))
		require.NoError(t, s.Synchronize())
		assert.Equal(t, uint32(42), hostValues(t, b)[0], "trial %d: the CPU's write came after the queued kernel", trial)
		require.NoError(t, b.Release())
	}
	_, checking := dev.Checking()
	if !checking {
		assert.Positive(t, reused, "the pool handed the released memory out again on its stream")
	}
}

// The first GPU use of a unified array after the CPU was lent it
// prefetches the array to the device on the using stream (one prefetch,
// for arrays of 64 KiB or more); uses after that, and arrays the CPU did
// not touch, prefetch nothing.
func TestGPUPrefetchAfterCPUAccess(t *testing.T) {
	dev := testDevice(t)
	withDefaultMemory(t, dev, gpuarr.UnifiedMemory)
	big := testutil.Must(unified.Zeros[float32](gpuarr.Shape{1 << 16})) // 256 KiB
	defer big.Release()
	small := testutil.Must(unified.Zeros[float32](gpuarr.Shape{256}))
	defer small.Release()
	untouched := testutil.Must(unified.Zeros[float32](gpuarr.Shape{1 << 16}))
	defer untouched.Release()
	use := func(a *gpuarr.Array[float32]) {
		t.Helper()
		require.NoError(t, gpuarr.EvalInto(a, gpuarr.Add[float32](a, gpuarr.Scalar[float32](1))))
	}
	p0 := unified.GPUPrefetches()
	use(untouched)
	use(untouched)
	assert.Equal(t, p0, unified.GPUPrefetches(), "no CPU access, no prefetch")

	require.NoError(t, unified.Borrow(big, func(s []float32) error { s[0] = 10; return nil }))
	require.NoError(t, unified.Borrow(small, func(s []float32) error { s[0] = 10; return nil }))
	use(big)
	assert.Equal(t, p0+1, unified.GPUPrefetches(), "the first GPU use after the CPU write")
	use(big)
	use(small)
	assert.Equal(t, p0+1, unified.GPUPrefetches(), "once per CPU access; not for a small array")
	v, err := unified.Host(big)
	require.NoError(t, err)
	assert.Equal(t, float32(12), v.At(0))
	assert.Equal(t, float32(2), v.At(1<<16-1))
	s := testutil.Stream(t, dev)
	out := testutil.Must(gpuarr.Zeros[float32](gpuarr.Shape{1 << 16}, gpuarr.On(s))) // its first GPU use
	defer out.Release()
	p1 := unified.GPUPrefetches()
	require.NoError(t, gpuarr.EvalInto(out, gpuarr.Mul[float32](big, gpuarr.Scalar[float32](2)), gpuarr.On(s)))
	assert.Equal(t, p1+1, unified.GPUPrefetches(), "a read on another stream after a View prefetches too")
	assert.Equal(t, float32(24), hostValues(t, out)[0])
	assert.Equal(t, float32(11), hostValues(t, small)[0])
}

// Fresh managed memory (a new segment's: no page placed yet) is
// prefetched to the device of its first GPU use, once, so the GPU does not
// fault it in page by page; memory the CPU touches first is placed by the
// CPU and prefetched at the GPU use after that, as any CPU access is.
func TestGPUPrefetchOfFreshMemory(t *testing.T) {
	dev := testDevice(t)
	withDefaultMemory(t, dev, gpuarr.UnifiedMemory)
	emptyCaches(t, dev)
	const n = 5 << 20 // 20 MiB: a segment of its own
	a := testutil.Must(gpuarr.Empty[float32](gpuarr.Shape{n}))
	defer a.Release()
	p0 := unified.GPUPrefetches()
	require.NoError(t, gpuarr.EvalInto(a, gpuarr.Scalar[float32](1)))
	assert.Equal(t, p0+1, unified.GPUPrefetches(), "the first GPU use of fresh memory")
	require.NoError(t, gpuarr.EvalInto(a, gpuarr.Add[float32](a, gpuarr.Scalar[float32](1))))
	assert.Equal(t, p0+1, unified.GPUPrefetches(), "a later GPU use")
	assert.Equal(t, float32(2), hostValues(t, a)[n-1])

	b := testutil.Must(unified.Empty[float32](gpuarr.Shape{n}))
	defer b.Release()
	require.NoError(t, unified.Borrow(b, func(v []float32) error { v[n-1] = 5; return nil }))
	p1 := unified.GPUPrefetches()
	require.NoError(t, gpuarr.EvalInto(b, gpuarr.Add[float32](b, gpuarr.Scalar[float32](1))))
	require.NoError(t, gpuarr.EvalInto(b, gpuarr.Add[float32](b, gpuarr.Scalar[float32](1))))
	assert.Equal(t, p1+1, unified.GPUPrefetches(), "one prefetch, at the first GPU use after the CPU's")
	assert.Equal(t, float32(7), hostValues(t, b)[n-1])
}

// Under UnifiedMemory the refusal to oversubscribe holds for gpuarr's own
// constructors: a request the device's free memory cannot hold fails
// with an error matching device.ErrOutOfMemory that carries the refusal,
// and allocates nothing.
func TestDefaultMemoryRefusesToOversubscribe(t *testing.T) {
	dev := testDevice(t)
	withDefaultMemory(t, dev, gpuarr.UnifiedMemory)
	emptyCaches(t, dev)
	free, _, err := dev.MemInfo()
	require.NoError(t, err)
	inUse := managedInUse(t, dev)
	_, err = gpuarr.Empty[float32](gpuarr.Shape{int(free/4) + 1<<20})
	require.Error(t, err)
	assert.ErrorIs(t, err, device.ErrOutOfMemory)
	var oe *unified.OversubscribeError
	require.True(t, errors.As(err, &oe), "the refusal: %v", err)
	assert.True(t, strings.HasPrefix(err.Error(), "gpuarr.Empty: "), err.Error())
	assert.Equal(t, inUse, managedInUse(t, dev), "nothing was allocated")
}

// Arrays gpuarr allocates under UnifiedMemory and the program drops are
// reclaimed as device arrays are, ten times the room they may use.
func TestDroppedDefaultArraysAreReclaimed(t *testing.T) {
	dev := testDevice(t)
	if os.Getenv(reclaimChildEnv) != "" {
		t.Skip("in the child")
	}
	withDefaultMemory(t, dev, gpuarr.UnifiedMemory)
	dropInLoop(t, func(n int) (*gpuarr.Array[uint8], error) { return gpuarr.Zeros[uint8](gpuarr.Shape{n}) })
}
