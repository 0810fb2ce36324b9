package gpuarr

import (
	"encoding/binary"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
)

// fillChunk bounds the host bytes a fill uploads; the device doubles them
// from there.
const fillChunk = 64 << 10

// fillPattern sets nbytes at p to repetitions of pat (one element), in s's
// order: a byte memset when all its bytes agree, a 32-bit memset when the
// element repeats every 4 bytes, else one uploaded chunk doubled by
// device-to-device copies (log₂ of the size in copies, at device speed).
// Elementwise kernels (issue 6) will make this one launch.
func fillPattern(s *device.Stream, p device.Ptr, nbytes uint64, pat []byte) error {
	if nbytes == 0 {
		return nil
	}
	same := true
	for _, b := range pat[1:] {
		same = same && b == pat[0]
	}
	if same {
		return s.Memset8(p, pat[0], nbytes)
	}
	if len(pat) <= 4 && p%4 == 0 && nbytes%4 == 0 {
		var w [4]byte
		for i := range w {
			w[i] = pat[i%len(pat)]
		}
		return s.Memset32(p, binary.LittleEndian.Uint32(w[:]), nbytes/4)
	}
	chunk := min(nbytes, uint64(fillChunk/len(pat)*len(pat)))
	host := make([]byte, chunk)
	for i := 0; i < len(host); i += len(pat) {
		copy(host[i:], pat)
	}
	if err := s.CopyHtoD(p, unsafe.Pointer(unsafe.SliceData(host)), chunk); err != nil {
		return err
	}
	for filled := chunk; filled < nbytes; {
		m := min(filled, nbytes-filled)
		if err := s.CopyDtoD(p.Add(filled), p, m); err != nil {
			return err
		}
		filled += m
	}
	return nil
}
