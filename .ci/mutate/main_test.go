package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every mutation's anchors occur exactly once in the tree as it is: a
// change to the code they anchor on shows up here, naming the mutation.
func TestEveryAnchorOnce(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, m := range mutations {
		if names[m.name] {
			t.Errorf("two mutations named %s", m.name)
		}
		names[m.name] = true
		if len(m.pkgs) == 0 || len(m.patches) == 0 || m.what == "" {
			t.Errorf("mutation %s: needs what, patches and pkgs", m.name)
		}
		got, err := m.apply(root)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, p := range m.patches {
			if orig, _ := os.ReadFile(filepath.Join(root, p.file)); string(got[p.file]) == string(orig) {
				t.Errorf("mutation %s changes nothing in %s", m.name, p.file)
			}
		}
	}
}

// A missing or repeated anchor is an error that names the mutation and
// the file.
func TestStaleAnchorsFail(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.go"), []byte("a\nb\na\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, want string }{
		{"c\n", "mutation m: its anchor is gone from f.go"},
		{"a\n", "mutation m: its anchor occurs 2 times in f.go"},
	} {
		m := mutation{name: "m", patches: []patch{{file: "f.go", old: c.old, new: "x"}}}
		_, err := m.apply(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("anchor %q: got %v, want an error containing %q", c.old, err, c.want)
		}
	}
	m := mutation{name: "m", patches: []patch{{file: "f.go", old: "b\n", new: "B\n"}}}
	got, err := m.apply(dir)
	if err != nil || string(got["f.go"]) != "a\nB\na\n" {
		t.Errorf("apply = %q, %v", got["f.go"], err)
	}
}
