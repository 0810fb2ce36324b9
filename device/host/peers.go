package host

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuarr/gpuarr/device/driver"
)

// peerRule is the peer matrix GPUARR_HOST_PEERS describes. Pairs are
// symmetric, like the hardware links they stand for.
type peerRule struct {
	all   bool
	pairs map[[2]int]bool // both orders stored
}

// parsePeers reads "all" (or empty), "none", or pairs such as "0-1,2-3"
// whose ordinals must name one of n devices.
func parsePeers(v string, n int) (peerRule, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "all":
		return peerRule{all: true}, nil
	case "none":
		return peerRule{}, nil
	}
	bad := func(reason string) error {
		return &driver.ConfigError{Var: EnvPeers, Value: v, Reason: reason}
	}
	r := peerRule{pairs: map[[2]int]bool{}}
	for part := range strings.SplitSeq(v, ",") {
		as, bs, ok := strings.Cut(strings.TrimSpace(part), "-")
		a, errA := strconv.Atoi(strings.TrimSpace(as))
		b, errB := strconv.Atoi(strings.TrimSpace(bs))
		if !ok || errA != nil || errB != nil {
			return peerRule{}, bad(fmt.Sprintf("pair %q: want all, none or pairs of device ordinals such as 0-1,2-3", strings.TrimSpace(part)))
		}
		if a < 0 || b < 0 || a >= n || b >= n {
			return peerRule{}, bad(fmt.Sprintf("pair %d-%d names a device beyond the %d configured (%s)", a, b, n, EnvDevices))
		}
		if a == b {
			return peerRule{}, bad(fmt.Sprintf("pair %d-%d: a device is always its own peer", a, b))
		}
		r.pairs[[2]int{a, b}], r.pairs[[2]int{b, a}] = true, true
	}
	return r, nil
}

// peerMatrix is one device set's peer state: which pairs could be peers
// (the rule, amended by SetPeerLink) and which directions are enabled.
type peerMatrix struct {
	mu       sync.RWMutex
	rule     peerRule
	override map[[2]int]bool
	enabled  map[[2]int]bool // {from, to}: kernels on from may touch to's memory
}

func newPeerMatrix(r peerRule) *peerMatrix {
	return &peerMatrix{rule: r, override: map[[2]int]bool{}, enabled: map[[2]int]bool{}}
}

func (m *peerMatrix) setRule(r peerRule) {
	m.mu.Lock()
	m.rule = r
	m.mu.Unlock()
}

func (m *peerMatrix) can(a, b int) bool {
	if a == b {
		return true
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.canLocked(a, b)
}

func (m *peerMatrix) canLocked(a, b int) bool {
	if ok, set := m.override[[2]int{a, b}]; set {
		return ok
	}
	return m.rule.all || m.rule.pairs[[2]int{a, b}]
}

// set changes whether a and b may be peers (both directions). Refusing a
// pair also revokes access already enabled between them, so a test can
// put the matrix back the way it found it.
func (m *peerMatrix) set(a, b int, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.override[[2]int{a, b}], m.override[[2]int{b, a}] = ok, ok
	if !ok {
		delete(m.enabled, [2]int{a, b})
		delete(m.enabled, [2]int{b, a})
	}
}

// enable lets kernels on from touch to's memory; it reports false when the
// pair cannot be peers. Enabling twice succeeds.
func (m *peerMatrix) enable(from, to int) bool {
	if from == to {
		return true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.canLocked(from, to) {
		return false
	}
	m.enabled[[2]int{from, to}] = true
	return true
}

func (m *peerMatrix) isEnabled(from, to int) bool {
	if from == to {
		return true
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.enabled[[2]int{from, to}]
}

// globalPeers is the matrix of the devices Backend().Devices() opens.
var globalPeers = newPeerMatrix(peerRule{all: true})

// SetPeerLink implements driver.PeerLinks: it changes whether d and peer
// can be peers, in both directions, overriding GPUARR_HOST_PEERS.
func (d *device) SetPeerLink(peer driver.Device, ok bool) error {
	const call = "SetPeerLink"
	p, isHost := peer.(*device)
	switch {
	case !isHost || p.sys != d.sys:
		return errorf(call, driver.InvalidValue, "%s and %v are not devices of one host backend", d, peer)
	case p == d:
		return errorf(call, driver.InvalidValue, "%s: a device is always its own peer", d)
	}
	d.sys.peers.set(d.ordinal, p.ordinal, ok)
	return nil
}

// CanAccessPeer reports whether this device can map peer's memory.
func (d *device) CanAccessPeer(peer driver.Device) (bool, error) {
	if err := d.symbol("cuDeviceCanAccessPeer"); err != nil {
		return false, err
	}
	p, ok := peer.(*device)
	if !ok || p.sys != d.sys {
		return false, nil
	}
	return d.sys.peers.can(d.ordinal, p.ordinal), nil
}

// EnablePeerAccess lets kernels on d touch peer's memory.
func (d *device) EnablePeerAccess(peer driver.Device) error {
	const call = "cuCtxEnablePeerAccess"
	if err := d.symbol(call); err != nil {
		return err
	}
	p, ok := peer.(*device)
	if !ok || p.sys != d.sys {
		return errorf(call, driver.PeerAccessUnsupported, "%s and %v are not devices of one host backend", d, peer)
	}
	if !d.sys.peers.enable(d.ordinal, p.ordinal) {
		return errorf(call, driver.PeerAccessUnsupported, "%s cannot access %s (%s)", d, p, EnvPeers)
	}
	return nil
}

// peerOK reports whether kernels on d may touch memory owned by owner.
func (d *device) peerOK(owner *device) bool {
	return owner == d || (owner.sys == d.sys && d.sys.peers.isEnabled(d.ordinal, owner.ordinal))
}
