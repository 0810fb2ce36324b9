// Package memhttp serves gpuarr's GPU memory over HTTP the way
// net/http/pprof and expvar serve Go's heap: importing it, as
//
//	import _ "github.com/gpuarr/gpuarr/memory/memhttp"
//
// registers the GPU memory profile at /debug/pprof/gpuheap on
// http.DefaultServeMux (beside net/http/pprof's handlers), and publishes
// memory.Metrics as the expvar map "gpuarr" (served at /debug/vars).
// Handler returns the profile's handler for another mux (Example):
//
//	mux.Handle("/debug/pprof/gpuheap", memhttp.Handler())
//
// Then:
//
//	go tool pprof http://localhost:6060/debug/pprof/gpuheap
//	go tool pprof -http=: -sample_index=alloc_space http://localhost:6060/debug/pprof/gpuheap
//
// It is a package of its own so that programs that do not serve HTTP do
// not link net/http.
package memhttp

import (
	"expvar"
	"fmt"
	"net/http"
	"runtime"

	"github.com/gpuarr/gpuarr/memory"
)

// ExpvarName is the expvar variable holding memory.Metrics.
const ExpvarName = "gpuarr"

func init() {
	http.Handle("/debug/pprof/gpuheap", Handler())
	expvar.Publish(ExpvarName, expvar.Func(func() any { return memory.Metrics() }))
}

// Handler serves memory.WriteProfile. With ?gc=1 it first runs a garbage
// collection, so that arrays no longer reachable have given their memory
// back (their cleanups run after the collection; the profile may still
// count some of them), as /debug/pprof/heap?gc=1 does for the Go heap.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("gc") == "1" {
			runtime.GC()
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="gpuheap"`)
		if err := memory.WriteProfile(w); err != nil {
			http.Error(w, fmt.Sprintf("gpuheap: %v", err), http.StatusInternalServerError)
		}
	})
}
