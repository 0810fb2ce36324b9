package main

import (
	"unsafe"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// benchHostRead times reading a clean array (written once, read since, so
// no GPU work is pending) to the host: CopyToHost against the raw
// synchronous copy of as many bytes, plus CopyToHost of an empty array,
// which does everything but the copy.
func benchHostRead(rep *report.Report, dev *device.Device, cfg config) error {
	const n = 16 // 64 bytes
	x, err := gpuarr.FromSlice(make([]float32, n), gpuarr.Shape{n})
	if err != nil {
		return err
	}
	defer x.Release()
	empty, err := gpuarr.Zeros[float32](gpuarr.Shape{0})
	if err != nil {
		return err
	}
	defer empty.Release()
	raw, err := dev.Alloc(n * 4)
	if err != nil {
		return err
	}
	defer dev.Free(raw)
	dst := make([]float32, n)
	if err := x.CopyToHost(dst); err != nil { // the one synchronization
		return err
	}

	var opErr error
	keep := func(err error) {
		if err != nil && opErr == nil {
			opErr = err
		}
	}
	viaArray := func() { keep(x.CopyToHost(dst)) }
	viaRaw := func() { keep(dev.CopyDtoH(unsafe.Pointer(&dst[0]), raw, n*4)) }
	viaEmpty := func() { keep(empty.CopyToHost(nil)) }
	for _, f := range []func(){viaArray, viaRaw, viaEmpty} {
		report.TimeBatches(10, cfg.readBatch, f)
	}
	var arr, rawNs, emptyNs []float64
	err = interleave(cfg.batches, nil,
		func() { arr = append(arr, report.TimeBatches(1, cfg.readBatch, viaArray)...) },
		func() { rawNs = append(rawNs, report.TimeBatches(1, cfg.readBatch, viaRaw)...) },
		func() { emptyNs = append(emptyNs, report.TimeBatches(1, 50*cfg.readBatch, viaEmpty)...) })
	if err != nil {
		return err
	}
	if opErr != nil {
		return opErr
	}
	const name = "host read of a clean array (64 B)"
	r := add(rep, name, "device.CopyDtoH, raw pointer", rawNs, nil)
	a := add(rep, name, "Array.CopyToHost", arr, nil)
	rep.Last().Metrics["vs_ref"] = a.P50 / r.P50
	// Both ways of isolating "all but the copy" carry the target, and each
	// is judged: the empty array's read (no copy at all) and the 64-byte
	// read less the raw copy of the same bytes.
	add(rep, "host read of a clean array (0 B)", "Array.CopyToHost of an empty array: all but the copy", emptyNs, nil)
	rep.Last().Judge("p50_ns", report.AtMost, targetHostReadNs)
	rep.Add("host read beyond the copy", map[string]string{"path": "CopyToHost − raw copy, 64 B"},
		map[string]float64{"p50_ns": a.P50 - r.P50, "min_ns": a.Min - r.Min}).Judge("p50_ns", report.AtMost, targetHostReadNs)
	return nil
}
