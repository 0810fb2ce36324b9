package main

import (
	"math/rand/v2"
	"testing"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
)

// scalarOnlySeed finds a seed whose draws in benchJIT include a tree that
// reads no array before enough fresh shapes are drawn: the case that made
// the JIT check index an n-element result of one element.
func scalarOnlySeed(t *testing.T, fresh int) int64 {
	t.Helper()
	for seed := int64(1); seed < 10000; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x6b65726e656c73))
		for range fresh {
			if !randomTree(rng, 6).readsArray() {
				return seed
			}
		}
	}
	t.Fatal("no seed below 10000 draws a tree of scalars alone")
	return 0
}

func TestReadsArray(t *testing.T) {
	scalars := &tree{op: opAdd, l: &tree{op: opScalar, v: 1}, r: &tree{op: opNeg, l: &tree{op: opScalar, v: 2}}}
	if scalars.readsArray() {
		t.Error("a tree of scalars reads an array")
	}
	withY := &tree{op: opMul, l: &tree{op: opScalar, v: 1}, r: &tree{op: opAbs, l: &tree{op: opY}}}
	if !withY.readsArray() {
		t.Error("a tree reading y reads no array")
	}
}

func TestBenchJITSkipsTreesOfScalars(t *testing.T) {
	const fresh = 4
	cfg := config{freshExprs: fresh, seed: scalarOnlySeed(t, fresh)}
	dev, err := device.Default()
	if err != nil {
		t.Fatal(err)
	}
	rep := report.New("kernels", dev.Name(), dev.Backend(), dev.DriverVersion())
	if err := benchJIT(rep, dev, cfg); err != nil {
		t.Fatalf("seed %d: %v", cfg.seed, err)
	}
}
