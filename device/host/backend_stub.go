// Package host is a placeholder until the host backend lands.
package host

import "github.com/gpuarr/gpuarr/device/driver"

type backend struct{}

// Backend returns the host backend.
func Backend() driver.Backend { return backend{} }

func (backend) Name() string { return "host" }
func (backend) Devices() ([]driver.Device, error) {
	return nil, &driver.Error{Call: "host devices", Code: driver.NoDevice}
}
