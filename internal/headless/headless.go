// Package headless drives a headless Chromium from Debian's chromium
// package (or any Chrome-compatible browser) through its command line:
// load a page from a file, then dump the DOM after its scripts ran, or
// take a screenshot (Example). Tests and benchmarks of gpuarr's HTML pages
// use it.
package headless

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// EnvBrowser names the browser binary to use (default: the first of
// chromium, chromium-browser, google-chrome, chrome on PATH).
const EnvBrowser = "GPUARR_BROWSER"

// EnvRequire = 1 makes a missing browser an error instead of a reason to
// skip (CI sets it: the browser test must run there).
const EnvRequire = "GPUARR_BROWSER_TEST"

// ErrNoBrowser is returned by Find when no browser is installed.
var ErrNoBrowser = errors.New("no headless browser found (install Debian's chromium package, or set " + EnvBrowser + ")")

// Find returns the browser's path.
func Find() (string, error) {
	if b := os.Getenv(EnvBrowser); b != "" {
		return exec.LookPath(b)
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

// Required reports whether EnvRequire demands the browser.
func Required() bool { return os.Getenv(EnvRequire) == "1" }

// run runs the browser headless on the page file with extra flags, in a
// profile directory of its own, and returns its standard output.
func run(ctx context.Context, browser, page string, width, height int, flags ...string) ([]byte, error) {
	abs, err := filepath.Abs(page)
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "gpuarr-headless-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--hide-scrollbars", "--user-data-dir=" + profile, fmt.Sprintf("--window-size=%d,%d", width, height),
	}, flags...)
	args = append(args, "file://"+abs)
	cmd := exec.CommandContext(ctx, browser, args...)
	var stderr []byte
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", browser, err, stderr)
	}
	return out, nil
}

// DumpDOM loads the page and returns the DOM serialized after its scripts
// ran (the load event).
func DumpDOM(browser, page string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := run(ctx, browser, page, 1400, 900, "--dump-dom")
	return string(out), err
}

// Screenshot loads the page and writes a PNG of width × height pixels to
// png.
func Screenshot(browser, page, png string, width, height int, timeout time.Duration) error {
	abs, err := filepath.Abs(png)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if _, err := run(ctx, browser, page, width, height, "--screenshot="+abs); err != nil {
		return err
	}
	if st, err := os.Stat(abs); err != nil || st.Size() == 0 {
		return fmt.Errorf("%s wrote no screenshot to %s", browser, abs)
	}
	return nil
}
