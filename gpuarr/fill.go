package gpuarr

import (
	"encoding/binary"

	"github.com/gpuarr/gpuarr/device"
)

// memsetFill sets nbytes at p to repetitions of pat (one element) with a
// driver memset when one can: a byte memset when all its bytes agree, a
// 32-bit memset when the element repeats every 4 bytes. It reports false
// when neither applies (Full then runs a fused fill kernel instead).
func memsetFill(s *device.Stream, p device.Ptr, nbytes uint64, pat []byte) (bool, error) {
	if nbytes == 0 {
		return true, nil
	}
	same := true
	for _, b := range pat[1:] {
		same = same && b == pat[0]
	}
	if same {
		return true, s.Memset8(p, pat[0], nbytes)
	}
	if len(pat) <= 4 && p%4 == 0 && nbytes%4 == 0 {
		var w [4]byte
		for i := range w {
			w[i] = pat[i%len(pat)]
		}
		return true, s.Memset32(p, binary.LittleEndian.Uint32(w[:]), nbytes/4)
	}
	return false, nil
}
