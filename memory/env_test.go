package memory

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseLimit(t *testing.T) {
	const total = 80 << 30
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"1073741824", 1 << 30},
		{"512MB", 512e6},
		{"4GiB", 4 << 30},
		{" 1.5 GiB ", 3 << 29},
		{"80%", 64 << 30},
		{"12.5%", 10 << 30},
		{"100%", total},
		{"2kib", 2048},
	} {
		got, err := ParseLimit(tc.in, total)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	for _, bad := range []string{"", "abc", "-5", "0", "0%", "150%", "12XB", "4G", "%", "1e9", "x%", "1..5GiB"} {
		_, err := ParseLimit(bad, total)
		require.Error(t, err, bad)
	}
}

func TestConfigFromEnv(t *testing.T) {
	dev := defaultDevice(t)
	total := dev.TotalMemory()
	cfg, err := ConfigFromEnv(dev, envOf(nil))
	require.NoError(t, err)
	require.Equal(t, Config{Pool: KindCaching}, cfg)

	cfg, err = ConfigFromEnv(dev, envOf(map[string]string{
		EnvPool: " None ", EnvHardLimit: "50%", EnvSoftLimit: "512MB", EnvTrace: "100",
	}))
	require.NoError(t, err)
	require.Equal(t, Config{Pool: KindDirect, HardLimit: total / 2, SoftLimit: 512e6, TraceEvents: 100}, cfg)

	for _, tc := range []struct{ name, value string }{
		{EnvPool, "rmm"},
		{EnvHardLimit, "lots"},
		{EnvHardLimit, "120%"},
		{EnvSoftLimit, "0"},
		{EnvSoftLimit, "4 gigs"},
		{EnvTrace, "-1"},
		{EnvTrace, "many"},
		{EnvExpandable, "yes please"},
	} {
		_, err := ConfigFromEnv(dev, envOf(map[string]string{tc.name: tc.value}))
		require.Error(t, err, "%s=%s", tc.name, tc.value)
		require.ErrorIs(t, err, device.ErrBadConfig)
		require.Contains(t, err.Error(), tc.name)
		require.Contains(t, err.Error(), tc.value)
		t.Log(err)
	}
}

func TestNewFromConfig(t *testing.T) {
	dev := defaultDevice(t)
	s := dev.DefaultStream()
	kinds := []string{KindCaching, KindDirect}
	if dev.Info().MemoryPools {
		kinds = append(kinds, KindDriverPool)
	} else {
		_, _, err := New(dev, Config{Pool: KindDriverPool})
		require.ErrorIs(t, err, device.ErrBadConfig)
		require.Contains(t, err.Error(), EnvPool)
	}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			r, tr, err := New(dev, Config{Pool: kind, HardLimit: 8 << 20, SoftLimit: 1 << 20, TraceEvents: 16})
			require.NoError(t, err)
			require.NotNil(t, tr)
			b, err := r.Alloc(s, 1000)
			require.NoError(t, err)
			_, err = r.Alloc(s, 9<<20)
			require.ErrorIs(t, err, device.ErrOutOfMemory)
			require.Contains(t, err.Error(), "hard 8.0 MiB")
			st := r.Stats()
			require.Equal(t, kind, st.Kind)
			require.Equal(t, uint64(8<<20), st.HardLimit)
			require.Equal(t, uint64(1), st.Allocations.Current)
			require.NoError(t, r.Free(b))
			require.NoError(t, r.EmptyCache())
			ev := tr.Events()
			require.NotEmpty(t, ev)
			require.Equal(t, "alloc", ev[0].Op)
		})
	}
}

func TestDefaultAndStatus(t *testing.T) {
	dev := defaultDevice(t)
	r, err := Default(dev)
	require.NoError(t, err)
	r2, err := Default(dev)
	require.NoError(t, err)
	require.Same(t, r, r2)
	b, err := r.Alloc(nil, 100)
	require.NoError(t, err)
	status := Status(dev)
	t.Log(status)
	require.Contains(t, status, dev.String())
	require.Contains(t, status, "used")
	require.Contains(t, status, "reserved")
	require.NoError(t, r.Free(b))
}
