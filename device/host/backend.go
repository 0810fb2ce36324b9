package host

import (
	"sync"

	"github.com/gpuarr/gpuarr/device/driver"
)

type backend struct{}

// Backend returns the host backend. Its devices are opened once per
// process, from the environment as first read.
func Backend() driver.Backend { return backend{} }

func (backend) Name() string { return "host" }

// Devices returns the process's host devices: GPUARR_HOST_DEVICES of them,
// each with GPUARR_HOST_MEMORY of capacity. A malformed variable fails with
// a *driver.ConfigError naming it and its value.
func (backend) Devices() ([]driver.Device, error) {
	sys, err := globalSystem()
	if err != nil {
		return nil, err
	}
	out := make([]driver.Device, len(sys.devs))
	for i, d := range sys.devs {
		out[i] = d
	}
	return out, nil
}

// system is one set of host devices sharing a peer matrix. The process has
// one (globalSystem); tests build private ones with their own capacity and
// checking mode.
type system struct {
	cfg   config
	peers *peerMatrix
	devs  []*device
}

func newSystem(cfg config, peers *peerMatrix) *system {
	sys := &system{cfg: cfg, peers: peers}
	for i := range cfg.devices {
		sys.devs = append(sys.devs, newDevice(sys, i))
	}
	return sys
}

var global struct {
	once sync.Once
	sys  *system
	err  error
}

func globalSystem() (*system, error) {
	global.once.Do(func() {
		cfg, err := loadEnv()
		if err != nil {
			global.err = err
			return
		}
		globalPeers.setRule(cfg.peers)
		global.sys = newSystem(cfg, globalPeers)
	})
	return global.sys, global.err
}

// errorf is driver.Errorf for the host backend: the error's message says
// what failed in words, without CUDA's call and result names.
func errorf(call string, code driver.Result, format string, args ...any) *driver.Error {
	return driver.PlainErrorf(call, code, format, args...)
}
