package memhttp_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/gpuarr/gpuarr/memory/memhttp"
)

// The GPU memory profile served on a mux of one's own; go tool pprof reads
// it from there as from /debug/pprof/heap.
func Example() {
	mux := http.NewServeMux()
	mux.Handle("/debug/pprof/gpuheap", memhttp.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/debug/pprof/gpuheap")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, len(body) > 0, err)
	// Output: 200 OK true <nil>
}
