package device

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuarr/gpuarr/device/cuda"
	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/host"
)

// EnvDevice names the variable that overrides Default's choice.
const EnvDevice = "GPUARR_DEVICE"

// backendSet opens a backend's devices once per process.
type backendSet struct {
	open func() driver.Backend
	once sync.Once
	devs []*Device
	err  error
}

func (b *backendSet) devices() ([]*Device, error) {
	b.once.Do(func() {
		be := b.open()
		drvs, err := be.Devices()
		if err != nil {
			b.err = err
			return
		}
		if len(drvs) == 0 {
			b.err = &Error{Call: be.Name() + " devices", Code: driver.NoDevice}
			return
		}
		for _, d := range drvs {
			b.devs = append(b.devs, newDevice(d))
		}
	})
	return b.devs, b.err
}

var backends = map[string]*backendSet{
	"cuda": {open: cuda.Backend},
	"host": {open: host.Backend},
}

// Spec is a parsed device selection: a backend and an ordinal.
type Spec struct {
	Backend string // "cuda" or "host"
	Ordinal int
}

// ParseSpec parses "host", "cuda", "host:N" or "cuda:N".
func ParseSpec(s string) (Spec, error) {
	name, num, hasNum := strings.Cut(strings.TrimSpace(s), ":")
	if _, ok := backends[name]; !ok {
		return Spec{}, &ConfigError{Var: EnvDevice, Value: s, Reason: "want host, cuda, host:N or cuda:N"}
	}
	spec := Spec{Backend: name}
	if hasNum {
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 {
			return Spec{}, &ConfigError{Var: EnvDevice, Value: s, Reason: "device ordinal must be a non-negative integer"}
		}
		spec.Ordinal = n
	}
	return spec, nil
}

// Open returns the device a spec names, such as "cuda:1" or "host".
func Open(spec string) (*Device, error) {
	sp, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	devs, err := backends[sp.Backend].devices()
	if err != nil {
		return nil, err
	}
	if sp.Ordinal >= len(devs) {
		return nil, noSuchDevice(sp, len(devs))
	}
	return devs[sp.Ordinal], nil
}

// noSuchDevice says that sp's backend has n devices, fewer than its
// ordinal needs; it matches ErrNoDevice.
func noSuchDevice(sp Spec, n int) error {
	have := fmt.Sprintf("%s:0", sp.Backend)
	if n > 1 {
		have = fmt.Sprintf("%s:0 to %s:%d", sp.Backend, sp.Backend, n-1)
	}
	hint := ""
	if sp.Backend == "host" {
		hint = "; " + host.EnvDevices + " sets how many"
	}
	devices := "devices"
	if n == 1 {
		devices = "device"
	}
	return driver.PlainErrorf("device.Open", driver.InvalidDevice, "%s:%d: the %s backend has %d %s (%s)%s",
		sp.Backend, sp.Ordinal, sp.Backend, n, devices, have, hint)
}

var defaultDev struct {
	once sync.Once
	dev  *Device
	err  error
}

// Default returns the device simple code uses: GPUARR_DEVICE when set, else
// CUDA device 0 when a driver and a GPU are usable, else host device 0. The
// choice is made once per process.
func Default() (*Device, error) {
	defaultDev.once.Do(func() {
		defaultDev.dev, defaultDev.err = selectDefault(os.Getenv(EnvDevice))
	})
	return defaultDev.dev, defaultDev.err
}

func selectDefault(env string) (*Device, error) {
	if env != "" {
		d, err := Open(env)
		if err != nil && !errors.Is(err, ErrBadConfig) {
			err = fmt.Errorf("%s=%q: %w", EnvDevice, env, err)
		}
		return d, err
	}
	if d, err := Open("cuda:0"); err == nil {
		return d, nil
	}
	return Open("host:0")
}

// Devices returns every device of the default device's backend, so that
// multi-device code pairs devices that can work together.
func Devices() ([]*Device, error) {
	d, err := Default()
	if err != nil {
		return nil, err
	}
	return backends[d.Backend()].devices()
}

// BackendDevices returns the devices of one backend ("cuda" or "host") and
// the reason when there are none (ErrNoDriver, ErrNoDevice).
func BackendDevices(name string) ([]*Device, error) {
	b, ok := backends[name]
	if !ok {
		return nil, errors.New("device: unknown backend " + strconv.Quote(name))
	}
	return b.devices()
}
