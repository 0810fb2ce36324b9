package expr

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/gpuarr/gpuarr/device/dtype"
)

// A scan kernel runs an elementwise Program (its value, the last
// instruction, at each position of the iteration space) and combines the
// values along rows: the iteration space is rows × Len, row-major, and
// out[r, j] is the combination of the row's values at 0..j (inclusive) or
// 0..j-1 (Exclusive; the identity at j = 0). A compaction (ScanCompact)
// instead stores, in order, the value (or the position) of every element
// whose Flag instruction is true.
//
// Parameters (Scan.Params): out u64 · n u64 (rows × Len) · len u64 ·
// inner u64 · state u64 · cap u64, then the Program's dims, inputs and
// scalars as Program.Params lists them after its out and n.
//
//   - out is contiguous. When inner > 1 the scanned axis is not the last
//     of the output: row r = o·inner + i of the iteration space is written
//     at out[(o·Len + j)·inner + i]. A compaction writes out[k] for its
//     k-th selected element, k < cap (the kernel never writes past cap).
//   - state is ScanStateBytes(n, s.Tile(p)) bytes of zeroed device
//     memory, the kernel's scratch (the tiles' descriptors of a decoupled
//     look-back).
//
// Values are combined in the accumulator type Acc (ScanAcc) and written
// converted to the value type (as OpCast converts): float sums and
// products accumulate in float64, integer ones in 64 bits (wrapping, so a
// narrow result wraps like its type), Max and Min in the value type with
// NaN propagating (once a row meets a NaN, the rest of it is NaN). The
// identities are those of the reductions.
type Scan struct {
	Op        ScanOp
	Exclusive bool
	// Segmented: the space has more than one row (row starts reset the
	// combination). False promises a single row (Len = n).
	Segmented bool
	// StridedOut: inner > 1.
	StridedOut bool
	// Flag (ScanCompact): the Bool instruction selecting elements.
	Flag int32
	// Positions (ScanCompact): store each selected element's position in
	// the iteration space (Int64) instead of the value.
	Positions bool
}

// ScanOp is what a scan combines.
type ScanOp uint8

const (
	NoScan ScanOp = iota
	ScanSum
	ScanProd
	ScanMax // NaN propagates
	ScanMin
	ScanCompact // stream compaction by Flag
)

var scanNames = [...]string{"none", "cumsum", "cumprod", "cummax", "cummin", "compact"}

func (o ScanOp) String() string {
	if int(o) < len(scanNames) {
		return scanNames[o]
	}
	return "scan?"
}

// ScanAcc is the accumulator type of op over values of type t (Uint64
// counts for a compaction).
func ScanAcc(op ScanOp, t dtype.DType) dtype.DType {
	switch op {
	case ScanSum, ScanProd:
		return AccType(Sum, t)
	case ScanCompact:
		return dtype.Uint64
	}
	return t
}

// ScanIdentity is the identity of op in accumulator type acc, as a
// float64 for floats (±Inf for Max and Min) or the integer's bits.
func ScanIdentity(op ScanOp, acc dtype.DType) uint64 {
	var f float64
	switch op {
	case ScanProd:
		f = 1
	case ScanMax:
		if !acc.IsFloat() {
			if acc.IsSigned() {
				return uint64(int64(-1) << (8*acc.Size() - 1))
			}
			return 0
		}
		f = math.Inf(-1)
	case ScanMin:
		if !acc.IsFloat() {
			if acc.IsSigned() {
				return uint64(1)<<(8*acc.Size()-1) - 1
			}
			return ^uint64(0) >> (64 - 8*acc.Size())
		}
		f = math.Inf(1)
	}
	switch acc {
	case dtype.Float32:
		return uint64(math.Float32bits(float32(f)))
	case dtype.Float64:
		return math.Float64bits(f)
	}
	return uint64(int64(f))
}

// ScanStateBytes is the scratch a scan of n elements in tiles of tile
// elements needs.
func ScanStateBytes(n, tile int) int { return ScanHeaderBytes + (n+tile-1)/tile*ScanDescBytes }

// Wide reports whether s over p takes tiles of ScanTileWide elements: a
// sum, product, max or min of one row of 4- or 8-byte real values (the
// kernel's transposed path, whose registers grow least with the tile).
// Other scans take tiles of ScanTile.
func (s Scan) Wide(p *Program) bool {
	vt := p.ValueType()
	return !s.Segmented && s.Op != ScanCompact && !vt.IsComplex() && vt != dtype.Bool && (vt.Size() == 4 || vt.Size() == 8)
}

// Tile is the elements of one of s's tiles over p.
func (s Scan) Tile(p *Program) int {
	if s.Wide(p) {
		return ScanTileWide
	}
	return ScanTile
}

// The look-back's layout: a header (the next tile to take, a u64) and one
// 16-byte descriptor per tile (Scan.Tile elements), written and read
// whole: a status word (0 none, 1 the tile's aggregate, 2 its inclusive
// prefix; the row-start flag in the high half) and the value (the
// aggregate or the inclusive prefix, as the status says). The header
// keeps the descriptors 16-byte aligned in a 16-byte aligned state.
const (
	ScanTile        = 2048
	ScanTileWide    = 4096
	ScanHeaderBytes = 32
	ScanDescBytes   = 16
)

// ScanParams is the scan kernel's parameter list.
func (s Scan) Params(p *Program) []Param {
	ps := []Param{{"out", dtype.Uint64}, {"n", dtype.Uint64}, {"len", dtype.Uint64}, {"inner", dtype.Uint64},
		{"state", dtype.Uint64}, {"cap", dtype.Uint64}}
	return append(ps, p.Params()[2:]...)
}

// Validate checks s against p.
func (s Scan) Validate(p *Program) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if p.Reduce != NoReduce || p.Vector > 1 {
		return fmt.Errorf("a scan's program is elementwise and scalar (reduce %s, vector %d)", p.Reduce, p.Vector)
	}
	vt := p.ValueType()
	switch {
	case s.Op == NoScan || s.Op > ScanCompact:
		return fmt.Errorf("scan op %d", s.Op)
	case !Stores(vt):
		return fmt.Errorf("%s of %s values", s.Op, vt)
	case s.Op == ScanCompact && (s.Flag < 0 || int(s.Flag) >= len(p.Code) || p.Code[s.Flag].T != dtype.Bool):
		return fmt.Errorf("compaction flag %d is not a bool instruction", s.Flag)
	case s.Op == ScanCompact && (s.Exclusive || s.Segmented || s.StridedOut):
		return fmt.Errorf("a compaction is one exclusive pass over one row")
	case s.Op != ScanCompact && s.Positions:
		return fmt.Errorf("positions are a compaction's")
	}
	return nil
}

// AppendKey appends s and p's key.
func (s Scan) AppendKey(b []byte, p *Program) []byte {
	flags := byte(0)
	for i, f := range []bool{s.Exclusive, s.Segmented, s.StridedOut, s.Positions} {
		if f {
			flags |= 1 << i
		}
	}
	b = append(b, 0xFF, 'S', byte(s.Op), flags)
	b = binary.LittleEndian.AppendUint32(b, uint32(s.Flag))
	return p.AppendKey(b)
}

// EntryName is the scan kernel's entry point: gpuarr_scan_ and a hash of
// the key.
func (s Scan) EntryName(p *Program) string {
	h := fnv.New64a()
	h.Write(s.AppendKey(nil, p))
	return fmt.Sprintf("gpuarr_scan_%016x", h.Sum64())
}
