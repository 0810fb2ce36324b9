// Package units parses and formats byte counts for the environment
// variables and reports of every gpuarr package (device capacities, memory
// limits, status reports), so that "4GiB" means the same everywhere
// (Example).
package units

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

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

// FormatBytes writes n in binary units: "512 B", "1.5 KiB", "12.0 GiB".
func FormatBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
