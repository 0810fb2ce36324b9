package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/cleanups"
	"github.com/gpuarr/gpuarr/unified"
)

// unifiedAvailable says whether the device can make unified arrays: a
// device without managed memory is the one reason not to run those
// trials.
func unifiedAvailable(dev *device.Device) (availability, error) {
	u, err := unified.Empty[uint32](gpuarr.Shape{1}, unified.OnDevice(dev))
	if errors.Is(err, device.ErrNotSupported) {
		return availability{why: fmt.Sprintf("no managed memory on %s: %v", dev, err)}, nil
	}
	if err != nil {
		return availability{}, fmt.Errorf("a unified array on %s: %w", dev, err)
	}
	return availability{ok: true}, u.Release()
}

// unifiedTrial: a unified array u is written on A (slowly); a CPU view
// must see that write; the CPU then writes the second contents through
// the view, and the partner reads u on B behind a spin, which must see
// them. u is released while that read is queued, and a new unified array
// of the same size is written on C at once. On one trial in dropEvery, a
// view of u is kept, u itself dropped (not released) and collected, and a
// new unified array written in its place: the view keeps u's memory
// alive, so it still reads the second contents.
func unifiedTrial[T elem](e *devEnv, t *tally, pt *partner, p plan) {
	a, b, c := e.streams[p.a], e.streams[p.b], e.streams[p.c]
	first := p.first.want(p.n, nil)
	second := p.second.want(p.n, first)
	u, err := unified.Empty[T](gpuarr.Shape{p.n}, unified.On(a))
	if err != nil {
		t.done(p, nil, err)
		return
	}
	if err := writeInto(e, u, a, p.first, p.spinW); err != nil {
		t.done(p, nil, firstErr(err, u.Release()))
		return
	}
	v, err := unified.Host(u)
	if err != nil {
		t.done(p, nil, firstErr(err, u.Release()))
		return
	}
	problems := compareView("CPU view after the write on A", v, first)
	for i, x := range second {
		v.Set(i, T(x))
	}
	if p.drop {
		// The view alone keeps u's memory: drop u, collect, and put a
		// new unified array of the same size where its memory was.
		u = nil
		more, err := reuseUnified[T](e, c, p)
		problems = append(problems, more...)
		problems = append(problems, compareView("CPU view of the dropped array after a collection and a new array", v, second)...)
		t.done(p, problems, err)
		return
	}
	var r *reading[T]
	pt.call(func() { r, err = read(e, u, b, p.read, p.spinR) })
	err = firstErr(err, u.Release())
	if err != nil {
		abandon(t, p, r, err)
		return
	}
	more, err := reuseUnified[T](e, c, p)
	problems = append(problems, more...)
	if err != nil {
		abandon(t, p, r, err)
		return
	}
	more, err = r.collect("read on B of the CPU's write (released meanwhile)", second)
	t.done(p, append(problems, more...), err)
}

// reuseUnified makes a new unified array of p's size, collecting first
// when p.drop (so that a dropped array's memory is free to take), writes
// it on s and checks it.
func reuseUnified[T elem](e *devEnv, s *device.Stream, p plan) ([]string, error) {
	if p.drop {
		cleanups.Collect(time.Second)
	}
	z, err := unified.Empty[T](gpuarr.Shape{p.n}, unified.On(s))
	if err != nil {
		return nil, err
	}
	want := make([]int64, p.n)
	for i := range want {
		want[i] = 3*band + int64(i%band)
	}
	err = z.CopyFromHost(toT[T](want), gpuarr.On(s))
	var problems []string
	if err == nil {
		problems, err = check("new unified array on C", z, want)
	}
	return problems, firstErr(err, z.Release())
}

// compareView checks a view's elements against want.
func compareView[T elem](what string, v unified.View[T], want []int64) []string {
	got := make([]T, v.Len())
	for i := range got {
		got[i] = v.At(i)
	}
	return compare(what, got, want)
}
