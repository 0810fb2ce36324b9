package main

import (
	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

// benchHandoff times one round of producer and consumer: the producer
// writes x (gpuarr_fill_u32), the consumer reads x into its own y
// (gpuarr_copy_u32). On one stream that is two launches; on two streams
// each round adds two hand-offs — the consumer waits for the producer's
// write, and the producer's next write waits for the consumer's read —
// each one event record and one stream wait. The figure to hold against
// the target is the extra time per hand-off.
//
// Where the backend offers a C reference (driver.HandoffProbe, builds with
// -tags gpuarrbench), the same round is also run as a C loop against the
// driver — same kernels, launch configuration and arguments, on memory of
// its own of the same size, with events created without timing — in the
// same interleaved run: its two-stream minus one-stream difference is the
// driver's floor under a hand-off, and what gpuarr adds is the rest. The C
// round also runs ordered by stream memory operations (a flag written on
// one stream and waited for on the other), the driver's other way to order
// two streams, to show whether events are the cheaper floor.
func benchHandoff(rep *report.Report, dev *device.Device, cfg config) error {
	ks, err := testkernels.Load(dev)
	if err != nil {
		return err
	}
	defer ks.Module.Close()
	prod, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer prod.Close()
	cons, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer cons.Close()
	const n = 256
	lc := device.Linear(n, 256)
	x, err := gpuarr.Zeros[uint32](gpuarr.Shape{n}, gpuarr.On(prod))
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := gpuarr.Zeros[uint32](gpuarr.Shape{n}, gpuarr.On(cons))
	if err != nil {
		return err
	}
	defer y.Release()

	var opErr error
	keep := func(err error) {
		if err != nil && opErr == nil {
			opErr = err
		}
	}
	round := func(on *device.Stream) func() {
		return func() {
			keep(gpuarr.Launch(ks.Fill, lc, gpuarr.Out(x), uint32(1), uint64(n), gpuarr.On(prod)))
			keep(gpuarr.Launch(ks.Copy, lc, gpuarr.Out(y), gpuarr.In(x), uint64(n), gpuarr.On(on)))
		}
	}
	same, cross := round(prod), round(cons)
	drain := func() error {
		if err := prod.Synchronize(); err != nil {
			return err
		}
		return cons.Synchronize()
	}
	batch := cfg.launchBatch / 2
	for range 5 {
		report.TimeBatches(1, batch, same)
		report.TimeBatches(1, batch, cross)
		keep(drain())
	}
	devSame, devCross, closeDev, err := deviceHandoff(dev, ks, prod, cons, lc, n, keep)
	if err != nil {
		return err
	}
	defer closeDev()
	for range 5 {
		report.TimeBatches(1, batch, devSame)
		report.TimeBatches(1, batch, devCross)
		keep(drain())
	}
	var sameNs, crossNs, devOneNs, devTwoNs, cOneNs, cTwoNs, cMemNs []float64
	paths := []func(){
		func() { sameNs = append(sameNs, report.TimeBatches(1, batch, same)...) },
		func() { crossNs = append(crossNs, report.TimeBatches(1, batch, cross)...) },
		func() { devOneNs = append(devOneNs, report.TimeBatches(1, batch, devSame)...) },
		func() { devTwoNs = append(devTwoNs, report.TimeBatches(1, batch, devCross)...) },
	}
	cRound, closeC, err := cHandoff(dev, prod, cons, lc, n)
	if err != nil {
		return err
	}
	defer closeC()
	if cRound != nil {
		cPath := func(ordering cOrdering, into *[]float64) func() {
			return func() {
				ns, err := cRound(ordering, batch)
				keep(err)
				*into = append(*into, float64(ns)/float64(batch))
			}
		}
		orderings := []cOrdering{cOneStream, cEvents, cStreamMemOps}
		into := []*[]float64{&cOneNs, &cTwoNs, &cMemNs}
		for range 5 {
			for _, o := range orderings {
				cPath(o, new([]float64))()
			}
			keep(drain())
		}
		for i, o := range orderings {
			paths = append(paths, cPath(o, into[i]))
		}
	}
	if err := interleave(cfg.batches, drain, paths...); err != nil {
		return err
	}
	if opErr != nil {
		return opErr
	}
	const name = "producer/consumer round (2 launches)"
	s, c := roundPair(rep, name, "both on one stream", sameNs, "two streams (2 hand-offs per round)", crossNs)
	per := (c.P50 - s.P50) / 2
	rep.Add("cross-stream hand-off", map[string]string{"path": "extra per hand-off (two-stream round − one-stream round) / 2"},
		map[string]float64{"p50_ns": per, "min_ns": (c.Min - s.Min) / 2}).Judge("p50_ns", report.AtMost, targetHandoffNs)
	do, dt := roundPair(rep, name, "device layer, one stream", devOneNs, "device layer, two streams (LaunchAfter, two fixed events)", devTwoNs)
	devPer := (dt.P50 - do.P50) / 2
	rep.Add("cross-stream hand-off, device layer", map[string]string{"path": "(device two-stream round − device one-stream round) / 2"},
		map[string]float64{"p50_ns": devPer, "min_ns": (dt.Min - do.Min) / 2})
	rep.Note("Without tracking, the same round through the device layer (device.Stream.Launch on one stream; device.Stream.LaunchAfter with two fixed events on two, the call tracking makes) adds %.0f ns per hand-off at the median; tracking's choice of events and its bookkeeping are the rest of gpuarr's %.0f ns.", devPer, per)
	if cRound == nil {
		rep.Note("Cross-stream hand-off, C driver floor: no C reference on the %s backend (the driver's C round needs the CUDA backend and -tags gpuarrbench).", dev.Backend())
	} else {
		co, ct := roundPair(rep, name, "C round, one stream", cOneNs, "C round, two streams", cTwoNs)
		floor := (ct.P50 - co.P50) / 2
		rep.Add("cross-stream hand-off, C driver floor", map[string]string{"path": "(C two-stream round − C one-stream round) / 2"},
			map[string]float64{"p50_ns": floor, "min_ns": (ct.Min - co.Min) / 2})
		rep.Add("cross-stream hand-off, gpuarr over the C floor", map[string]string{"path": "gpuarr's extra per hand-off − the C floor"},
			map[string]float64{"p50_ns": per - floor, "min_ns": (c.Min-s.Min)/2 - (ct.Min-co.Min)/2,
				"paired_p50_ns": pairedOver(crossNs, sameNs, cTwoNs, cOneNs)}).Judge("p50_ns", report.AtMost, targetHandoffOverCNs)
		rep.Note("Of the %.0f ns a cross-stream hand-off adds at the median, %.0f ns is the driver's (the same round in C: one cuEventRecord and one cuStreamWaitEvent per hand-off, measured in the same interleaved run) and %.0f ns is gpuarr's (tracking, the lazy record, the cgo calls); the device layer alone is %.0f ns over the C floor.", per, floor, per-floor, devPer-floor)
		rep.Add("cross-stream hand-off, device layer over the C floor", map[string]string{"path": "the device layer's extra per hand-off − the C floor"},
			map[string]float64{"p50_ns": devPer - floor, "min_ns": (dt.Min-do.Min)/2 - (ct.Min-co.Min)/2,
				"paired_p50_ns": pairedOver(devTwoNs, devOneNs, cTwoNs, cOneNs)})
		rep.Note("paired_p50_ns: the median over the interleaved cycles of each cycle's own difference (its two-stream minus one-stream batch, less the C round's, halved), which drift between cycles does not move.")
		cm := add(rep, name, "C round, two streams, stream memory operations", cMemNs, nil)
		rep.Rows[len(rep.Rows)-1].Metrics["vs_ref"] = cm.P50 / co.P50
		memFloor := (cm.P50 - co.P50) / 2
		rep.Add("cross-stream hand-off, C with stream memory operations", map[string]string{"path": "(C two-stream round with cuStreamWriteValue64 + cuStreamWaitValue64 − C one-stream round) / 2"},
			map[string]float64{"p50_ns": memFloor, "min_ns": (cm.Min - co.Min) / 2, "vs_ref": memFloor / floor})
		rep.Note("The same C round ordered by stream memory operations (a flag written with cuStreamWriteValue64 on one stream, waited for with cuStreamWaitValue64 on the other) instead of events adds %.0f ns per hand-off (%.2f× the event floor): the alternative to events that tracking could use.", memFloor, memFloor/floor)
	}
	rep.Note("A hand-off is one cuEventRecord on the stream that last used the array (recorded lazily, when the other stream needs it) and one cuStreamWaitEvent; the C rounds above measure what those two calls cost on this machine.")
	return nil
}

// cOrdering is how the C reference round orders its two streams (the
// probe's driver.HandoffOrdering, which exists only in bench builds).
type cOrdering int

const (
	cOneStream    cOrdering = iota // both launches on the producer
	cEvents                        // an event record and a stream wait per hand-off
	cStreamMemOps                  // a flag written and waited for per hand-off
)

// deviceHandoff returns the producer/consumer round through the device
// layer, without tracking, on memory of its own: fill then copy on prod
// (same), or fill on prod after cons's last copy and copy on cons after
// that fill, each order one device.Stream.LaunchAfter with a fixed event
// per direction, as the C round orders them (cross). Launch errors go to
// keep. closeAll releases what it made.
func deviceHandoff(dev *device.Device, ks *testkernels.Set, prod, cons *device.Stream, lc device.LaunchConfig, n uint64, keep func(error)) (same, cross func(), closeAll func(), err error) {
	var undo []func()
	closeAll = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	var x, y device.Ptr
	for _, p := range []*device.Ptr{&x, &y} {
		if *p, err = dev.Alloc(n * 4); err != nil {
			closeAll()
			return nil, nil, func() {}, err
		}
		q := *p
		undo = append(undo, func() { _ = dev.Free(q) })
	}
	var evs [2]*device.Event
	for i := range evs {
		if evs[i], err = dev.NewEvent(); err != nil {
			closeAll()
			return nil, nil, func() {}, err
		}
		e := evs[i]
		undo = append(undo, func() { _ = e.Close() })
	}
	produced := device.Handoff{From: prod, Event: evs[0]}
	consumed := device.Handoff{From: cons, Event: evs[1]}
	same = func() {
		keep(prod.Launch(ks.Fill, lc, x, uint32(1), n))
		keep(prod.Launch(ks.Copy, lc, y, x, n))
	}
	cross = func() {
		_, err := prod.LaunchAfter(consumed, device.Handoff{}, ks.Fill, lc, x, uint32(1), n)
		keep(err)
		_, err = cons.LaunchAfter(produced, device.Handoff{}, ks.Copy, lc, y, x, n)
		keep(err)
	}
	return same, cross, closeAll, nil
}

// pairedOver returns the median over cycles i of ((two[i] − one[i]) −
// (refTwo[i] − refOne[i])) / 2: one path's extra per hand-off over the
// reference's, each cycle's batches (run back to back by interleave)
// compared with each other. The slices are of one interleaved run.
func pairedOver(two, one, refTwo, refOne []float64) float64 {
	n := min(len(two), len(one), len(refTwo), len(refOne))
	d := make([]float64, n)
	for i := range n {
		d[i] = ((two[i] - one[i]) - (refTwo[i] - refOne[i])) / 2
	}
	return report.Summarize(d).P50
}

// roundPair adds the rows of a round on one stream and on two (with the
// two-stream row's vs_ref, its p50 over the one-stream row's) and returns
// their summaries.
func roundPair(rep *report.Report, name, onePath string, oneNs []float64, twoPath string, twoNs []float64) (one, two report.Summary) {
	one = add(rep, name, onePath, oneNs, nil)
	two = add(rep, name, twoPath, twoNs, nil)
	rep.Rows[len(rep.Rows)-1].Metrics["vs_ref"] = two.P50 / one.P50
	return one, two
}
