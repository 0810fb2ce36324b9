package memory

import (
	"fmt"
	"strings"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/units"
)

// OutOfMemoryError is an allocation that failed after the exhaustion
// ladder. It matches device.ErrOutOfMemory, unwraps to the upstream error
// and its message is a status report.
type OutOfMemoryError struct {
	Device    string
	Requested uint64
	Stats     Stats
	Cause     error
	// Holders are the stacks holding the most device memory of the
	// device, by the profile's samples; none when the profile is off
	// (SetProfileRate, GPUARR_MEMPROFILE_RATE).
	Holders []Holder
}

func (e *OutOfMemoryError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory: out of memory on %s: requested %s", e.Device, FormatBytes(e.Requested))
	if e.Cause != nil {
		fmt.Fprintf(&b, " (%v)", e.Cause)
	}
	b.WriteString("\n")
	writeReport(&b, e.Stats)
	writeHolders(&b, e.Holders)
	return strings.TrimRight(b.String(), "\n")
}

// Is makes the error match device.ErrOutOfMemory.
func (e *OutOfMemoryError) Is(target error) bool { return target == device.ErrOutOfMemory }

// Unwrap returns the upstream error.
func (e *OutOfMemoryError) Unwrap() error { return e.Cause }

// Status renders the statistics of dev's default resource as a short
// report (what `gpuarr info` prints).
func Status(dev *device.Device) string {
	r, err := Default(dev)
	if err != nil {
		return fmt.Sprintf("%s: memory: %v\n", dev, err)
	}
	return Report(r.Stats())
}

// Report renders statistics as Status does.
func Report(s Stats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s memory (%s pool)\n", s.Device, s.Kind)
	writeReport(&b, s)
	return b.String()
}

func writeReport(b *strings.Builder, s Stats) {
	fmt.Fprintf(b, "  used      %s in %d blocks (peak %s); active %s\n",
		FormatBytes(s.AllocatedBytes.Current), s.Allocations.Current, FormatBytes(s.AllocatedBytes.Peak), FormatBytes(s.ActiveBytes.Current))
	fmt.Fprintf(b, "  reserved  %s in %d segments (peak %s); cached %s, %s of it in stream caches\n",
		FormatBytes(s.ReservedBytes.Current), s.Segments.Current, FormatBytes(s.ReservedBytes.Peak),
		FormatBytes(s.CachedBytes), FormatBytes(s.FrontCachedBytes))
	limit := func(n uint64) string {
		if n == 0 {
			return "none"
		}
		return FormatBytes(n)
	}
	fmt.Fprintf(b, "  limit     hard %s, soft %s\n", limit(s.HardLimit), limit(s.SoftLimit))
	fmt.Fprintf(b, "  largest free block %s of %d free blocks; fragmentation %.0f%% (inactive split %s)\n",
		FormatBytes(s.LargestFreeBlock), s.FreeBlocks, 100*s.Fragmentation(), FormatBytes(s.InactiveSplitBytes.Current))
	fmt.Fprintf(b, "  segments +%d/-%d, alloc retries %d, OOMs %d, cross-stream waits %d, syncs %d\n",
		s.SegmentsObtained, s.SegmentsReleased, s.AllocRetries, s.OOMs, s.CrossStreamWaits, s.Synchronizations)
}

// FormatBytes writes n in binary units: "512 B", "1.5 KiB", "12.0 GiB".
func FormatBytes(n uint64) string { return units.FormatBytes(n) }
