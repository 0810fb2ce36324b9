package gpuarr

import (
	"encoding/binary"
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/lifetime"
)

// noteFillResize tells a Batched capture on s how the fill of x just
// issued follows the batch size: a memset of a batched array (unit: its
// element size) sets the rows' bytes; a fill left to a kernel (unit 0)
// resizes as that elementwise kernel does.
func noteFillResize(s *device.Stream, x *lifetime.Handle, unit uint64) {
	b := lifetime.BatcherOf(s)
	if b == nil || !lifetime.Batched(b, x) {
		return
	}
	if unit == 0 || x.Bytes() == 0 {
		b.Resizes(s, lifetime.Resize{}, false)
		return
	}
	row := x.Bytes() / uint64(b.MaxBatch())
	if row%unit != 0 {
		b.Fixed(fmt.Sprintf("the fill is a %d-byte memset and a row is %d bytes, not whole memset elements", unit, row))
		return
	}
	b.Resizes(s, lifetime.Resize{RowBytes: row, Memset: true}, true)
}

// memsetFill sets nbytes at p to repetitions of pat (one element) with a
// driver memset when one can: a byte memset when all its bytes agree, a
// 32-bit memset when the element repeats every 4 bytes. It reports the
// memset's unit (1 or 4 bytes), or 0 when neither applies (Full then runs
// a fused fill kernel instead).
func memsetFill(s *device.Stream, p device.Ptr, nbytes uint64, pat []byte) (unit uint64, err error) {
	if nbytes == 0 {
		return 1, nil
	}
	same := true
	for _, b := range pat[1:] {
		same = same && b == pat[0]
	}
	if same {
		return 1, s.Memset8(p, pat[0], nbytes)
	}
	if len(pat) <= 4 && p%4 == 0 && nbytes%4 == 0 {
		var w [4]byte
		for i := range w {
			w[i] = pat[i%len(pat)]
		}
		return 4, s.Memset32(p, binary.LittleEndian.Uint32(w[:]), nbytes/4)
	}
	return 0, nil
}
