package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// tally counts trials and wrong results per kind and prints each wrong
// trial as it is found.
type tally struct {
	mu     sync.Mutex
	w      io.Writer
	trials [numKinds]int
	wrong  [numKinds]int
	errs   [numKinds]int
	skip   [numKinds]int // trials of a kind this machine cannot run (availability says why)
}

// done records one finished trial: problems are its wrong results, err an
// operation that failed (which also makes the trial wrong).
func (t *tally) done(p plan, problems []string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.trials[p.kind]++
	if err != nil {
		t.errs[p.kind]++
		t.wrong[p.kind]++
		fmt.Fprintf(t.w, "stress: FAILED %s: %v\n", p, err)
		return
	}
	if len(problems) > 0 {
		t.wrong[p.kind]++
		fmt.Fprintf(t.w, "stress: WRONG %s:\n", p)
		for _, s := range problems {
			fmt.Fprintf(t.w, "    %s\n", s)
		}
	}
}

// notRun records a trial of a kind this machine cannot run.
func (t *tally) notRun(p plan) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.skip[p.kind]++
}

func (t *tally) totals() (trials, wrong, errs int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range numKinds {
		trials += t.trials[k]
		wrong += t.wrong[k]
		errs += t.errs[k]
	}
	return trials, wrong, errs
}

// partner is a second goroutine of a worker: the reads (and, in
// producer-consumer trials, the whole consumer side) are issued from it,
// so every hand-off crosses goroutines as well as streams.
type partner struct {
	work chan func()
	wg   sync.WaitGroup
}

func newPartner() *partner {
	p := &partner{work: make(chan func())}
	p.wg.Go(func() {
		for f := range p.work {
			f()
		}
	})
	return p
}

// async runs f on the partner without waiting for it (the channel is
// unbuffered: it waits for the partner to take it).
func (p *partner) async(f func()) { p.work <- f }

// call runs f on the partner and waits for it.
func (p *partner) call(f func()) {
	done := make(chan struct{})
	p.work <- func() { f(); close(done) }
	<-done
}

func (p *partner) stop() {
	close(p.work)
	p.wg.Wait()
}

// worker is what one worker goroutine owns: its partner, which issues
// the reads from a second goroutine, and its capture stream.
type worker struct {
	pt      *partner
	capture *device.Stream
}

// runTrial runs plan p with the worker's goroutine as the writer side and
// its partner as the reader side.
func runTrial(e *env, t *tally, w *worker, p plan) {
	switch p.dtype {
	case u32:
		trial[uint32](e, t, w, p)
	case f32:
		trial[float32](e, t, w, p)
	case i64:
		trial[int64](e, t, w, p)
	}
}

func trial[T elem](e *env, t *tally, w *worker, p plan) {
	d := e.devs[0]
	switch p.kind {
	case producerConsumer:
		producerConsumerTrial[T](d, t, w.pt, p)
	case writeAfterRead:
		writeAfterReadTrial[T](d, t, w.pt, p)
	case freeReuse:
		freeReuseTrial[T](d, t, w.pt, p)
	case fanOut:
		fanOutTrial[T](d, t, w.pt, p)
	case multiFree:
		multiFreeTrial[T](d, t, w.pt, p)
	case graphReplay:
		graphTrial[T](d, t, w, p)
	case unifiedArray:
		if !e.unified.ok {
			t.notRun(p)
			return
		}
		unifiedTrial[T](d, t, w.pt, p)
	case collectiveOp:
		if !e.coll.ok {
			t.notRun(p)
			return
		}
		collectiveTrial[T](e, t, p)
	}
}

// producerConsumerTrial: the worker writes x on A (slowly) and hands it
// over without waiting; the partner reads it on B, releases it while the
// read may still be queued, and checks what it read. The worker goes on
// with its next trial meanwhile.
func producerConsumerTrial[T elem](e *devEnv, t *tally, pt *partner, p plan) {
	a, b := e.streams[p.a], e.streams[p.b]
	want := p.first.want(p.n, nil)
	x, err := produce[T](e, p.n, a, p.first, p.spinW, false)
	if err != nil {
		t.done(p, nil, err)
		return
	}
	pt.async(func() {
		r, err := read(e, x, b, p.read, 0)
		err = firstErr(err, x.Release())
		if err != nil {
			abandon(t, p, r, err)
			return
		}
		problems, err := r.collect("read on B", want)
		t.done(p, problems, err)
	})
}

// writeAfterReadTrial: the worker writes x on A; the partner reads it on
// B behind a spin (so the read is still queued); the worker then
// overwrites x on A at once. The read must see the first contents, x the
// second.
func writeAfterReadTrial[T elem](e *devEnv, t *tally, pt *partner, p plan) {
	a, b := e.streams[p.a], e.streams[p.b]
	first := p.first.want(p.n, nil)
	second := p.second.want(p.n, first)
	x, err := produce[T](e, p.n, a, p.first, p.spinW, false)
	if err != nil {
		t.done(p, nil, err)
		return
	}
	var r *reading[T]
	pt.call(func() { r, err = read(e, x, b, p.read, p.spinR) })
	if err == nil {
		err = writeInto(e, x, a, p.second, 0)
	}
	problems, err := verify(err, r, "read on B before the overwrite", first, x, "array after the overwrite on A", second)
	t.done(p, problems, firstErr(err, x.Release()))
}

// freeReuseTrial: the worker writes x on A; the partner reads it on B
// behind a spin; x is released at once (by either goroutine) while that
// read is queued, and a new array of the same size — likely x's memory —
// is made and written on a third stream C. The read must see x's
// contents, the new array its own.
func freeReuseTrial[T elem](e *devEnv, t *tally, pt *partner, p plan) {
	a, b, c := e.streams[p.a], e.streams[p.b], e.streams[p.c]
	first := p.first.want(p.n, nil)
	second := p.second.want(p.n, nil)
	x, err := produce[T](e, p.n, a, p.first, p.spinW, false)
	if err != nil {
		t.done(p, nil, err)
		return
	}
	var r *reading[T]
	pt.call(func() {
		r, err = read(e, x, b, p.read, p.spinR)
		if p.relByC {
			err = firstErr(err, x.Release())
		}
	})
	if !p.relByC {
		err = firstErr(err, x.Release())
	}
	if err != nil {
		abandon(t, p, r, err)
		return
	}
	z, err := produce[T](e, p.n, c, p.second, 0, p.alloc)
	problems, err := verify(err, r, "read on B of the released array", first, z, "new array on C", second)
	if z != nil {
		err = firstErr(err, z.Release())
	}
	t.done(p, problems, err)
}

// fanOutTrial: the worker writes x on A (slowly); the partner reads it on
// B, which records A's event and waits for it in one call; the worker
// then reads it on C at once, and C waits on that same event, already
// recorded (the stream wait in gpuarr's waitOn). x is released while both
// reads are queued; both must see x's contents.
func fanOutTrial[T elem](e *devEnv, t *tally, pt *partner, p plan) {
	a, b, c := e.streams[p.a], e.streams[p.b], e.streams[p.c]
	want := p.first.want(p.n, nil)
	x, err := produce[T](e, p.n, a, p.first, p.spinW, false)
	if err != nil {
		t.done(p, nil, err)
		return
	}
	var rb, rc *reading[T]
	pt.call(func() { rb, err = read(e, x, b, p.read, 0) })
	if err == nil {
		rc, err = read(e, x, c, p.read2, 0)
	}
	err = firstErr(err, x.Release())
	if err != nil {
		abandon(t, p, rb, err)
		abandon2(rc)
		return
	}
	problems, err := rb.collect("read on B", want)
	more, err2 := rc.collect("read on C (waits on B's event)", want)
	t.done(p, append(problems, more...), firstErr(err, err2))
}

// multiFreeTrial: the worker writes x on A; the partner reads it on B and
// the worker on C, both behind spins; x is released (by either goroutine)
// while both reads are queued, and a new array of the same size is made
// and written at once on A, the stream x's memory belongs to (its
// freed-block cache would hand x's memory straight back if the frees did
// not declare B and C). Both reads must see x's contents, the new array
// its own.
func multiFreeTrial[T elem](e *devEnv, t *tally, pt *partner, p plan) {
	a, b, c := e.streams[p.a], e.streams[p.b], e.streams[p.c]
	first := p.first.want(p.n, nil)
	second := p.second.want(p.n, nil)
	x, err := produce[T](e, p.n, a, p.first, p.spinW, false)
	if err != nil {
		t.done(p, nil, err)
		return
	}
	var rb, rc *reading[T]
	pt.call(func() { rb, err = read(e, x, b, p.read, p.spinR) })
	if err == nil {
		rc, err = read(e, x, c, p.read2, p.spinR)
	}
	if p.relByC {
		pt.call(func() { err = firstErr(err, x.Release()) })
	} else {
		err = firstErr(err, x.Release())
	}
	if err != nil {
		abandon(t, p, rb, err)
		abandon2(rc)
		return
	}
	z, err := produce[T](e, p.n, a, p.second, 0, p.alloc)
	if err != nil {
		abandon(t, p, rb, err)
		abandon2(rc)
		return
	}
	problems, err := verify(nil, rb, "read on B of the released array", first, z, "new array on A", second)
	more, err2 := rc.collect("read on C of the released array", first)
	t.done(p, append(problems, more...), firstErr(err, err2, z.Release()))
}

// abandon ends trial p with err (nothing was checked), releasing the
// read r if one was issued.
func abandon[T elem](t *tally, p plan, r *reading[T], err error) {
	abandon2(r)
	t.done(p, nil, err)
}

// abandon2 releases a further read of an abandoned trial, if issued.
func abandon2[T elem](r *reading[T]) {
	if r != nil {
		_ = r.release()
	}
}

// verify collects the read r, checked against readWant, and then checks x
// against xWant, unless err (of the steps since the read was issued)
// ends the trial first; r (nil if the read failed) is released either
// way.
func verify[T elem](err error, r *reading[T], readWhat string, readWant []int64, x *gpuarr.Array[T], xWhat string, xWant []int64) ([]string, error) {
	if err != nil {
		if r != nil {
			err = firstErr(err, r.release())
		}
		return nil, err
	}
	problems, err := r.collect(readWhat, readWant)
	if err != nil {
		return problems, err
	}
	if len(problems) > 0 {
		problems = append(problems, r.diagnose(xWant))
	}
	more, err := check(xWhat, x, xWant)
	return append(problems, more...), err
}
