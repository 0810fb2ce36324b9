package unified_test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/memory"
	"github.com/gpuarr/gpuarr/unified"
)

// managedRoom is how many bytes of managed memory dev may hold beside
// what is allocated now, once the pools gave their cached memory back:
// what the hard limit leaves (it counts the default pool's reserved bytes
// and the managed bytes), else the device's free memory less the managed
// bytes not yet resident there.
func managedRoom(t testing.TB, dev *device.Device) uint64 {
	t.Helper()
	emptyCaches(t, dev)
	free, total, err := dev.MemInfo()
	require.NoError(t, err)
	u := memory.ManagedUsage(dev, free, total)
	room := free - min(free, u.Reserved-u.Resident)
	def, err := memory.Default(dev)
	require.NoError(t, err)
	if hl := def.Stats().HardLimit; hl > 0 {
		used := def.Stats().ReservedBytes.Current + u.Reserved
		room = min(room, hl-min(hl, used))
	}
	return room
}

// dropInLoop allocates unified arrays (with alloc) of room/8 bytes, ten
// times room in all, and drops each: none may fail. The room is at most
// maxLoopRoom (see ballast). The last two stay reachable and are
// checked, so a reclaim that freed a live array shows as a wrong value
// (poison in checking mode). The managed memory in use never exceeds the
// room the loop started with plus one array (and an eighth of one).
func dropInLoop(t *testing.T, alloc func(n int) (*gpuarr.Array[uint8], error)) {
	dev := testDevice(t)
	collect()
	gcpressure.WaitIdle()
	ballast(t, dev)
	room := managedRoom(t, dev)
	base := managedInUse(t, dev)
	n := int(room / 8)
	require.Greater(t, n, 1<<16, "too little room on %s to test", dev)
	before := gcpressure.Stats()
	var ring [2]*gpuarr.Array[uint8]
	peak := uint64(0)
	for i := range 80 {
		a, err := alloc(n)
		require.NoError(t, err, "array %d of %d bytes, with %d bytes of room", i, n, room)
		v, err := unified.Host(a)
		require.NoError(t, err)
		v.Set(0, uint8(i))
		v.Set(n-1, uint8(i))
		if old := ring[i%2]; old != nil {
			ov, err := unified.Host(old)
			require.NoError(t, err)
			require.Equal(t, [2]uint8{uint8(i - 2), uint8(i - 2)}, [2]uint8{ov.At(0), ov.At(n - 1)}, "array %d, still reachable", i-2)
		}
		ring[i%2] = a
		peak = max(peak, managedInUse(t, dev)-min(base, managedInUse(t, dev)))
	}
	gcpressure.WaitIdle()
	after := gcpressure.Stats()
	eager := after.Eager.Collections - before.Eager.Collections
	ladder := after.LadderRuns() - before.LadderRuns()
	t.Logf("%s, room %s: 80 arrays of %s, %d eager collections, %d ladder runs, peak %s",
		dev, memory.FormatBytes(room), memory.FormatBytes(uint64(n)), eager, ladder, memory.FormatBytes(peak))
	assert.Positive(t, eager+ladder, "dropped arrays were reclaimed")
	// The slack: the pool rounds each array up (to 2 MiB on GPUs), and the
	// driver's free memory, read once for the room, moves by its own use.
	assert.LessOrEqual(t, peak, room+uint64(n)+uint64(n)/8, "managed memory stayed within the room (and one array)")
}

// maxLoopRoom bounds the room dropInLoop churns through: on a large GPU,
// ten times its memory in managed allocations of an eighth of it each
// takes minutes of driver time and proves nothing more.
const maxLoopRoom = 4 << 30

// ballast takes dev's free memory beyond maxLoopRoom (and 256 MiB for the
// libraries) in device memory outside the pools (memory.Direct), given
// back when the test ends, so that the device has that little room: the
// managed arrays then run out of it as on a small device. Nothing on a
// device with less free memory (the host backend's).
func ballast(t *testing.T, dev *device.Device) {
	emptyCaches(t, dev)
	free, _, err := dev.MemInfo()
	require.NoError(t, err)
	const spare = 256 << 20
	if free <= maxLoopRoom+spare {
		return
	}
	d := memory.Direct(dev)
	b, err := d.Alloc(nil, free-maxLoopRoom-spare)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Free(b)) })
	t.Logf("ballast: %s of %s's %s free taken", memory.FormatBytes(b.Size()), dev, memory.FormatBytes(free))
}

func emptyUnified(n int) (*gpuarr.Array[uint8], error) { return unified.Empty[uint8](gpuarr.Shape{n}) }

// Unified arrays allocated and dropped in a loop, ten times the memory
// they may use, are reclaimed in time: no allocation fails. (Before, they
// went through neither eager collection nor the reclaim ladder: the
// allocation past the hard limit, or past the device's free memory, failed.)
func TestDroppedArraysAreReclaimed(t *testing.T) {
	if os.Getenv(reclaimChildEnv) != "" {
		t.Skip("in the child")
	}
	for _, eager := range []bool{true, false} {
		t.Run(fmt.Sprintf("eager=%v", eager), func(t *testing.T) {
			defer gcpressure.SetEager(gcpressure.SetEager(eager))
			dropInLoop(t, emptyUnified)
		})
	}
}

const reclaimChildEnv = "GPUARR_UNIFIED_RECLAIM_CHILD"

// The loop again, in child processes under the settings: a 64 MiB
// hard limit, and (on the host backend) a 256 MiB device with no limit,
// where the refusal to oversubscribe is what runs out; each with eager
// collection on and off.
func TestDroppedArraysAreReclaimedUnderLimits(t *testing.T) {
	dev := testDevice(t)
	if os.Getenv(reclaimChildEnv) != "" {
		t.Skip("in the child")
	}
	envs := map[string][]string{"hard limit": {memory.EnvHardLimit + "=64MiB"}}
	if dev.Backend() == "host" {
		envs["small device"] = []string{memory.EnvHardLimit + "=", "GPUARR_HOST_MEMORY=256MiB", device.EnvDevice + "=host"}
	}
	for name, env := range envs {
		for _, eager := range []string{"true", "false"} {
			t.Run(name+" eager="+eager, func(t *testing.T) {
				cmd := exec.Command(os.Args[0], "-test.run=^TestDroppedArraysChild$", "-test.v", "-test.count=1")
				cmd.Env = append(append(os.Environ(), reclaimChildEnv+"=1", "GPUARR_GC_EARLY="+eager), env...)
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "the child failed:\n%s", out)
				assert.Contains(t, string(out), "--- PASS: TestDroppedArraysChild")
				t.Logf("child:\n%s", out)
			})
		}
	}
}

func TestDroppedArraysChild(t *testing.T) {
	if os.Getenv(reclaimChildEnv) == "" {
		t.Skip("run by TestDroppedArraysAreReclaimedUnderLimits")
	}
	dropInLoop(t, emptyUnified)
}

// garbage allocates unified arrays of n bytes and drops them.
func garbage(t *testing.T, count, n int) {
	for range count {
		a, err := unified.Empty[uint8](gpuarr.Shape{n})
		require.NoError(t, err)
		v, err := unified.Host(a)
		require.NoError(t, err)
		v.Set(n-1, 1)
	}
}

// The refusal to oversubscribe (or to pass the hard limit) reclaims
// first: with eager collection off and dropped arrays holding most of the
// room, an allocation that only fits once they are freed succeeds.
// (Before, the refusal came at once.)
func TestRefusalReclaimsFirst(t *testing.T) {
	dev := testDevice(t)
	defer gcpressure.SetEager(gcpressure.SetEager(false))
	collect()
	gcpressure.WaitIdle()
	room := managedRoom(t, dev)
	n := int(room / 4)
	require.Greater(t, n, 1<<16, "too little room on %s to test", dev)
	garbage(t, 3, n)
	require.Less(t, managedRoom(t, dev), uint64(2*n), "the garbage is still allocated")
	before := gcpressure.Stats().LadderRuns()
	a, err := unified.Empty[uint8](gpuarr.Shape{2 * n})
	require.NoError(t, err, "room for it once the garbage is collected")
	defer a.Release()
	assert.Greater(t, gcpressure.Stats().LadderRuns(), before, "the reclaim ladder ran")

	// What no reclaim can make room for is still refused.
	// What no reclaim can make room for (a holds half of it) is still
	// refused.
	_, err = unified.Empty[uint8](gpuarr.Shape{int(room)})
	require.Error(t, err)
	assert.ErrorIs(t, err, device.ErrOutOfMemory)
}

// Pinned arrays dropped in a loop are collected too, their host-memory
// charge given back.
func TestDroppedPinnedArraysAreCollected(t *testing.T) {
	dev := testDevice(t)
	collect()
	charged := gcpressure.HostCharged()
	for i := range 64 {
		p, err := unified.NewPinned[float32](1<<18, dev)
		require.NoError(t, err, "pinned array %d", i)
		require.NoError(t, p.Borrow(func(s []float32) error { s[0] = float32(i); return nil }))
	}
	collect()
	assert.Equal(t, charged, gcpressure.HostCharged(), "the dropped pinned arrays gave their charge back")
}
