package memory

import (
	"sync"
	"sync/atomic"
)

// The strings of trace events (ops and levels) as the ring records them:
// small integer codes, so that a record holds no pointer. The Op* and
// Trace* constants have fixed codes; another op (TraceMark takes any) or
// level (Wrap takes any) gets the next code the first time it is seen, and
// keeps it for the process.

// Fixed codes, in the order of builtinTraceNames.
const (
	codeNone uint16 = iota // the empty string: a mark's level
	codeAlloc
	codeFree
	codeOOM
	codeRecordUse
	codeEmptyCache
	codeTrim
	codeGC
	codeEagerGC
	codeReclaim
	codeBlock
	codeSegment
)

var builtinTraceNames = []string{"", OpAlloc, OpFree, OpOOM, OpRecordUse, OpEmptyCache, OpTrim, OpGC, OpEagerGC, OpReclaim, TraceBlock, TraceSegment}

// maxTraceNames bounds the codes (they are 16 bits); a name past it is
// recorded as traceNameOverflow.
const maxTraceNames = 1 << 16

const traceNameOverflow = "(too many trace names)"

// traceNames maps codes to names (names, read without a lock) and back
// (codes, under mu).
var traceNames struct {
	mu    sync.Mutex
	codes map[string]uint16
	names atomic.Pointer[[]string]
}

func init() {
	names := append([]string(nil), builtinTraceNames...)
	traceNames.codes = make(map[string]uint16, len(names))
	for i, n := range names {
		traceNames.codes[n] = uint16(i)
	}
	traceNames.names.Store(&names)
}

// traceCode returns name's code, giving it one when it has none. It takes
// a lock: callers look codes up off the allocation path.
func traceCode(name string) uint16 {
	traceNames.mu.Lock()
	defer traceNames.mu.Unlock()
	if c, ok := traceNames.codes[name]; ok {
		return c
	}
	old := *traceNames.names.Load()
	if len(old) >= maxTraceNames-1 {
		if c, ok := traceNames.codes[traceNameOverflow]; ok {
			return c
		}
		name = traceNameOverflow
	}
	c := uint16(len(old))
	names := append(old[:len(old):len(old)], name)
	traceNames.codes[name] = c
	traceNames.names.Store(&names)
	return c
}

// traceNameTable returns the names by code, for decoding records; the
// caller must not modify it.
func traceNameTable() []string { return *traceNames.names.Load() }
