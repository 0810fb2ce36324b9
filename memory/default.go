package memory

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
)

// The default resource of each device, built once from the environment.
var defaults struct {
	mu sync.Mutex
	m  map[*device.Device]*defaultEntry
}

type defaultEntry struct {
	once   sync.Once
	dev    *device.Device
	r      Resource
	tracer *Tracer
	err    error
	hard   uint64      // the configuration's hard limit
	ready  atomic.Bool // r is built (Metrics reads only such entries)
}

func defaultFor(dev *device.Device) *defaultEntry {
	defaults.mu.Lock()
	defer defaults.mu.Unlock()
	if defaults.m == nil {
		defaults.m = make(map[*device.Device]*defaultEntry)
	}
	e := defaults.m[dev]
	if e == nil {
		e = &defaultEntry{}
		defaults.m[dev] = e
	}
	e.once.Do(func() {
		var cfg Config
		if cfg, e.err = ConfigFromEnv(dev, nil); e.err == nil {
			cfg.Pressure, e.hard = true, cfg.HardLimit
			e.r, e.tracer, e.err = New(dev, cfg)
		}
		e.dev = dev
		e.ready.Store(e.r != nil)
	})
	return e
}

// builtDefaults returns the default resources built so far.
func builtDefaults() []*defaultEntry {
	defaults.mu.Lock()
	defer defaults.mu.Unlock()
	var out []*defaultEntry
	for _, e := range defaults.m {
		if e.ready.Load() {
			out = append(out, e)
		}
	}
	return out
}

// sortedDefaults is builtDefaults by backend and ordinal.
func sortedDefaults() []*defaultEntry {
	es := builtDefaults()
	slices.SortFunc(es, func(a, b *defaultEntry) int {
		return cmp.Or(cmp.Compare(a.dev.Backend(), b.dev.Backend()), cmp.Compare(a.dev.Ordinal(), b.dev.Ordinal()))
	})
	return es
}

// Default returns dev's default resource, the one arrays allocate from,
// built on first use from GPUARR_MEMORY_POOL, GPUARR_HARD_MEMORY_LIMIT,
// GPUARR_SOFT_MEMORY_LIMIT and GPUARR_MEMORY_TRACE (see New), with each
// allocation announced to the process-wide Pressure first (SetPressure). A
// malformed variable gives an error matching device.ErrBadConfig that names
// it, on every call.
func Default(dev *device.Device) (Resource, error) {
	e := defaultFor(dev)
	return e.r, e.err
}

// DefaultHardLimit is the hard limit of dev's default resource
// (GPUARR_HARD_MEMORY_LIMIT; see Default), 0 when it has none or could not
// be built.
func DefaultHardLimit(dev *device.Device) uint64 { return defaultFor(dev).hard }

// DefaultTracer returns the trace ring of dev's default resource, or nil
// when GPUARR_MEMORY_TRACE does not turn tracing on.
func DefaultTracer(dev *device.Device) *Tracer { return defaultFor(dev).tracer }

// New builds the resource a Config describes:
//
//	caching: Caching(Limit(Direct(dev), hard), soft)    (the default)
//	cuda:    Reclaiming(Limit(DriverPool(dev, soft), hard))
//	none:    Reclaiming(Limit(Direct(dev), hard))
//
// Limit is left out without a hard limit. With TraceEvents, a Tracer of
// that many events records blocks (and, for the caching pool, segments);
// it is returned too. With Pressure, each allocation is announced to the
// process-wide Pressure first (by the caching pool, else by an adaptor on
// top). cuda on a device without memory pools is an error naming
// GPUARR_MEMORY_POOL.
func New(dev *device.Device, cfg Config) (Resource, *Tracer, error) {
	var tr *Tracer
	if cfg.TraceEvents > 0 {
		tr = NewTracer(cfg.TraceEvents)
	}
	limit := func(r Resource) Resource {
		if cfg.HardLimit > 0 {
			return Limit(r, cfg.HardLimit)
		}
		return r
	}
	var r Resource
	switch cfg.Pool {
	case KindDriverPool:
		if !dev.Info().MemoryPools {
			return nil, nil, &device.ConfigError{Var: EnvPool, Value: cfg.Pool, Reason: dev.String() + " has no stream-ordered memory pools"}
		}
		dp, err := DriverPool(dev, DriverPoolOptions{SoftLimit: cfg.SoftLimit})
		if err != nil {
			return nil, nil, err
		}
		r = Reclaiming(limit(dp), nil)
		if cfg.Pressure {
			r = &pressured{upstream{r}}
		}
	case KindDirect:
		r = Reclaiming(limit(newDirect(dev)), nil)
		if cfg.Pressure {
			r = &pressured{upstream{r}}
		}
	default:
		var base Resource = newDirect(dev)
		if cfg.Expandable {
			e, err := Expandable(dev, ExpandableOptions{})
			if err != nil {
				return nil, nil, &device.ConfigError{Var: EnvExpandable, Value: "1", Reason: err.Error()}
			}
			base = e
		}
		up := limit(base)
		if tr != nil {
			up = tr.Wrap(up, TraceSegment)
		}
		r = Caching(up, CachingOptions{SoftLimit: cfg.SoftLimit, Pressure: cfg.Pressure})
	}
	if cfg.Pool != KindCaching {
		// The caching pool samples for the profile itself.
		r = profiled{upstream{r}}
	}
	if tr != nil {
		r = tr.Wrap(r, TraceBlock)
	}
	return r, tr, nil
}
