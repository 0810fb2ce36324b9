# gpuarr: make check | test | mutate | demo | bench | gpu-bundle | gpu-results DIR=...
# Needs Go and gcc (cgo: the CUDA backend and the race detector); modules
# come from the Go proxy.

SHELL := /bin/bash
GO ?= go
# The fuzz budget is a count of executions, not a duration: with a duration,
# Go 1.26's fuzz coordinator can report its own deadline as a failure
# ("context deadline exceeded", no failing input; golang/go#75804, fixed in
# Go 1.27).
FUZZTIME ?= 1000x
BENCH_OUT ?= bench/results
# The CUDA backend's benchmark probes (C loops that bench/binding and
# bench/kernels compare with) exist only in builds with this tag.
BENCH_TAGS ?= gpuarrbench

.PHONY: all check test-short test fmt-check vet imports test-race test-host-check test-unified test-programs test-ptxsim fuzz mutate demo bench gpu-bundle gpu-results help

all: test

help:
	@echo "make check        the inner loop, a few minutes: gofmt check, go vet, backend import check, go test -short, the array packages on 2 checking host devices and with unified memory as the default, the sort/scan/index kernels' PTX in the PTX interpreter"
	@echo "make test         CI's suite: gofmt check, go vet, backend import check, go test -race, again on 2 checking host devices, again with unified memory as the default, 10^4 random user programs, the PTX interpreter tests, bounded fuzz"
	@echo "make mutate       apply each deliberate synchronization/lifetime bug of .ci/mutate to a copy of the tree: the tests and bench/stress must catch every one"
	@echo "make demo         gpuarr info and the vecadd example on the default device"
	@echo "make bench        every benchmark program under bench/ on the default device, JSON to $(BENCH_OUT)"
	@echo "make gpu-bundle   test binaries, programs and scripts into .gpu/ for a GPU machine (bash .gpu/run.sh)"
	@echo "make gpu-results DIR=...   unpack a GPU run's results.tar.gz, its bench JSON and summary into bench/results/<gpu>/run-<commit>/"

test: fmt-check vet imports test-race test-host-check test-unified test-programs test-ptxsim fuzz

# The inner loop: what catches most mistakes in a few minutes. No race
# detector, -short (the long stress tests shrink), and the checking host
# devices only for the packages whose ordering they exercise. CI runs
# make test.
check: fmt-check vet imports test-short

test-short:
	$(GO) test -short ./...
	GPUARR_HOST_DEVICES=2 GPUARR_HOST_CHECK=1 $(GO) test -short -count=1 ./gpuarr/... ./unified/... ./collective/...
	GPUARR_DEFAULT_MEMORY=unified $(GO) test -short -count=1 ./gpuarr/... ./unified/...
	GPUARR_PTXSIM=1 $(GO) test -short -count=1 -run '$(PTXSIM_TESTS)' ./gpuarr/

# The tests of sorting, scanning, indexing and joining (issue 29) with
# their kernels' PTX run in the PTX interpreter (internal/ptxsim) instead
# of the Go twins, so that CI checks the code a GPU runs: make check runs
# them -short (fewer sizes and types), make test in full.
PTXSIM_TESTS = Take|Put|IndexAdd|Deterministic|MaskedSelect|Nonzero|Compress|Scan|Cum|Sort|TopK|SearchSorted|Unique|Concatenate|Stack|Pad|Bincount|Histogram

test-ptxsim:
	GPUARR_PTXSIM=1 $(GO) test -count=1 -timeout 30m -run '$(PTXSIM_TESTS)' ./gpuarr/

fmt-check:
	@files=$$(gofmt -l .); \
	if [[ -n "$$files" ]]; then echo "gofmt: not formatted (run gofmt -w):"; echo "$$files"; exit 1; fi

# ./... skips .ci (a dot folder): its mutation program is named.
vet:
	$(GO) vet ./... ./.ci/mutate

# No package outside device/ (tests included) imports device/host or
# device/cuda, nor outside device/ and bench/ (its probes) device/driver:
# backends and their contract are reached through package device.
imports:
	@GO=$(GO) bash .ci/check-imports.sh

test-race:
	$(GO) test -race ./...

# The whole suite again on two host devices with the checking mode (random
# delays in stream work, poisoned freed memory); -count=1 because the cache
# does not know these variables matter.
test-host-check:
	GPUARR_HOST_DEVICES=2 GPUARR_HOST_CHECK=1 $(GO) test -race -count=1 ./...
	GPUARR_HOST_DEVICES=4 GPUARR_HOST_CHECK=1 $(GO) test -race -count=1 ./collective/... ./examples/multigpu/... ./examples/ddp/...

# The suite again with unified memory as every array's default memory
# (GPUARR_DEFAULT_MEMORY=unified: the managed caching pool under every
# test): the whole suite without -race (the runs above race-check the same
# code on device memory; this keeps CI's time), the packages whose paths
# the default memory changes under -race, and the array packages on two
# checking host devices (managed memory uncached there, so freed memory is
# quarantined).
test-unified:
	GPUARR_DEFAULT_MEMORY=unified $(GO) test -count=1 ./...
	GPUARR_DEFAULT_MEMORY=unified $(GO) test -race -count=1 ./gpuarr/... ./unified/... ./internal/lifetime/...
	GPUARR_DEFAULT_MEMORY=unified GPUARR_HOST_DEVICES=2 GPUARR_HOST_CHECK=1 $(GO) test -count=1 ./gpuarr/... ./unified/... ./linalg/... ./fft/...

# The randomized user-program test (unified/programs_test.go) at full
# length: 10^4 trials on two checking host devices, without -race (the
# runs above take its default of 200 trials under -race).
test-programs:
	set -o pipefail; GPUARR_HOST_DEVICES=2 GPUARR_HOST_CHECK=1 GPUARR_TEST_PROGRAMS=10000 \
		$(GO) test -count=1 -run '^TestUserPrograms$$' -v ./unified | grep -E '^(---|ok|FAIL)|programs_test'

fuzz:
	@if grep -qs '^func FuzzCachingPool(' memory/*_test.go; then \
		echo "$(GO) test -run='^$$' -fuzz='^FuzzCachingPool$$' -fuzztime=$(FUZZTIME) ./memory"; \
		$(GO) test -run='^$$' -fuzz='^FuzzCachingPool$$' -fuzztime=$(FUZZTIME) ./memory; \
	else \
		echo "fuzz: memory has no FuzzCachingPool yet; skipped"; \
	fi

# Each mutation of .ci/mutate/mutations.go (a deliberate synchronization
# or lifetime bug) applied to a temporary copy of the tree, one at a time:
# the test packages it concerns (GPUARR_HOST_CHECK=1, two host devices, no
# -race) and the stress program must fail. Prints the table the README's
# testing section shows, and the time taken. MUTATE_FLAGS passes flags,
# e.g. MUTATE_FLAGS='-only waiton'.
MUTATE_FLAGS ?=
mutate:
	$(GO) test -count=1 ./.ci/mutate
	$(GO) run ./.ci/mutate $(MUTATE_FLAGS)

demo:
	$(GO) run ./cmd/gpuarr info
	@echo
	$(GO) run ./examples/vecadd
	@echo
	$(GO) run ./examples/train

# Every benchmark program under bench/ (the Python peer scripts need a GPU
# and PyTorch; they run from the GPU bundle). bench/tables reads results and
# is not one; bench/train runs in interleaved rounds from the GPU bundle.
bench:
	@pkgs=$$($(GO) list -e -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' ./bench/... 2>/dev/null | grep -v -E '/bench/(tables|train)$$'); \
	if [[ -z "$$pkgs" ]]; then echo "bench: no benchmark programs under bench/"; exit 0; fi; \
	rc=0; \
	for p in $$pkgs; do \
		echo "== $$p"; \
		$(GO) run -tags $(BENCH_TAGS) $$p -out $(BENCH_OUT) || rc=1; \
	done; \
	exit $$rc

gpu-bundle:
	@bash bench/gpu/bundle.sh

gpu-results:
	@if [[ -z "$(DIR)" ]]; then echo "usage: make gpu-results DIR=<folder holding results.tar.gz>"; exit 2; fi
	@bash bench/gpu/collect.sh "$(DIR)"
