package main

// The mutations: each breaks one synchronization or lifetime rule the way
// a plausible bug would, by exact-text patches. An anchor (old) must occur
// exactly once in its file; when the code around it changes, make mutate
// stops and names the mutation, so a mutation never rots into a no-op.
//
// pkgs are the test packages that must catch it (run whole, under
// GPUARR_HOST_CHECK=1 and GPUARR_HOST_DEVICES=2); stress says whether the
// stress program (bench/stress) must catch it too. The README's testing
// section has the table of what caught each one.

// trackingPkgs are the packages whose operations go through the arrays'
// stream tracking (internal/tracking).
var trackingPkgs = []string{"./gpuarr", "./unified", "./collective"}

var mutations = []mutation{
	{
		name: "waiton-no-wait",
		what: "a stream that must wait on an already recorded event does not (the s.Wait in tracking's waitOn is gone)",
		patches: []patch{{file: "internal/tracking/tracking.go",
			old: "\tif err := s.Wait(ev.use()); err != nil {\n\t\treturn err\n\t}\n\tcountWaits(1)\n\treturn nil\n}",
			new: "\tcountWaits(1)\n\treturn nil\n}"}},
		pkgs:   trackingPkgs,
		stress: true,
	},
	{
		name: "record-without-wait",
		what: "a hand-off records the writer's event but the reader's stream never waits for it (RecordWait becomes Record)",
		patches: []patch{{file: "internal/tracking/tracking.go",
			old: "\tif err := on.RecordWait(ev.use(), waiter); err != nil {",
			new: "\tif err := on.Record(ev.use()); err != nil {"}},
		pkgs:   trackingPkgs,
		stress: true,
	},
	{
		name: "launch-drops-handoffs",
		what: "a launch whose ordering held its hand-offs (tracking.Handoffs) is issued without them: no record, no wait",
		patches: []patch{{file: "internal/tracking/handoffs.go",
			old: "\tdone, err := s.LaunchArgsAfter(h0, h1, k, cfg, a)\n",
			new: "\t_, _ = h0, h1\n\tdone, err := j.n, s.LaunchArgs(k, cfg, a)\n"}, {file: "internal/tracking/handoffs.go",
			old: "\tdone, err := s.LaunchAfter(h0, h1, k, cfg, args...)\n",
			new: "\t_, _ = h0, h1\n\tdone, err := j.n, s.Launch(k, cfg, args...)\n"}},
		pkgs:   trackingPkgs,
		stress: true,
	},
	{
		name: "write-skips-readers",
		what: "a write does not wait for the reads other streams issued before it",
		patches: []patch{{file: "internal/tracking/tracking.go",
			old: "\t\tfor i := range t.readers {\n\t\t\tif r := &t.readers[i]; r.s != s {\n\t\t\t\tif err := t.waitReaderLocked(s, r, j); err != nil {\n\t\t\t\t\treturn err\n\t\t\t\t}\n\t\t\t}\n\t\t}\n",
			new: ""}},
		pkgs:   trackingPkgs,
		stress: true,
	},
	{
		name: "drop-dirty-bit",
		what: "a GPU write does not mark the array dirty, so a host read does not wait for it",
		patches: []patch{{file: "internal/tracking/tracking.go",
			old: "\tt.wfresh, t.wread = false, false\n\tt.dirty = true\n",
			new: "\tt.wfresh, t.wread = false, false\n"}},
		pkgs:   trackingPkgs,
		stress: true,
	},
	{
		name: "skip-record-use",
		what: "freeing an array used on other streams does not declare them to the pool (RecordUse)",
		patches: []patch{{file: "internal/tracking/release.go",
			old: "\t\t\tkeep(res.RecordUse(blk, s))\n",
			new: "\t\t\tkeep(nil)\n"}},
		pkgs:   trackingPkgs,
		stress: true,
	},
	{
		name: "free-before-last-reader",
		what: "the caching pool hands a freed block back to its own stream at once, before the other streams that used it are done",
		patches: []patch{{file: "memory/free.go",
			old: "\tif len(b.uses) == 0 && p.frontBlocks > 0 && !sc.dead {",
			new: "\tif p.frontBlocks > 0 && !sc.dead {"}},
		pkgs:   []string{"./memory", "./gpuarr"},
		stress: true,
	},
	{
		name: "pool-skips-cross-stream-wait",
		what: "a stream that takes memory another stream freed does not wait for that stream's free point",
		patches: []patch{{file: "memory/events.go",
			old: "\t\tif err := taker.stream.Wait(e.ev); err != nil {\n\t\t\treturn err\n\t\t}\n\t\tp.a.crossWaits++\n",
			new: "\t\tp.a.crossWaits++\n"}},
		pkgs: []string{"./memory", "./gpuarr"},
	},
	{
		name: "graph-pool-released-early",
		what: "a graph's private pool returns its memory when the capture ends, while the graph still uses it",
		patches: []patch{{file: "gpuarr/graph.go",
			old: "\tp.capturing = false\n\tif p.graphs == 0 {\n\t\t_ = p.drainLocked()\n\t}\n",
			new: "\tp.capturing = false\n\t_ = p.drainLocked()\n"}},
		pkgs:   []string{"./gpuarr"},
		stress: true,
	},
	{
		name: "graph-close-skips-replay",
		what: "closing a graph returns its pool's memory without waiting for a replay still queued (no wait in Close, the launch stream dropped unclosed)",
		patches: []patch{{file: "gpuarr/graph.go",
			old: "\t\tif e := p.last.Synchronize(); e != nil && !closed(e) {\n\t\t\terr = errors.Join(err, e)\n\t\t}\n\t}\n\tif last {",
			new: "\t}\n\tif last {"}, {file: "gpuarr/graph.go",
			old: "\t\tif e := p.launch.Close(); e != nil && !closed(e) {",
			new: "\t\tif e := error(nil); e != nil && !closed(e) {"}},
		pkgs:   []string{"./gpuarr"},
		stress: true,
	},
	{
		name: "replay-stream-not-joined",
		what: "a replay's stream does not wait for the graph launched on its pool's stream: work issued after the replay overtakes it",
		patches: []patch{{file: "device/capture.go",
			old: "\treturn on.RecordWait(after, caller)\n",
			new: "\treturn nil\n"}},
		pkgs:   []string{"./device", "./gpuarr"},
		stress: true,
	},
	{
		name: "view-does-not-keep-array",
		what: "a unified array's CPU view does not keep the array alive: the GC returns its memory while the view is live",
		patches: []patch{{file: "unified/access.go",
			old: "&viewLayout{a: a, ls: lay.Lease,",
			new: "&viewLayout{ls: func() *arrayhook.HostLease { l := *lay.Lease; return &l }(),"}},
		pkgs:   []string{"./unified"},
		stress: true,
	},
	{
		name: "managed-free-skips-streams",
		what: "a unified (managed) block is returned to the driver without waiting for the streams still using it",
		patches: []patch{{file: "memory/managed.go",
			old: "\t\tif err := s.Synchronize(); err != nil && !errors.Is(err, device.ErrClosed) {\n",
			new: "\t\tif err := error(nil); s == nil && !errors.Is(err, device.ErrClosed) {\n"}},
		pkgs:   []string{"./memory", "./unified"},
		stress: true,
	},
	{
		name: "collective-untracked",
		what: "a collective is issued without ordering it against the arrays' other streams (no tracking)",
		patches: []patch{{file: "collective/ops.go",
			old: "\terr := arrayhook.Track(call, b.uses, func() error {",
			new: "\terr := arrayhook.Track(call, nil, func() error {"}},
		pkgs:   []string{"./collective"},
		stress: true,
	},
}
