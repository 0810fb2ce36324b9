package host

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
)

func TestParsePeers(t *testing.T) {
	pairs := func(ps ...[2]int) peerRule {
		r := peerRule{pairs: map[[2]int]bool{}}
		for _, p := range ps {
			r.pairs[p], r.pairs[[2]int{p[1], p[0]}] = true, true
		}
		return r
	}
	cases := []struct {
		in   string
		want peerRule
		bad  bool
	}{
		{in: "", want: peerRule{all: true}},
		{in: "all", want: peerRule{all: true}},
		{in: " ALL ", want: peerRule{all: true}},
		{in: "none", want: peerRule{}},
		{in: "0-1", want: pairs([2]int{0, 1})},
		{in: "0-1,2-3", want: pairs([2]int{0, 1}, [2]int{2, 3})},
		{in: " 3 - 1 , 0-2 ", want: pairs([2]int{1, 3}, [2]int{0, 2})},
		{in: "0-4", bad: true},
		{in: "0-1,", bad: true},
		{in: "0", bad: true},
		{in: "a-b", bad: true},
		{in: "2-2", bad: true},
		{in: "-1-0", bad: true},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := parsePeers(c.in, 4)
			if c.bad {
				require.Error(t, err)
				assert.ErrorIs(t, err, driver.ErrBadConfig)
				assert.Contains(t, err.Error(), EnvPeers)
				assert.Contains(t, err.Error(), c.in)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestPeerAccessRules(t *testing.T) {
	rule, err := parsePeers("0-1", 3)
	require.NoError(t, err)
	sys := testSystem(t, withDevices(3), func(c *config) { c.peers = rule })
	d0, d1, d2 := sys.devs[0], sys.devs[1], sys.devs[2]

	for _, c := range []struct {
		a, b *device
		want bool
	}{{d0, d1, true}, {d1, d0, true}, {d0, d2, false}, {d2, d1, false}, {d2, d2, true}} {
		got, err := c.a.CanAccessPeer(c.b)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%s → %s", c.a, c.b)
	}

	err = d0.EnablePeerAccess(d2)
	assert.ErrorIs(t, err, driver.ErrPeerAccessUnsupported)
	assert.Contains(t, err.Error(), "host:0")
	assert.Contains(t, err.Error(), "host:2")
	require.NoError(t, d0.EnablePeerAccess(d1))
	require.NoError(t, d0.EnablePeerAccess(d1), "enabling twice succeeds")

	// Peer access is directional: 0 may touch 1's memory, not the reverse.
	k0, k1 := testKernels(t, d0), testKernels(t, d1)
	s0, s1 := newTestStream(t, d0), newTestStream(t, d1)
	m0, m1, m2 := newTestAlloc(t, d0, 8), newTestAlloc(t, d1, 8), newTestAlloc(t, d2, 8)
	launch(t, s0, k0["touch"], m1, uint64(8))
	require.NoError(t, s0.Synchronize())
	launch(t, s1, k1["touch"], m0, uint64(8))
	err = s1.Synchronize()
	assert.Equal(t, driver.IllegalAddress, code(t, err))
	assert.Contains(t, err.Error(), "host:1")
	assert.Contains(t, err.Error(), "memory of host:0")
	launch(t, s0, k0["touch"], m2, uint64(8))
	assert.Equal(t, driver.IllegalAddress, code(t, s0.Synchronize()))

	// Copies between devices need no peer access.
	require.NoError(t, s0.Memset8(m0, 0xAB, 8))
	require.NoError(t, s0.CopyPeer(m2, d2, m0, d0, 8))
	assert.Equal(t, []byte{0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB}, download[byte](t, s0, m2, 8))
	err = s0.CopyPeer(m2, d1, m0, d0, 8)
	assert.Equal(t, driver.InvalidValue, code(t, err), "destination on the wrong device")
	assert.Contains(t, err.Error(), "host:2")

	// Refusing a pair revokes access enabled before.
	sys.peers.set(0, 1, false)
	ok, err := d0.CanAccessPeer(d1)
	require.NoError(t, err)
	assert.False(t, ok)
	launch(t, s0, k0["touch"], m1, uint64(8))
	assert.Equal(t, driver.IllegalAddress, code(t, s0.Synchronize()))
	assert.Equal(t, driver.IllegalAddress, code(t, d0.Synchronize()), "the device saw its first failure too")
	assert.Equal(t, driver.IllegalAddress, code(t, d1.Synchronize()))
}

// SetPeerLink amends a device set's matrix, whatever GPUARR_HOST_PEERS
// says, in both directions; it refuses devices of another set and a
// device paired with itself.
func TestSetPeerLink(t *testing.T) {
	sys := testSystem(t, withDevices(2), func(c *config) { c.peers = peerRule{} })
	d0, d1 := sys.devs[0], sys.devs[1]
	var links driver.PeerLinks = d0

	require.NoError(t, links.SetPeerLink(d1, true))
	ok, err := d1.CanAccessPeer(d0)
	require.NoError(t, err)
	assert.True(t, ok, "both directions")
	require.NoError(t, d0.EnablePeerAccess(d1))
	assert.True(t, d0.peerOK(d1))

	require.NoError(t, d1.SetPeerLink(d0, false))
	ok, err = d0.CanAccessPeer(d1)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.False(t, d0.peerOK(d1), "refusing revoked the access enabled before")
	assert.ErrorIs(t, d0.EnablePeerAccess(d1), driver.ErrPeerAccessUnsupported)

	err = d0.SetPeerLink(d0, true)
	assert.Equal(t, driver.InvalidValue, code(t, err))
	assert.Contains(t, err.Error(), "always its own peer")
	other := testSystem(t).devs[0]
	err = d0.SetPeerLink(other, true)
	assert.Equal(t, driver.InvalidValue, code(t, err))
	assert.Contains(t, err.Error(), "not devices of one host backend")
}
