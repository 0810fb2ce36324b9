package host

import (
	"fmt"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuarr/gpuarr/device/driver"
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
		n, perr := ParseSize(v)
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
var sizeUnits = map[string]uint64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// ParseSize parses a byte count: plain bytes ("1048576"), or a number with a
// decimal (KB, MB, GB, TB: powers of 1000) or binary (KiB, MiB, GiB, TiB:
// powers of 1024) unit, such as "512MB", "1.5GiB" or "4 GiB". Units ignore
// case. A fraction of a byte is dropped. Packages with their own size
// variables (memory limits, which add "%") parse through it.
func ParseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	end := 0
	for end < len(t) && (t[end] >= '0' && t[end] <= '9' || t[end] == '.') {
		end++
	}
	num, unit := t[:end], strings.ToLower(strings.TrimSpace(t[end:]))
	mult, ok := sizeUnits[unit]
	intPart, fracPart, hasDot := strings.Cut(num, ".")
	if !ok || intPart == "" || strings.Contains(fracPart, ".") || (hasDot && fracPart == "") {
		return 0, fmt.Errorf("invalid size %q: want bytes or a number with a unit (KB, MB, GB, TB or KiB, MiB, GiB, TiB)", s)
	}
	whole, err := strconv.ParseUint(intPart, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: %w", s, err)
	}
	hi, total := bits.Mul64(whole, mult)
	if hi != 0 {
		return 0, fmt.Errorf("invalid size %q: more than 2^64 bytes", s)
	}
	// The fraction contributes mult*f/10^k, computed in 128 bits so that
	// "1.5GiB" is exact; digits past the 18th cannot matter.
	if len(fracPart) > 18 {
		fracPart = fracPart[:18]
	}
	if fracPart != "" {
		f, _ := strconv.ParseUint(fracPart, 10, 64)
		den := uint64(1)
		for range fracPart {
			den *= 10
		}
		fh, fl := bits.Mul64(f, mult)
		q, _ := bits.Div64(fh, fl, den) // f < den, so the quotient fits
		var carry uint64
		if total, carry = bits.Add64(total, q, 0); carry != 0 {
			return 0, fmt.Errorf("invalid size %q: more than 2^64 bytes", s)
		}
	}
	return total, nil
}
