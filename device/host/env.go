package host

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/internal/units"
)

// The variables that shape the host backend. They are read once per process.
const (
	EnvDevices = "GPUARR_HOST_DEVICES" // number of host devices (default 1)
	EnvMemory  = "GPUARR_HOST_MEMORY"  // capacity of each device (default 2GiB)
	EnvPeers   = "GPUARR_HOST_PEERS"   // "all" (default), "none" or pairs "0-1,2-3"
	EnvCheck   = "GPUARR_HOST_CHECK"   // 1: random delays in stream work, poisoned frees
)

// DefaultMemory is a host device's capacity when GPUARR_HOST_MEMORY is unset.
const DefaultMemory = 2 << 30

// maxDevices bounds GPUARR_HOST_DEVICES; each device costs little, but a
// typo such as 1000 should fail loudly rather than start 1000 devices.
const maxDevices = 64

// config is everything the environment decides.
type config struct {
	devices int
	memory  uint64
	peers   peerRule
	check   bool
}

// parseConfig reads the host variables through getenv (os.Getenv in
// production, a map in tests). A malformed value is a *driver.ConfigError
// naming the variable and the value.
func parseConfig(getenv func(string) string) (config, error) {
	cfg := config{devices: 1, memory: DefaultMemory}
	var err error
	if cfg.check, err = parseCheck(getenv(EnvCheck)); err != nil {
		return cfg, err
	}
	if v := getenv(EnvDevices); v != "" {
		n, perr := strconv.Atoi(strings.TrimSpace(v))
		if perr != nil || n < 1 || n > maxDevices {
			return cfg, &driver.ConfigError{Var: EnvDevices, Value: v,
				Reason: fmt.Sprintf("want a device count from 1 to %d", maxDevices)}
		}
		cfg.devices = n
	}
	if v := getenv(EnvMemory); v != "" {
		n, perr := units.ParseSize(v)
		if perr != nil {
			return cfg, &driver.ConfigError{Var: EnvMemory, Value: v, Reason: perr.Error()}
		}
		if n == 0 {
			return cfg, &driver.ConfigError{Var: EnvMemory, Value: v, Reason: "capacity must be positive"}
		}
		cfg.memory = n
	}
	if cfg.peers, err = parsePeers(getenv(EnvPeers), cfg.devices); err != nil {
		return cfg, err
	}
	return cfg, nil
}

func parseCheck(v string) (bool, error) {
	if strings.TrimSpace(v) == "" {
		return false, nil
	}
	on, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, &driver.ConfigError{Var: EnvCheck, Value: v, Reason: "want 1 or 0 (true or false)"}
	}
	return on, nil
}

// env is the process's configuration, read on first use.
var env struct {
	once  sync.Once
	cfg   config
	err   error
	check bool // valid even when another variable is malformed
}

func loadEnv() (config, error) {
	env.once.Do(func() {
		env.check, _ = parseCheck(os.Getenv(EnvCheck))
		env.cfg, env.err = parseConfig(os.Getenv)
	})
	return env.cfg, env.err
}

// Size units: decimal (KB = 1000) and binary (KiB = 1024), matched without
// regard to case. Single letters (K, M, G) are refused: they mean 1000 to
// some tools and 1024 to others.
