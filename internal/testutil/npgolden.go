package testutil

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/gpuarr/gpuarr/device/dtype"
)

// NumPyGolden is one set of NumPy's results (testdata/npfuncs.bin.gz,
// written by npfuncs_golden.py): op at arguments A (and B for binary
// ops), all of type DType (NumPy's name), as raw bits (integers sign- or
// zero-extended to 64 bits, floats' bit patterns, bools 0 or 1).
type NumPyGolden struct {
	Op, DType  string
	A, B, Want []uint64
}

//go:embed testdata/npfuncs.bin.gz
var npfuncsGz []byte

// NumPyFuncGoldens returns every golden set (parsed once).
var NumPyFuncGoldens = sync.OnceValue(func() []NumPyGolden {
	gs, err := parseGoldens(npfuncsGz)
	if err != nil {
		panic("testutil: " + err.Error())
	}
	return gs
})

func parseGoldens(gz []byte) ([]NumPyGolden, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	var out []NumPyGolden
	r := bytes.NewReader(raw)
	str := func() (string, error) {
		n, err := r.ReadByte()
		if err != nil {
			return "", err
		}
		b := make([]byte, n)
		_, err = io.ReadFull(r, b)
		return string(b), err
	}
	words := func(n uint32) ([]uint64, error) {
		w := make([]uint64, n)
		return w, binary.Read(r, binary.LittleEndian, w)
	}
	for r.Len() > 0 {
		var g NumPyGolden
		if g.Op, err = str(); err != nil {
			return nil, err
		}
		if g.DType, err = str(); err != nil {
			return nil, err
		}
		var n uint32
		var hasB byte
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
			return nil, err
		}
		if hasB, err = r.ReadByte(); err != nil {
			return nil, err
		}
		if g.A, err = words(n); err != nil {
			return nil, err
		}
		if hasB == 1 {
			if g.B, err = words(n); err != nil {
				return nil, err
			}
		}
		if g.Want, err = words(n); err != nil {
			return nil, fmt.Errorf("golden %s %s: %w", g.Op, g.DType, err)
		}
		out = append(out, g)
	}
	return out, nil
}

// Type is the golden's element type.
func (g NumPyGolden) Type() dtype.DType {
	return map[string]dtype.DType{
		"int8": dtype.Int8, "int16": dtype.Int16, "int32": dtype.Int32, "int64": dtype.Int64,
		"uint8": dtype.Uint8, "uint16": dtype.Uint16, "uint32": dtype.Uint32, "uint64": dtype.Uint64,
		"float32": dtype.Float32, "float64": dtype.Float64,
	}[g.DType]
}

// SameBits reports whether a result of type t matches NumPy's: the same
// bits, any NaN for a NaN, and either zero for a zero when anyZero
// (Minimum, Maximum, Fmin and Fmax leave the sign of a zero result open).
func SameBits(t dtype.DType, got, want uint64, anyZero bool) bool {
	if got == want {
		return true
	}
	switch t {
	case dtype.Float32:
		g, w := math.Float32frombits(uint32(got)), math.Float32frombits(uint32(want))
		return g != g && w != w || anyZero && g == 0 && w == 0
	case dtype.Float64:
		g, w := math.Float64frombits(got), math.Float64frombits(want)
		return g != g && w != w || anyZero && g == 0 && w == 0
	}
	return false
}
