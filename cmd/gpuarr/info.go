package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gpuarr/gpuarr/device"
)

// backendNames are listed in this order; cuda first since it is preferred.
var backendNames = []string{"cuda", "host"}

// info writes the device table. It fails only when no default device can be
// chosen (a bad GPUARR_DEVICE, say); a backend without devices is reported
// in the output and is not an error.
func info(w io.Writer) error {
	def, defErr := device.Default()

	var devs []*device.Device
	var unavailable []string
	for _, name := range backendNames {
		ds, err := device.BackendDevices(name)
		if err != nil {
			unavailable = append(unavailable, fmt.Sprintf("%s: %s", name, whyUnavailable(err)))
			continue
		}
		devs = append(devs, ds...)
	}

	fmt.Fprintf(w, "gpuarr devices (* marks device.Default()):\n\n")
	if len(devs) > 0 {
		writeTable(w, devs, def)
	} else {
		fmt.Fprintln(w, "  no usable device on any backend")
	}
	if len(unavailable) > 0 {
		fmt.Fprintln(w)
		for _, u := range unavailable {
			fmt.Fprintln(w, u)
		}
	}
	fmt.Fprintln(w)
	if defErr != nil {
		fmt.Fprintf(w, "default: none\n")
		return fmt.Errorf("no default device: %w", defErr)
	}
	fmt.Fprintf(w, "default: %s\n", def)
	return nil
}

func writeTable(w io.Writer, devs []*device.Device, def *device.Device) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tDEVICE\tNAME\tCC\tDRIVER\tFREE / TOTAL\tSMs\tL2\tPOOLS\tVMM\tMANAGED\tCONC.MANAGED\tPEER ACCESS")
	for _, d := range devs {
		in := d.Info()
		mark := ""
		if d == def {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s\t%s:%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			mark, in.Backend, in.Ordinal, in.Name,
			computeCapability(in.Backend, in.ComputeMajor, in.ComputeMinor),
			driverVersion(in.DriverVersion),
			memory(d),
			count(in.Multiprocessors),
			bytesOrDash(uint64(max(in.L2CacheBytes, 0))),
			yesNo(in.MemoryPools), yesNo(in.VirtualMemory),
			yesNo(in.ManagedMemory), yesNo(in.ConcurrentManagedAccess),
			peers(d, devs))
	}
	tw.Flush()
}

// whyUnavailable turns a backend's error into a short reason, keeping the
// driver's own message for anything unexpected.
func whyUnavailable(err error) string {
	detail := err.Error()
	var de *device.Error
	if errors.As(err, &de) && de.Detail != "" {
		detail = de.Detail
	}
	switch {
	case errors.Is(err, device.ErrNoDriver):
		return "driver library not available (" + detail + ")"
	case errors.Is(err, device.ErrNoDevice):
		return "no usable device (" + detail + ")"
	default:
		return "unavailable: " + err.Error()
	}
}

// computeCapability is a GPU's SM version; "-" for the host backend,
// which is no GPU (it reports 9.0 only so that PTX headers target Hopper).
func computeCapability(backend string, major, minor int) string {
	if backend == "host" || major == 0 && minor == 0 {
		return "-"
	}
	return fmt.Sprintf("%d.%d", major, minor)
}

// driverVersion formats CUDA's 1000*major+10*minor encoding.
func driverVersion(v int) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}

func memory(d *device.Device) string {
	free, total, err := d.MemInfo()
	if err != nil {
		return "? / " + bytesOrDash(d.TotalMemory())
	}
	return bytesOrDash(free) + " / " + bytesOrDash(total)
}

// peers lists, for each other device of the same backend, whether d can
// access its memory ("cuda:1 yes"). Devices of other backends never can.
func peers(d *device.Device, devs []*device.Device) string {
	var out []string
	for _, p := range devs {
		if p == d || p.Backend() != d.Backend() {
			continue
		}
		ok, err := d.CanAccessPeer(p)
		s := yesNo(ok)
		if err != nil {
			s = "?"
		}
		out = append(out, fmt.Sprintf("%s:%d %s", p.Backend(), p.Ordinal(), s))
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}

func count(n int) string {
	if n <= 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// bytesOrDash prints a size in binary units with three significant digits.
func bytesOrDash(n uint64) string {
	if n == 0 {
		return "-"
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v := float64(n)
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	switch {
	case i == 0:
		return fmt.Sprintf("%d B", n)
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, units[i])
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, units[i])
	default:
		return fmt.Sprintf("%.2f %s", v, units[i])
	}
}
