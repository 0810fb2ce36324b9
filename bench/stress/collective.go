package main

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// maxRanks bounds the collective's ranks, so that the sum of every rank's
// contents stays exact (see scaled).
const maxRanks = 8

// collectiveEnv is the communicator over every device (up to maxRanks)
// and each rank's collective stream. All collective trials share them:
// mu orders their issue, so that every rank sees the collectives in one
// order, and each rank's collectives run on one stream, one after
// another, as NCCL requires of a communicator.
type collectiveEnv struct {
	availability
	comm *collective.Comm
	ks   []*device.Stream
	mu   sync.Mutex
}

// setupCollective makes the communicator over devs; a backend without
// collectives (no NCCL) is the one reason not to run those trials.
func setupCollective(e *env) error {
	devs := make([]*device.Device, len(e.devs))
	for i, d := range e.devs {
		devs[i] = d.dev
	}
	comm, err := collective.NewComm(devs)
	if errors.Is(err, collective.ErrNotSupported) {
		e.coll.why = fmt.Sprintf("no collectives on %s: %v", devs[0].Backend(), err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("a communicator over %d devices: %w", len(devs), err)
	}
	e.coll.comm, e.coll.ok = comm, true
	for _, d := range devs {
		s, err := d.NewStream()
		if err != nil {
			return err
		}
		e.coll.ks = append(e.coll.ks, s)
	}
	return nil
}

func (c *collectiveEnv) close() error {
	var errs []error
	if c.comm != nil {
		errs = append(errs, c.comm.Close())
	}
	for _, s := range c.ks {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// collectiveTrial: each rank's array is written on a stream A of its
// device (slowly), summed in place by one all-reduce on the ranks'
// collective streams, which must wait for those writes, read on a stream
// C of each device, which must wait for the all-reduce, and released
// while the reads are queued. Every read must see the sum.
func collectiveTrial[T elem](e *env, t *tally, p plan) {
	n := len(e.devs)
	xs := make([]*gpuarr.Array[T], n)
	rs := make([]*reading[T], n)
	want := make([]int64, p.n)
	finish := func(problems []string, err error) {
		for i := range n {
			if rs[i] != nil {
				_ = rs[i].release()
			}
			if xs[i] != nil {
				err = firstErr(err, xs[i].Release())
			}
		}
		t.done(p, problems, err)
	}
	for i, d := range e.devs {
		w := p.ranks[i]
		for j, v := range w.want(p.n, nil) {
			want[j] += v
		}
		x, err := produce[T](d, p.n, d.streams[p.a], w, p.spinW, false)
		if err != nil {
			finish(nil, err)
			return
		}
		xs[i] = x
	}
	e.coll.mu.Lock()
	err := collective.AllReduce(e.coll.comm, xs, nil, collective.Sum, collective.On(e.coll.ks...))
	e.coll.mu.Unlock()
	if err != nil {
		finish(nil, err)
		return
	}
	for i, d := range e.devs {
		r, err := read(d, xs[i], d.streams[p.c], p.read, 0)
		if err != nil {
			finish(nil, err)
			return
		}
		rs[i] = r
	}
	for i := range n {
		err = firstErr(err, xs[i].Release())
		xs[i] = nil
	}
	var problems []string
	for i := range n {
		more, e2 := rs[i].collect(fmt.Sprintf("rank %d's read of the all-reduce", i), want)
		rs[i] = nil
		problems = append(problems, more...)
		err = firstErr(err, e2)
	}
	finish(problems, err)
}
