package p2p

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
)

// Counts are the cross-device copies made since the process started.
type Counts struct {
	Direct, Staged           uint64 // copies by path
	DirectBytes, StagedBytes uint64
	StagedChunks             uint64 // pinned-buffer round trips of staged copies
}

var counts struct {
	direct, staged, directBytes, stagedBytes, chunks atomic.Uint64
}

// Stats reports the copies made so far (tests use it to see which path a
// copy took).
func Stats() Counts {
	return Counts{
		Direct: counts.direct.Load(), Staged: counts.staged.Load(),
		DirectBytes: counts.directBytes.Load(), StagedBytes: counts.stagedBytes.Load(),
		StagedChunks: counts.chunks.Load(),
	}
}

// CopyDirect copies n bytes from src (memory of srcDev) to dst (memory of
// dstDev) in s's order with one peer copy. s must belong to one of the two
// devices. Use it when Route says Direct; the driver would stage a peer
// copy between devices without peer access itself, but synchronously.
func CopyDirect(s *device.Stream, dst device.Ptr, dstDev *device.Device, src device.Ptr, srcDev *device.Device, n uint64) error {
	if sd := s.Device(); sd != dstDev && sd != srcDev {
		return fmt.Errorf("p2p.CopyDirect: stream of %s copies between %s and %s: %w", sd, srcDev, dstDev, device.ErrInvalidValue)
	}
	if err := s.CopyPeer(dst, dstDev, src, srcDev, n); err != nil {
		return err
	}
	counts.direct.Add(1)
	counts.directBytes.Add(n)
	return nil
}

// CopyStaged copies n bytes from src, memory of srcS's device, to dst,
// memory of dstS's device, through pinned host buffers: srcS downloads a
// chunk, dstS waits for that (an event) and uploads it, and the buffer is
// filled again only after dstS passed the upload (another event). The
// copy is ordered after work issued earlier on srcS (for the reads) and
// dstS (for the writes); work issued later on dstS sees the data. Each
// download returns once its chunk is on the host (the device layer's
// rule), so the call returns after srcS has run the copy's reads; the
// uploads may still be running on dstS.
//
// Both streams may belong to one device: tests use that to drive the
// staged path on a single GPU.
func CopyStaged(dstS *device.Stream, dst device.Ptr, srcS *device.Stream, src device.Ptr, n uint64) error {
	if n == 0 {
		return nil
	}
	p := stagesFor(srcS.Device(), dstS.Device())
	var ring [2]*stage
	defer func() {
		for _, st := range ring {
			if st != nil {
				p.put(st)
			}
		}
	}()
	for off, i := uint64(0), 0; off < n; i++ {
		k := i % 2
		if ring[k] == nil {
			st, err := p.get()
			if err != nil {
				return err
			}
			ring[k] = st
		}
		st := ring[k]
		m := min(n-off, uint64(len(st.host)))
		if err := p.chunk(st, dstS, dst.Add(off), srcS, src.Add(off), m); err != nil {
			return err
		}
		off += m
		counts.chunks.Add(1)
	}
	counts.staged.Add(1)
	counts.stagedBytes.Add(n)
	return nil
}

// chunk moves m bytes through st.
func (p *stagePool) chunk(st *stage, dstS *device.Stream, dst device.Ptr, srcS *device.Stream, src device.Ptr, m uint64) error {
	h := unsafe.Pointer(unsafe.SliceData(st.host))
	if st.fenced { // the last upload from st may still be reading it
		if err := srcS.Wait(st.fence); err != nil {
			return err
		}
	}
	if err := srcS.CopyDtoH(h, src, m); err != nil {
		return err
	}
	if st.fence == nil {
		// Different backends: neither's events order the other's streams.
		// The download has returned with the data (and the synchronization
		// makes sure of it should downloads to pinned memory ever return
		// early); the upload copies from a buffer the destination's driver
		// treats as pageable, done with it when the call returns.
		if err := srcS.Synchronize(); err != nil {
			return err
		}
		return dstS.CopyHtoD(dst, h, m)
	}
	if err := srcS.Record(st.handoff); err != nil {
		return err
	}
	if err := dstS.Wait(st.handoff); err != nil {
		return err
	}
	if err := dstS.CopyHtoD(dst, h, m); err != nil {
		return err
	}
	if err := dstS.Record(st.fence); err != nil {
		st.fenced = false
		// Without a fence nothing says when the upload is done reading.
		_ = dstS.Synchronize()
		return err
	}
	st.fenced = true
	return nil
}
