package main

import (
	"fmt"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// graphTrial: a graph captured on the worker's own stream computes
// out = 2x + 1 through a temporary from its private pool. x is then
// written on A (slowly); the partner replays the graph on B, which must
// wait for that write; the worker overwrites x on A at once, which must
// wait for the replay's read, and (on half the trials) closes the graph at
// once, while the replay may still be queued: its pool's memory must stay
// until the replay is done. out, read on C, must be 2·first + 1, and x the
// second contents.
func graphTrial[T elem](e *devEnv, t *tally, w *worker, p plan) {
	a, b, c := e.streams[p.a], e.streams[p.b], e.streams[p.c]
	first := p.first.want(p.n, nil)
	second := p.second.want(p.n, first)
	x, err := gpuarr.Empty[T](gpuarr.Shape{p.n}, gpuarr.On(a))
	if err != nil {
		t.done(p, nil, err)
		return
	}
	out, err := gpuarr.Empty[T](gpuarr.Shape{p.n}, gpuarr.On(a))
	if err != nil {
		t.done(p, nil, firstErr(err, x.Release()))
		return
	}
	release := func(err error) error { return firstErr(err, x.Release(), out.Release()) }
	s := w.capture
	g, err := gpuarr.Capture(s, func() error {
		tmp, err := gpuarr.Eval(gpuarr.Mul[T](x, gpuarr.Scalar(T(2))), gpuarr.On(s))
		if err != nil {
			return err
		}
		err = gpuarr.EvalInto(out, gpuarr.Add[T](tmp, gpuarr.Scalar(T(1))), gpuarr.On(s))
		return firstErr(err, tmp.Release())
	})
	if err != nil {
		t.done(p, nil, release(fmt.Errorf("capture: %w", err)))
		return
	}
	closed := false
	closeGraph := func(err error) error {
		if closed {
			return err
		}
		closed = true
		return firstErr(err, g.Close())
	}
	err = writeInto(e, x, a, p.first, p.spinW)
	if err == nil {
		w.pt.call(func() { err = g.Replay(gpuarr.On(b)) })
	}
	if err == nil && p.relByC {
		err = closeGraph(nil)
	}
	if err == nil {
		err = writeInto(e, x, a, p.second, 0)
	}
	var r *reading[T]
	if err == nil {
		r, err = read(e, out, c, rCopy, 0)
	}
	err = closeGraph(err)
	problems, err := verify(err, r, "the replay's output, read on C", expected(rExpr, first), x, "input after the overwrite on A", second)
	t.done(p, problems, release(err))
}
