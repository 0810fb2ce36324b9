package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxResultFiles is the most files bench/results may hold: the
// repository's commit hook refuses more.
const maxResultFiles = 250

// citation matches a path under bench/results, with the commit that holds
// it when it is written rev:path (a file git history keeps).
var citation = regexp.MustCompile(`(?:\b([0-9a-f]{7,40}):)?\bbench/results(?:/[A-Za-z0-9_.*-]+)*/?`)

// cited is one citation: where it is and what it names.
type cited struct {
	where string // file:line
	rev   string // "" for the working tree
	path  string
}

// citations finds every citation in text; a path followed by a
// placeholder (bench/results/<gpu>/, bench/results/${model}) or ending in
// one (bench/results/...) is none.
func citations(name, text string) []cited {
	var out []cited
	for i, line := range strings.Split(text, "\n") {
		for _, m := range citation.FindAllStringSubmatchIndex(line, -1) {
			if end := m[1]; end < len(line) && strings.ContainsRune("<$", rune(line[end])) {
				continue
			}
			if strings.Contains(line[m[0]:m[1]], "...") {
				continue
			}
			rev := ""
			if m[2] >= 0 {
				rev = line[m[2]:m[3]]
			}
			path := line[m[0]:m[1]]
			if rev != "" {
				path = path[len(rev)+1:]
			}
			out = append(out, cited{where: name + ":" + strconv.Itoa(i+1), rev: rev, path: path})
		}
	}
	return out
}

// repoRoot is the module's root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(root, "BENCHMARKS.md")); err != nil {
		t.Skipf("no BENCHMARKS.md at %s (a test binary away from its tree)", root)
	}
	return root
}

// documents are the files that may cite results: Markdown, Go, shell,
// Python and the Makefile, outside bench/results and hidden folders.
func documents(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || rel == filepath.Join("bench", "results") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == filepath.Join("bench", "tables", "citations_test.go") { // its examples cite nothing
			return nil
		}
		switch filepath.Ext(p) {
		case ".md", ".go", ".sh", ".py":
			out = append(out, rel)
		default:
			if d.Name() == "Makefile" {
				out = append(out, rel)
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// git runs git in root; ok false when git or the repository is missing.
func git(root string, args ...string) (string, bool) {
	out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
	return strings.TrimSpace(string(out)), err == nil
}

// Every path under bench/results that the documentation cites exists: in
// the working tree, or, written rev:path, at that commit (checked where
// git and the full history are at hand).
func TestResultCitationsResolve(t *testing.T) {
	root := repoRoot(t)
	shallow, ok := git(root, "rev-parse", "--is-shallow-repository")
	history := ok && shallow == "false"
	if !history {
		t.Log("no full git history here: citations of older commits are not checked")
	}
	n := 0
	for _, rel := range documents(t, root) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		require.NoError(t, err)
		for _, c := range citations(rel, string(b)) {
			n++
			// A glob names its folder; the folder must hold a match.
			path, glob := strings.TrimSuffix(c.path, "/"), ""
			if i := strings.IndexByte(path, '*'); i >= 0 {
				path, glob = filepath.Dir(path[:i+1]), filepath.Base(c.path)
			}
			if c.rev == "" {
				full := filepath.Join(root, filepath.FromSlash(path))
				if glob != "" {
					m, _ := filepath.Glob(filepath.Join(full, glob))
					assert.NotEmpty(t, m, "%s cites %s: nothing matches it (cite the commit that holds it as rev:%s)", c.where, c.path, c.path)
					continue
				}
				_, err := os.Stat(full)
				assert.NoError(t, err, "%s cites %s, which bench/results does not hold (cite the commit that holds it as rev:%s)", c.where, c.path, c.path)
				continue
			}
			if !history {
				continue
			}
			if _, ok := git(root, "cat-file", "-e", c.rev+"^{commit}"); !ok {
				// A copy of the tree whose history lacks the commit (the
				// GPU bundle's): nothing to check it against here.
				t.Logf("%s cites commit %s, which this history does not hold: not checked", c.where, c.rev)
				continue
			}
			_, ok := git(root, "cat-file", "-e", c.rev+":"+path)
			assert.True(t, ok, "%s cites %s:%s, which that commit does not hold", c.where, c.rev, c.path)
		}
	}
	assert.Positive(t, n, "no citations found: is the pattern still right?")
}

func TestCitationsParse(t *testing.T) {
	got := citations("X.md", "see `bench/results/h100/run-1/` and `abc1234:bench/results/h200/*.json`,\n"+
		"into bench/results/<gpu>/ or bench/results/${model} or rev:bench/results/...; -out bench/results")
	assert.Equal(t, []cited{
		{"X.md:1", "", "bench/results/h100/run-1/"},
		{"X.md:1", "abc1234", "bench/results/h200/*.json"},
		{"X.md:2", "", "bench/results"},
	}, got)
}

// bench/results stays within what the commit hook accepts.
func TestResultsWithinLimit(t *testing.T) {
	root := repoRoot(t)
	n := 0
	err := filepath.WalkDir(filepath.Join(root, "bench", "results"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	require.NoError(t, err)
	assert.LessOrEqual(t, n, maxResultFiles, "bench/results holds %d files: keep the latest complete run of each machine kind and what BENCHMARKS.md cites, git rm the rest (BENCHMARKS.md, How the results are produced)", n)
}
