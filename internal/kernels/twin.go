package kernels

import (
	"encoding/binary"
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/indexcheck"
)

// Helpers of the Go twins: the kernels a host device runs in place of the
// PTX, reading the same parameters and touching the same memory.

// bytesAt views n elements of size bytes at p (nil for none).
func bytesAt(l *hostkernel.Launch, p hostkernel.Ptr, n, size uint64) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	if p == 0 {
		return nil, fmt.Errorf("null pointer for %d elements", n)
	}
	return l.Bytes(p, n*size)
}

// views views a launch's buffers one after the other, keeping the first
// error: a twin asks for each buffer it touches, then checks err once
// before using any of them.
type views struct {
	l   *hostkernel.Launch
	err error
}

// bytes is bytesAt, or nil once an earlier view failed.
func (v *views) bytes(p hostkernel.Ptr, n, size uint64) []byte {
	if v.err != nil {
		return nil
	}
	b, err := bytesAt(v.l, p, n, size)
	v.err = err
	return b
}

// slot is slotAt, or nil once an earlier view failed.
func (v *views) slot(p hostkernel.Ptr) []byte {
	if v.err != nil {
		return nil
	}
	b, err := slotAt(v.l, p)
	v.err = err
	return b
}

// slotAt views a check slot (nil when p is 0: no check).
func slotAt(l *hostkernel.Launch, p hostkernel.Ptr) ([]byte, error) {
	if p == 0 {
		return nil, nil
	}
	return hostkernel.View[byte](l, p, indexcheck.SlotSize)
}

// readInt reads element i of integer type t as 64 bits, sign- or
// zero-extended.
func readInt(b []byte, i int, t dtype.DType) int64 {
	switch t {
	case dtype.Int8:
		return int64(int8(b[i]))
	case dtype.Uint8, dtype.Bool:
		return int64(b[i])
	case dtype.Int16:
		return int64(int16(binary.LittleEndian.Uint16(b[2*i:])))
	case dtype.Uint16:
		return int64(binary.LittleEndian.Uint16(b[2*i:]))
	case dtype.Int32:
		return int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
	case dtype.Uint32:
		return int64(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return int64(binary.LittleEndian.Uint64(b[8*i:]))
}

// resolveHost is resolveIndex: the position of index j (bits of type t)
// in [0, n), and whether it is out of range in ModeRaise.
func resolveHost(j int64, t dtype.DType, n int64, mode int) (p int64, bad bool) {
	switch mode {
	case ModeClip:
		if t.IsSigned() {
			return min(max(j, 0), n-1), false
		}
		return int64(min(uint64(j), uint64(n-1))), false
	case ModeWrap:
		if t.IsSigned() {
			r := j % n
			if r < 0 {
				r += n
			}
			return r, false
		}
		return int64(uint64(j) % uint64(n)), false
	}
	if t.IsSigned() {
		if j < 0 {
			j += n
		}
		if j < 0 || j >= n {
			return 0, true
		}
		return j, false
	}
	if uint64(j) >= uint64(n) {
		return 0, true
	}
	return j, false
}

// moveElem copies element si of src to element di of dst (size bytes).
func moveElem(dst []byte, di int, src []byte, si int, size int) {
	copy(dst[di*size:di*size+size], src[si*size:si*size+size])
}

// zeroElem clears element i.
func zeroElem(dst []byte, i, size int) {
	clear(dst[i*size : i*size+size])
}

// recordBad is the twin of callBadIndex.
func recordBad(slot []byte, pos int64, j int64) {
	if slot != nil {
		indexcheck.RecordHost(slot, uint64(pos), j)
	}
}
