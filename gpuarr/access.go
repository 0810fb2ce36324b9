package gpuarr

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/p2p"
)

// An op is one operation's claim on the arrays it touches, around the
// moment its work is issued:
//
//	begin: pin every buffer (a released array fails here), check peer
//	       access, lock the distinct buffers in address order (so two
//	       operations on the same arrays cannot deadlock), and let each
//	       buffer's tracking order the stream after conflicting work;
//	issue the work;
//	end:   unlock and unpin.
//
// Holding the locks while the work is issued makes "wait, then issue"
// atomic: no other stream can record a point between them that misses the
// work.
type op struct {
	call string
	n    int
	inl  [4]access
	more []access

	nb    int
	binl  [4]*buffer
	bmore []*buffer

	pinned int
	locked bool
}

type access struct {
	c *core
	m mode
	s *device.Stream
}

func (o *op) at(i int) *access {
	if i < len(o.inl) {
		return &o.inl[i]
	}
	return &o.more[i-len(o.inl)]
}

func (o *op) buf(i int) **buffer {
	if i < len(o.binl) {
		return &o.binl[i]
	}
	return &o.bmore[i-len(o.binl)]
}

// add declares that the operation uses c in mode m on stream s.
func (o *op) add(c *core, m mode, s *device.Stream) {
	a := access{c: c, m: m, s: s}
	if o.n < len(o.inl) {
		o.inl[o.n] = a
	} else {
		o.more = append(o.more, a)
	}
	o.n++
}

// begin claims the arrays; see op. With peers, a stream of another device
// than an array's must be able to reach its memory (kernels need that;
// copies route themselves and pass false). On error nothing stays claimed.
func (o *op) begin(peers bool) error {
	for i := 0; i < o.n; i++ {
		a := o.at(i)
		if !a.c.acquire() {
			o.end()
			return a.c.releasedError(o.call)
		}
		o.pinned++
	}
	if peers {
		for i := 0; i < o.n; i++ {
			a := o.at(i)
			if sd, ad := a.s.Device(), a.c.dev(); sd != ad {
				if err := p2p.Enable(sd, ad); err != nil {
					o.end()
					return peerError(o.call, a.c, sd, err)
				}
			}
		}
	}
	o.collect()
	o.locked = true
	for i := 0; i < o.nb; i++ {
		(*o.buf(i)).mu.Lock()
	}
	capturing := false
	for i := 0; i < o.n; i++ {
		a := o.at(i)
		if err := a.c.buf.trk.useLocked(a.s, a.m); err != nil {
			o.end()
			return fmt.Errorf("gpuarr.%s: ordering %s on a stream of %s: %w", o.call, a.c.describe(), a.s.Device(), err)
		}
		if a.s.IsCapturing() {
			noteUse(a.s, a.c.buf, a.m)
			capturing = true
		}
	}
	if capturing {
		for i := 0; i < o.n; i++ {
			if c := batchedOf(o.at(i).s); c != nil {
				c.noteOp(o)
				break
			}
		}
	}
	return nil
}

// collect gathers the distinct buffers sorted by address.
func (o *op) collect() {
	for i := 0; i < o.n; i++ {
		b := o.at(i).c.buf
		j := 0
		for j < o.nb && *o.buf(j) != b {
			j++
		}
		if j < o.nb {
			continue
		}
		if o.nb < len(o.binl) {
			o.binl[o.nb] = b
		} else {
			o.bmore = append(o.bmore, b)
		}
		o.nb++
		// Insertion sort: operations touch a handful of arrays.
		for k := o.nb - 1; k > 0 && addr(*o.buf(k)) < addr(*o.buf(k - 1)); k-- {
			p, q := o.buf(k), o.buf(k-1)
			*p, *q = *q, *p
		}
	}
}

func addr(b *buffer) uintptr { return uintptr(unsafe.Pointer(b)) }

// end releases what begin claimed. Unpinning may free a buffer (when its
// arrays were released meanwhile), so it comes after unlocking.
func (o *op) end() {
	if o.locked {
		for i := o.nb - 1; i >= 0; i-- {
			(*o.buf(i)).mu.Unlock()
		}
		o.locked = false
	}
	for i := 0; i < o.pinned; i++ {
		_ = o.at(i).c.buf.unref()
	}
	o.pinned = 0
}

// peerError explains an array of another device that s's device cannot
// reach, and what to do about it, naming each device once. The error
// wraps err (package p2p's, with the driver's detail) for errors.Is and
// errors.As; when peer access is simply unsupported its message ends with
// that sentinel's text rather than repeat the devices.
func peerError(call string, c *core, sd *device.Device, err error) error {
	msg := fmt.Sprintf("gpuarr.%s: %s is not reachable from %s, where the operation runs; "+
		"copy it there first (gpuarr.Clone(a, gpuarr.OnDevice(dev)) or gpuarr.Copy) or run the operation on the array's device (gpuarr.OnDevice or gpuarr.On)",
		call, c.describe(), sd)
	reason := err.Error()
	if errors.Is(err, device.ErrPeerAccessUnsupported) {
		reason = device.ErrPeerAccessUnsupported.Error()
	}
	return &wrapped{msg: msg + ": " + reason, err: err}
}

// wrapped is an error whose message says what its cause says in fewer
// words; the cause stays reachable through Unwrap.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }
