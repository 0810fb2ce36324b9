package host

import (
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
)

func TestParseConfig(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want config
		bad  string // the variable a malformed value is blamed on
	}{
		{name: "defaults", want: config{devices: 1, memory: 2 << 30, peers: peerRule{all: true}}},
		{name: "everything", env: map[string]string{EnvDevices: "3", EnvMemory: "64MiB", EnvPeers: "none", EnvCheck: "1"},
			want: config{devices: 3, memory: 64 << 20, check: true}},
		{name: "pairs", env: map[string]string{EnvDevices: "4", EnvPeers: "0-1, 2-3"},
			want: config{devices: 4, memory: 2 << 30, peers: peerRule{pairs: map[[2]int]bool{{0, 1}: true, {1, 0}: true, {2, 3}: true, {3, 2}: true}}}},
		{name: "check off", env: map[string]string{EnvCheck: "false"}, want: config{devices: 1, memory: 2 << 30, peers: peerRule{all: true}}},
		{name: "devices zero", env: map[string]string{EnvDevices: "0"}, bad: EnvDevices},
		{name: "devices word", env: map[string]string{EnvDevices: "two"}, bad: EnvDevices},
		{name: "devices huge", env: map[string]string{EnvDevices: "1000"}, bad: EnvDevices},
		{name: "memory unit", env: map[string]string{EnvMemory: "2G"}, bad: EnvMemory},
		{name: "memory zero", env: map[string]string{EnvMemory: "0"}, bad: EnvMemory},
		{name: "memory negative", env: map[string]string{EnvMemory: "-5MiB"}, bad: EnvMemory},
		{name: "peers beyond devices", env: map[string]string{EnvDevices: "2", EnvPeers: "0-2"}, bad: EnvPeers},
		{name: "peers self", env: map[string]string{EnvDevices: "2", EnvPeers: "1-1"}, bad: EnvPeers},
		{name: "peers syntax", env: map[string]string{EnvDevices: "2", EnvPeers: "0:1"}, bad: EnvPeers},
		{name: "peers word", env: map[string]string{EnvPeers: "some"}, bad: EnvPeers},
		{name: "check word", env: map[string]string{EnvCheck: "sometimes"}, bad: EnvCheck},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseConfig(func(k string) string { return c.env[k] })
			if c.bad != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, driver.ErrBadConfig)
				assert.Contains(t, err.Error(), c.bad+"=")
				assert.Contains(t, err.Error(), c.env[c.bad], "the error names the value")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

// The process's devices follow the environment the test binary runs under
// (GPUARR_HOST_DEVICES=2 makes two).
func TestBackendDevicesFollowEnvironment(t *testing.T) {
	want, err := parseConfig(os.Getenv)
	require.NoError(t, err)
	assert.Equal(t, "host", Backend().Name())
	devs, err := Backend().Devices()
	require.NoError(t, err)
	require.Len(t, devs, want.devices)
	again, err := Backend().Devices()
	require.NoError(t, err)
	assert.Same(t, devs[0], again[0], "devices are opened once per process")
	assert.Equal(t, want.check, Checking())
	for i, d := range devs {
		info := d.Info()
		assert.Equal(t, driver.Info{
			Backend: "host", Ordinal: i, Name: info.Name, ComputeMajor: 9, ComputeMinor: 0,
			TotalMemory: want.memory, Multiprocessors: runtime.GOMAXPROCS(0),
			MemoryPools: true, ManagedMemory: true, ConcurrentManagedAccess: true, UnifiedAddressing: true,
		}, info)
		assert.Contains(t, info.Name, "gpuarr host device")
		_, total, err := d.MemInfo()
		require.NoError(t, err)
		assert.Equal(t, want.memory, total)
	}
}
