package device

import (
	"fmt"
	"sync"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Ptr is a device address. Zero is never a valid allocation.
type Ptr = driver.Ptr

// Dim3 is a grid or block shape; zero components count as 1.
type Dim3 = driver.Dim3

// Device is one GPU (or the host device) with its context. Devices are
// created once per process and shared; all methods are safe for concurrent use.
type Device struct {
	drv  driver.Device
	info driver.Info
	name string // String's result, formatted once: statistics carry it on every read

	defaultOnce   sync.Once
	defaultStream *Stream
	defaultErr    error
}

func newDevice(d driver.Device) *Device {
	info := d.Info()
	return &Device{drv: d, info: info, name: fmt.Sprintf("%s:%d", info.Backend, info.Ordinal)}
}

// Backend is "cuda" or "host".
func (d *Device) Backend() string { return d.info.Backend }

// Ordinal is the device's index within its backend.
func (d *Device) Ordinal() int { return d.info.Ordinal }

// Name is the device's product name.
func (d *Device) Name() string { return d.info.Name }

// String is "cuda:0" or "host:1": the backend and ordinal, as
// GPUARR_DEVICE and Open name the device. Messages name devices this way;
// Name is the product name.
func (d *Device) String() string { return d.name }

// Info returns everything the backend reports about the device.
func (d *Device) Info() driver.Info { return d.info }

// ComputeCapability is the SM version, e.g. 9, 0 for Hopper.
func (d *Device) ComputeCapability() (major, minor int) {
	return d.info.ComputeMajor, d.info.ComputeMinor
}

// TotalMemory is the device memory in bytes.
func (d *Device) TotalMemory() uint64 { return d.info.TotalMemory }

// DriverVersion is the CUDA driver version as 1000*major+10*minor.
func (d *Device) DriverVersion() int { return d.info.DriverVersion }

// MemInfo reports free and total device memory now.
func (d *Device) MemInfo() (free, total uint64, err error) { return d.drv.MemInfo() }

// CanAccessPeer reports whether kernels on d can access peer's memory once
// peer access is enabled. A device can always access itself.
func (d *Device) CanAccessPeer(peer *Device) (bool, error) {
	if peer == d {
		return true, nil
	}
	if peer.Backend() != d.Backend() {
		return false, nil
	}
	return d.drv.CanAccessPeer(peer.drv)
}

// EnablePeerAccess lets kernels on d access peer's memory. Enabling an
// already enabled pair succeeds. Devices that cannot be peers give an error
// matching ErrPeerAccessUnsupported naming both.
func (d *Device) EnablePeerAccess(peer *Device) error {
	if peer == d {
		return nil
	}
	if peer.Backend() != d.Backend() {
		return driver.PlainErrorf("EnablePeerAccess", driver.PeerAccessUnsupported, "%s and %s are on different backends", d, peer)
	}
	return d.drv.EnablePeerAccess(peer.drv)
}

// SetPeerLink changes whether d and peer can be peers, in both directions,
// on a backend whose peer links are simulated (the host backend: it
// overrides GPUARR_HOST_PEERS), for tests of multi-device code. Refusing a
// pair also revokes peer access already enabled between them. On a GPU the
// links are the hardware's and the error matches ErrNotSupported; a nil
// peer, d itself or a device of another backend matches ErrInvalidValue.
func (d *Device) SetPeerLink(peer *Device, ok bool) error {
	const call = "Device.SetPeerLink"
	links, can := d.drv.(driver.PeerLinks)
	switch {
	case !can:
		return driver.PlainErrorf(call, driver.NotSupported, "the %s backend's peer links are its hardware's", d.Backend())
	case peer == nil:
		return invalid(call, "nil peer")
	case peer == d:
		return invalid(call, "%s is always its own peer", d)
	case peer.Backend() != d.Backend():
		return invalid(call, "%s and %s are on different backends", d, peer)
	}
	return links.SetPeerLink(peer.drv, ok)
}

// Synchronize waits for all work on all of the device's streams.
func (d *Device) Synchronize() error { return d.drv.Synchronize() }

// DefaultStream is the stream simple code uses. It is an ordinary
// non-blocking stream owned by the device (not CUDA's legacy NULL stream),
// created on first use; closing it is a no-op.
func (d *Device) DefaultStream() *Stream {
	d.defaultOnce.Do(func() {
		d.defaultStream, d.defaultErr = d.newStream(true)
	})
	if d.defaultErr != nil {
		// Creating a stream fails only when the context is unusable; a
		// closed stream then reports the cause on every call.
		return &Stream{dev: d, closeErr: d.defaultErr, isDefault: true}
	}
	return d.defaultStream
}

// NewStream creates a non-blocking stream. Close it when done.
func (d *Device) NewStream() (*Stream, error) { return d.newStream(false) }

func (d *Device) newStream(isDefault bool) (*Stream, error) {
	s, err := d.drv.NewStream()
	if err != nil {
		return nil, err
	}
	hl, _ := s.(driver.HandoffLauncher)
	return &Stream{dev: d, drv: s, hl: hl, isDefault: isDefault}, nil
}

// NewEvent creates an event without timing (the cheap kind used for
// ordering streams).
func (d *Device) NewEvent() (*Event, error) { return d.newEvent(false) }

// NewTimingEvent creates an event that can measure elapsed time.
func (d *Device) NewTimingEvent() (*Event, error) { return d.newEvent(true) }

func (d *Device) newEvent(timing bool) (*Event, error) {
	e, err := d.drv.NewEvent(timing)
	if err != nil {
		return nil, err
	}
	return &Event{dev: d, drv: e, timing: timing}, nil
}

// PTXHeader returns the .version, .target and .address_size lines that PTX
// for this device should start with. The ISA version is 7.8 (CUDA 11.8, so
// drivers from 520 on accept it) and the target is the device's SM capped at
// sm_90: newer GPUs JIT sm_90 PTX forward.
func (d *Device) PTXHeader() string {
	sm := 90
	if d.info.ComputeMajor > 0 {
		sm = min(d.info.ComputeMajor*10+d.info.ComputeMinor, 90)
	}
	return fmt.Sprintf(".version 7.8\n.target sm_%d\n.address_size 64\n", sm)
}

// LoadPTX JIT-compiles PTX text into a module. On failure the error matches
// ErrInvalidPTX and carries the JIT log.
func (d *Device) LoadPTX(ptx string) (*Module, error) {
	m, err := d.drv.LoadModule(ptx)
	if err != nil {
		return nil, err
	}
	return &Module{dev: d, drv: m}, nil
}
