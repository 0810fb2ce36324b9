package p2p

import (
	"sync"

	"github.com/gpuarr/gpuarr/device"
)

// stageBytes is the size of one pinned staging buffer; a variable so that
// tests can make copies span many chunks.
var stageBytes uint64 = 4 << 20

// keepStages is how many idle staging buffers a pair of devices keeps.
const keepStages = 4

// stage is one pinned buffer with the events that order its use: handoff
// (on the source device) marks the download done, fence (on the
// destination device) the upload done. fence is nil between backends.
type stage struct {
	host    []byte
	handoff *device.Event
	fence   *device.Event
	fenced  bool // fence is recorded after the last upload from host
}

// stagePool keeps the idle stages of one (source, destination) pair.
type stagePool struct {
	src, dst *device.Device
	mu       sync.Mutex
	idle     []*stage
}

var stagePools struct {
	mu sync.Mutex
	m  map[pair]*stagePool
}

func stagesFor(src, dst *device.Device) *stagePool {
	stagePools.mu.Lock()
	defer stagePools.mu.Unlock()
	k := pair{src, dst}
	p := stagePools.m[k]
	if p == nil {
		if stagePools.m == nil {
			stagePools.m = make(map[pair]*stagePool)
		}
		p = &stagePool{src: src, dst: dst}
		stagePools.m[k] = p
	}
	return p
}

// get takes an idle stage or makes one.
func (p *stagePool) get() (*stage, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		st := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return st, nil
	}
	p.mu.Unlock()
	host, err := p.src.AllocHost(stageBytes)
	if err != nil {
		return nil, err
	}
	st := &stage{host: host}
	if p.src.Backend() == p.dst.Backend() {
		if st.handoff, err = p.src.NewEvent(); err == nil {
			st.fence, err = p.dst.NewEvent()
		}
	}
	if err != nil {
		p.destroy(st)
		return nil, err
	}
	return st, nil
}

// put keeps st for the next copy, or frees it when enough are idle.
func (p *stagePool) put(st *stage) {
	p.mu.Lock()
	if len(p.idle) < keepStages {
		p.idle = append(p.idle, st)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	p.destroy(st)
}

// destroy frees st once its last upload is done (the one CPU wait here).
func (p *stagePool) destroy(st *stage) {
	if st.fenced {
		_ = st.fence.Synchronize()
	}
	if st.handoff != nil {
		_ = st.handoff.Close()
	}
	if st.fence != nil {
		_ = st.fence.Close()
	}
	_ = p.src.FreeHost(st.host)
}
