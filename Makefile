# gpuarr: make test | demo | bench | gpu-bundle | gpu-results DIR=...
# Needs only Go and gcc (cgo); modules come from the Go proxy.

SHELL := /bin/bash
GO ?= go
FUZZTIME ?= 20s
BENCH_OUT ?= bench/results
# The CUDA backend's benchmark probes (C loops that bench/binding and
# bench/kernels compare with) exist only in builds with this tag.
BENCH_TAGS ?= gpuarrbench

.PHONY: all test fmt-check vet imports test-race test-host-check fuzz demo bench gpu-bundle gpu-results help

all: test

help:
	@echo "make test         gofmt check, go vet, backend import check, go test -race, again on 2 checking host devices, bounded fuzz"
	@echo "make demo         gpuarr info and the vecadd example on the default device"
	@echo "make bench        every benchmark program under bench/ on the default device, JSON to $(BENCH_OUT)"
	@echo "make gpu-bundle   test binaries, programs and scripts into .gpu/ for a GPU machine (bash .gpu/run.sh)"
	@echo "make gpu-results DIR=...   unpack a GPU run's results.tar.gz, bench JSON into bench/results"

test: fmt-check vet imports test-race test-host-check fuzz

fmt-check:
	@files=$$(gofmt -l .); \
	if [[ -n "$$files" ]]; then echo "gofmt: not formatted (run gofmt -w):"; echo "$$files"; exit 1; fi

vet:
	$(GO) vet ./...

# No package outside device/ (tests included) imports device/host or
# device/cuda: backends are reached through package device.
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

fuzz:
	@if grep -qs '^func FuzzCachingPool(' memory/*_test.go; then \
		echo "$(GO) test -run='^$$' -fuzz='^FuzzCachingPool$$' -fuzztime=$(FUZZTIME) ./memory"; \
		$(GO) test -run='^$$' -fuzz='^FuzzCachingPool$$' -fuzztime=$(FUZZTIME) ./memory; \
	else \
		echo "fuzz: memory has no FuzzCachingPool yet; skipped"; \
	fi

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
