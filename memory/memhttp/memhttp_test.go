package memhttp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

// The import registers the profile beside net/http/pprof's handlers and
// memory.Metrics as expvar's "gpuarr".
func TestServesProfileAndMetrics(t *testing.T) {
	dev, err := device.Default()
	require.NoError(t, err)
	r, err := memory.Default(dev)
	require.NoError(t, err)
	b, err := r.Alloc(nil, 1<<20)
	require.NoError(t, err)
	defer r.Free(b)

	srv := httptest.NewServer(http.DefaultServeMux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/debug/pprof/gpuheap?gc=1")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	p, err := profile.Parse(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "inuse_space", p.DefaultSampleType)

	resp2, err := http.Get(srv.URL + "/debug/vars")
	require.NoError(t, err)
	defer resp2.Body.Close()
	var vars map[string]json.RawMessage
	require.NoError(t, json.NewDecoder(resp2.Body).Decode(&vars))
	require.Contains(t, vars, ExpvarName)
	var m map[string]float64
	require.NoError(t, json.Unmarshal(vars[ExpvarName], &m))
	name := "memory/" + dev.Backend() + ":" + strconv.Itoa(dev.Ordinal()) + "/allocated_bytes"
	assert.Contains(t, m, name)
	assert.GreaterOrEqual(t, m[name], float64(1<<20))
}
