package memory

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/units"
)

// The variables that configure each device's default resource. They are
// read when Default first builds a device's resource.
const (
	EnvPool      = "GPUARR_MEMORY_POOL"       // caching (default), cuda or none
	EnvHardLimit = "GPUARR_HARD_MEMORY_LIMIT" // bytes, "4GiB", "512MB" or "80%" of the device
	EnvSoftLimit = "GPUARR_SOFT_MEMORY_LIMIT" // cached bytes kept, same forms
	EnvTrace     = "GPUARR_MEMORY_TRACE"      // events kept in the trace ring; unset or 0: no trace
	// EnvExpandable = 1 puts the caching pool on an Expandable upstream
	// (PyTorch's expandable_segments).
	EnvExpandable = "GPUARR_EXPANDABLE_SEGMENTS"
)

// Config is what the environment says about a device's default resource.
type Config struct {
	Pool        string // KindCaching, KindDriverPool or KindDirect
	HardLimit   uint64 // 0: none
	SoftLimit   uint64 // 0: none
	TraceEvents int    // 0: no trace
	Expandable  bool   // the caching pool's segments come from an Expandable upstream
	// Pressure announces each allocation to the process-wide Pressure
	// (SetPressure); Default sets it, the environment does not.
	Pressure bool
}

// ConfigFromEnv reads the variables through getenv (os.Getenv when nil)
// for dev, whose total memory percentages refer to. A malformed value is a
// *device.ConfigError naming the variable (matching device.ErrBadConfig).
func ConfigFromEnv(dev *device.Device, getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg := Config{Pool: KindCaching}
	switch v := strings.ToLower(strings.TrimSpace(getenv(EnvPool))); v {
	case "", KindCaching:
	case KindDriverPool, KindDirect:
		cfg.Pool = v
	default:
		return cfg, &device.ConfigError{Var: EnvPool, Value: getenv(EnvPool), Reason: "want caching, cuda or none"}
	}
	var err error
	total := dev.TotalMemory()
	if cfg.HardLimit, err = limitVar(getenv, EnvHardLimit, total); err != nil {
		return cfg, err
	}
	if cfg.SoftLimit, err = limitVar(getenv, EnvSoftLimit, total); err != nil {
		return cfg, err
	}
	if v := strings.TrimSpace(getenv(EnvTrace)); v != "" {
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 0 || n > 1<<24 {
			return cfg, &device.ConfigError{Var: EnvTrace, Value: v, Reason: "want a number of events from 0 to 16777216"}
		}
		cfg.TraceEvents = n
	}
	if _, err := profileRateFromEnv(getenv); err != nil {
		return cfg, err
	}
	switch v := strings.ToLower(strings.TrimSpace(getenv(EnvExpandable))); v {
	case "", "0", "false":
	case "1", "true":
		cfg.Expandable = true
	default:
		return cfg, &device.ConfigError{Var: EnvExpandable, Value: v, Reason: "want 1 or 0"}
	}
	return cfg, nil
}

func limitVar(getenv func(string) string, name string, total uint64) (uint64, error) {
	v := getenv(name)
	if strings.TrimSpace(v) == "" {
		return 0, nil
	}
	n, err := ParseLimit(v, total)
	if err != nil {
		return 0, &device.ConfigError{Var: name, Value: v, Reason: err.Error()}
	}
	return n, nil
}

// ParseLimit parses a memory limit: bytes ("1073741824"), a size with a
// decimal or binary unit ("512MB", "4GiB", "1.5 GiB"; see units.ParseSize)
// or a percentage of total ("80%", "12.5%"). Zero is refused: leave the
// variable unset for no limit.
func ParseLimit(s string, total uint64) (uint64, error) {
	t := strings.TrimSpace(s)
	if pct, ok := strings.CutSuffix(t, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil || f <= 0 || f > 100 {
			return 0, fmt.Errorf("invalid percentage %q: want more than 0%% and at most 100%% of the device's %d bytes", s, total)
		}
		n := uint64(f / 100 * float64(total))
		if n == 0 {
			return 0, fmt.Errorf("%q of %d bytes is 0 bytes", s, total)
		}
		return min(n, total), nil
	}
	n, err := units.ParseSize(t)
	if err != nil {
		return 0, fmt.Errorf("%v, or a percentage of the device such as 80%%", err)
	}
	if n == 0 {
		return 0, fmt.Errorf("a limit of 0 bytes (unset the variable for no limit)")
	}
	return n, nil
}
