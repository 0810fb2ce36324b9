package collective

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFirstHost(t *testing.T) {
	for list, want := range map[string]string{
		"node1":                    "node1",
		"gpu[01-04,07],login1":     "gpu01",
		"gpu[7,9-10]":              "gpu7",
		"a1,b[2-3]":                "a1",
		"rack[1-2]-node[08-09]":    "rack1-node08",
		"[3-4]x":                   "3x",
		" gpu[001-128] ":           "gpu001",
		"10.0.0.1,10.0.0.2":        "10.0.0.1",
		"gpu-a100-[0017-0020]-ib0": "gpu-a100-0017-ib0",
	} {
		got, err := firstHost(list)
		require.NoError(t, err, list)
		require.Equal(t, want, got, list)
	}
	for list, msg := range map[string]string{
		"":          "empty host list",
		"gpu[01-04": "without its ]",
		"gpu01-04]": "without its [",
		"gpu[[1]]":  "nested",
		"gpu[a-b]":  "does not start with a number",
		"gpu[]":     "does not start with a number",
		",gpu1":     "empty first host",
	} {
		_, err := firstHost(list)
		require.ErrorContains(t, err, msg, list)
	}
}

func TestTasksPerNode(t *testing.T) {
	got, err := tasksPerNode("2(x3),1,4(x1)")
	require.NoError(t, err)
	require.Equal(t, []int{2, 2, 2, 1, 4}, got)
	for _, bad := range []string{"", "x", "2(x", "2(x0)", "0", "2(y3)", "-1"} {
		_, err := tasksPerNode(bad)
		require.Error(t, err, bad)
	}
}
