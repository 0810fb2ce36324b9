package lifetime

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/tracking"
	"github.com/gpuarr/gpuarr/p2p"
)

// A Claim is one operation's claim on the arrays it touches, around the
// moment its work is issued:
//
//	Begin: pin every buffer (a released array fails here), check peer
//	       access, lock the distinct buffers in address order (so two
//	       operations on the same arrays cannot deadlock), and let each
//	       buffer's tracking order the stream after conflicting work
//	       (and prefetch managed memory the CPU touched: prefetch.go);
//	issue the work;
//	End:   unlock and unpin.
//
// Holding the locks while the work is issued makes "wait, then issue"
// atomic: no other stream can record a point between them that misses the
// work. A Claim lives on its caller's stack; Call names the operation in
// errors.
type Claim struct {
	Call string
	n    int
	inl  [4]access
	more []access

	nb    int
	binl  [4]*Buffer
	bmore []*Buffer

	pinned int
	locked bool

	// handoffs holds the hand-offs of a claim begun with BeginLaunch
	// until its launch (Launch, LaunchArgs) or End issues them.
	handoffs tracking.Handoffs
}

type access struct {
	h *Handle
	m tracking.Mode
	s *device.Stream
}

func (o *Claim) at(i int) *access {
	if i < len(o.inl) {
		return &o.inl[i]
	}
	return &o.more[i-len(o.inl)]
}

func (o *Claim) buf(i int) **Buffer {
	if i < len(o.binl) {
		return &o.binl[i]
	}
	return &o.bmore[i-len(o.binl)]
}

// Add declares that the operation uses h in mode m on stream s (nil: set
// later with SetStream).
func (o *Claim) Add(h *Handle, m tracking.Mode, s *device.Stream) {
	a := access{h: h, m: m, s: s}
	if o.n < len(o.inl) {
		o.inl[o.n] = a
	} else {
		o.more = append(o.more, a)
	}
	o.n++
}

// Len is the number of arrays declared.
func (o *Claim) Len() int { return o.n }

// Handle is the i-th array declared.
func (o *Claim) Handle(i int) *Handle { return o.at(i).h }

// SetStream makes every use run on s.
func (o *Claim) SetStream(s *device.Stream) {
	for i := 0; i < o.n; i++ {
		o.at(i).s = s
	}
}

// Begin claims the arrays; see Claim. With peers, a stream of another
// device than an array's must be able to reach its memory (kernels need
// that; copies route themselves and pass false). On error nothing stays
// claimed. On a stream that records a capture (a Recorder), the capture
// is told of each buffer, and a Batcher of the claim.
func (o *Claim) Begin(peers bool) error {
	return o.begin(peers, false)
}

// BeginLaunch is Begin(true) for an operation whose work is one kernel
// launch on the claim's one stream, issued with the claim's Launch or
// LaunchArgs: the cross-stream hand-offs the ordering needs are issued
// with the launch, in one driver call where the backend offers it
// (tracking.Handoffs), rather than each in a call of its own. End issues
// them itself when the launch never came.
func (o *Claim) BeginLaunch() error { return o.begin(true, true) }

// Launch launches k on s, the claim's stream, after the hand-offs
// BeginLaunch held (device.Stream.LaunchAfter; see tracking.Handoffs for
// its errors). Call it between BeginLaunch and End.
func (o *Claim) Launch(s *device.Stream, k *device.Kernel, cfg device.LaunchConfig, args ...any) error {
	return o.handoffs.Launch(s, k, cfg, args...)
}

// LaunchArgs is Launch with arguments already marshalled.
func (o *Claim) LaunchArgs(s *device.Stream, k *device.Kernel, cfg device.LaunchConfig, a *device.Args) error {
	return o.handoffs.LaunchArgs(s, k, cfg, a)
}

func (o *Claim) begin(peers, launch bool) error {
	var j *tracking.Handoffs
	if launch {
		j = &o.handoffs
	}
	for i := 0; i < o.n; i++ {
		a := o.at(i)
		if !a.h.Acquire() {
			o.End()
			return a.h.ReleasedError(o.Call)
		}
		o.pinned++
	}
	if peers {
		for i := 0; i < o.n; i++ {
			a := o.at(i)
			if sd, ad := a.s.Device(), a.h.Device(); sd != ad {
				if err := p2p.Enable(sd, ad); err != nil {
					o.End()
					return peerError(o.Call, a.h, sd, err)
				}
			}
		}
	}
	o.collect()
	o.locked = true
	for i := 0; i < o.nb; i++ {
		(*o.buf(i)).Lock()
	}
	recording := false
	for i := 0; i < o.n; i++ {
		a := o.at(i)
		if err := a.h.buf.UseLockedInto(a.s, a.m, j); err != nil {
			o.End()
			return fmt.Errorf("gpuarr.%s: ordering %s on a stream of %s: %w", o.Call, a.h.Describe(), a.s.Device(), err)
		}
		if a.h.buf.TakeCPUTouched() {
			// The prefetch is issued on a.s after the waits.
			if err := o.handoffs.Flush(); err != nil {
				o.End()
				return fmt.Errorf("gpuarr.%s: ordering %s on a stream of %s: %w", o.Call, a.h.Describe(), a.s.Device(), err)
			}
			a.h.buf.prefetchForGPU(a.s)
		}
		if a.s.IsCapturing() {
			if r := recorderOf(a.s); r != nil {
				r.Used(a.h.buf, a.m)
				recording = true
			}
		}
	}
	if recording {
		o.tellBatchers()
	}
	return nil
}

// tellBatchers tells each Batcher recording on the claim's streams of the
// claim: its call, and whether it touches a batched array.
func (o *Claim) tellBatchers() {
	var told Batcher
	for i := 0; i < o.n; i++ {
		b := BatcherOf(o.at(i).s)
		if b == nil || b == told {
			continue
		}
		batched := false
		for j := 0; j < o.n && !batched; j++ {
			batched = Batched(b, o.at(j).h)
		}
		b.Claimed(o.Call, batched)
		told = b
	}
}

// collect gathers the distinct buffers sorted by address.
func (o *Claim) collect() {
	for i := 0; i < o.n; i++ {
		b := o.at(i).h.buf
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
		for k := o.nb - 1; k > 0 && Addr(*o.buf(k)) < Addr(*o.buf(k - 1)); k-- {
			p, q := o.buf(k), o.buf(k-1)
			*p, *q = *q, *p
		}
	}
}

// Addr is b's address, the order in which several buffers are locked.
func Addr(b *Buffer) uintptr { return uintptr(unsafe.Pointer(b)) }

// End releases what Begin claimed. Unpinning may free a buffer (when its
// arrays were released meanwhile), so it comes after unlocking.
func (o *Claim) End() {
	if o.handoffs.Len() > 0 {
		// Held for a launch that did not come: the ordering they stand
		// for must exist before the records are unlocked (Flush's error
		// leaves the host waited for the recording streams instead).
		_ = o.handoffs.Flush()
	}
	if o.locked {
		for i := o.nb - 1; i >= 0; i-- {
			(*o.buf(i)).Unlock()
		}
		o.locked = false
	}
	for i := 0; i < o.pinned; i++ {
		_ = o.at(i).h.buf.Unref()
	}
	o.pinned = 0
}

// peerError explains an array of another device that s's device cannot
// reach, and what to do about it, naming each device once. The error
// wraps err (package p2p's, with the driver's detail) for errors.Is and
// errors.As; when peer access is simply unsupported its message ends with
// that sentinel's text rather than repeat the devices.
func peerError(call string, h *Handle, sd *device.Device, err error) error {
	msg := fmt.Sprintf("gpuarr.%s: %s is not reachable from %s, where the operation runs; "+
		"copy it there first (gpuarr.Clone(a, gpuarr.OnDevice(dev)) or gpuarr.Copy) or run the operation on the array's device (gpuarr.OnDevice or gpuarr.On)",
		call, h.Describe(), sd)
	reason := err.Error()
	if errors.Is(err, device.ErrPeerAccessUnsupported) {
		reason = device.ErrPeerAccessUnsupported.Error()
	}
	return &arg.Wrapped{Msg: msg + ": " + reason, Err: err}
}

// Issue runs fn, which issues work on s using h in mode m, as one claimed
// operation (peers: as Begin). fn's error is wrapped with call and h.
func (h *Handle) Issue(call string, s *device.Stream, m tracking.Mode, peers bool, fn func() error) error {
	o := Claim{Call: call}
	o.Add(h, m, s)
	if err := o.Begin(peers); err != nil {
		return err
	}
	err := fn()
	o.End()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %s: %w", call, h.Describe(), err)
	}
	return nil
}
