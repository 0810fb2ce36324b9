package headless

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeBrowser writes an executable shell script standing in for the
// browser and returns its path.
func fakeBrowser(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-chromium")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755))
	return p
}

func TestFindHonoursEnvBrowser(t *testing.T) {
	b := fakeBrowser(t, "exit 0\n")
	t.Setenv(EnvBrowser, b)
	got, err := Find()
	require.NoError(t, err)
	assert.Equal(t, b, got)

	t.Setenv(EnvBrowser, filepath.Join(t.TempDir(), "no-such-browser"))
	_, err = Find()
	assert.Error(t, err, "a browser named in %s that does not exist", EnvBrowser)
}

func TestFindWithoutBrowser(t *testing.T) {
	t.Setenv(EnvBrowser, "")
	t.Setenv("PATH", t.TempDir())
	_, err := Find()
	assert.ErrorIs(t, err, ErrNoBrowser)
	assert.Contains(t, err.Error(), EnvBrowser)
}

func TestRequired(t *testing.T) {
	t.Setenv(EnvRequire, "1")
	assert.True(t, Required())
	t.Setenv(EnvRequire, "")
	assert.False(t, Required())
}

// The page reaches the browser as an absolute file URL, headless, in a
// profile of its own, and DumpDOM returns what the browser printed.
func TestDumpDOMCommandLine(t *testing.T) {
	b := fakeBrowser(t, `for a in "$@"; do echo "$a"; done`+"\n")
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	require.NoError(t, os.WriteFile(page, []byte("<html></html>"), 0o644))
	t.Chdir(dir)
	out, err := DumpDOM(b, "page.html", time.Minute)
	require.NoError(t, err)
	args := strings.Split(strings.TrimSpace(out), "\n")
	assert.Contains(t, args, "--headless")
	assert.Contains(t, args, "--dump-dom")
	assert.Equal(t, "file://"+page, args[len(args)-1], "the page goes last, as an absolute file URL")
	var profile string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--user-data-dir="); ok {
			profile = v
		}
	}
	require.NotEmpty(t, profile, "a profile directory of its own")
	_, err = os.Stat(profile)
	assert.True(t, os.IsNotExist(err), "the profile directory is removed afterwards")
}

func TestBrowserFailureCarriesItsStderr(t *testing.T) {
	b := fakeBrowser(t, "echo 'cannot open display' >&2\nexit 3\n")
	_, err := DumpDOM(b, "page.html", time.Minute)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot open display")
	assert.Contains(t, err.Error(), "exit status 3")
}

func TestScreenshot(t *testing.T) {
	// The fake writes the file named by --screenshot=.
	writes := fakeBrowser(t, `for a in "$@"; do case "$a" in --screenshot=*) printf 'PNG' > "${a#--screenshot=}";; esac; done`+"\n")
	png := filepath.Join(t.TempDir(), "shot.png")
	require.NoError(t, Screenshot(writes, "page.html", png, 640, 480, time.Minute))
	data, err := os.ReadFile(png)
	require.NoError(t, err)
	assert.Equal(t, "PNG", string(data))

	silent := fakeBrowser(t, "exit 0\n")
	err = Screenshot(silent, "page.html", filepath.Join(t.TempDir(), "none.png"), 640, 480, time.Minute)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "wrote no screenshot")
}

func TestTimeoutStopsTheBrowser(t *testing.T) {
	b := fakeBrowser(t, "exec sleep 30\n")
	start := time.Now()
	_, err := DumpDOM(b, "page.html", 200*time.Millisecond)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 20*time.Second, "the browser is killed at the timeout")
}
