package readme

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// block is one ```go block of the README.
type block struct {
	line int    // README line of the block's first code line
	sig  string // the readme-check comment's signature, or ""
	code string
}

var checkComment = regexp.MustCompile(`^<!--\s*readme-check:\s*(func\(.*\).*?)\s*-->\s*$`)

// blocks extracts the ```go blocks of a Markdown text.
func blocks(md string) []block {
	var out []block
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		b := block{line: i + 2}
		if i > 0 {
			if m := checkComment.FindStringSubmatch(strings.TrimSpace(lines[i-1])); m != nil {
				b.sig = m[1]
			}
		}
		var code []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			code = append(code, lines[i])
		}
		b.code = strings.Join(code, "\n")
		out = append(out, b)
	}
	return out
}

// knownPackages are imported for the fragments that name them.
var knownPackages = map[string]string{
	"fmt":        "fmt",
	"gpuarr":     "github.com/gpuarr/gpuarr/gpuarr",
	"device":     "github.com/gpuarr/gpuarr/device",
	"collective": "github.com/gpuarr/gpuarr/collective",
	"unified":    "github.com/gpuarr/gpuarr/unified",
	"memory":     "github.com/gpuarr/gpuarr/memory",
	"gcpressure": "github.com/gpuarr/gpuarr/gcpressure",
}

var (
	importLine = regexp.MustCompile(`^import\s+("[^"]+")\s*$`)
	comment    = regexp.MustCompile(`//.*`)
)

// source is the file that compiles b as a main package of its own.
func source(b block) string {
	if strings.HasPrefix(strings.TrimSpace(b.code), "package ") {
		return fmt.Sprintf("//line README.md:%d\n%s\n", b.line, b.code)
	}
	lines := strings.Split(b.code, "\n")
	imports := map[string]bool{}
	first := 0
	for first < len(lines) {
		l := strings.TrimSpace(lines[first])
		if m := importLine.FindStringSubmatch(l); m != nil {
			imports[m[1]] = true
		} else if l != "" {
			break
		}
		first++
	}
	body := strings.Join(lines[first:], "\n")
	sig := b.sig
	if sig == "" {
		sig = "func() error"
	}
	code := comment.ReplaceAllString(body, "") + "\n" + sig
	for name, path := range knownPackages {
		if regexp.MustCompile(`\b` + name + `\.`).MatchString(code) {
			imports[`"`+path+`"`] = true
		}
	}
	var src strings.Builder
	src.WriteString("package main\n\n")
	for p := range imports {
		fmt.Fprintf(&src, "import %s\n", p)
	}
	fmt.Fprintf(&src, "\nvar _ = %s {\n//line README.md:%d\n%s\n\treturn nil\n}\n\nfunc main() {}\n", sig, b.line+first, body)
	return src.String()
}

// Every Go block of README.md compiles (go build with an overlay: nothing
// is written into the tree). It needs the go command and the module's
// source, so it skips where the tests run from a bundle without them.
func TestREADMEGoBlocksCompile(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command here")
		}
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Skipf("no README.md at the module root: %v", err)
	}
	bs := blocks(string(md))
	require.GreaterOrEqual(t, len(bs), 6, "the README's Go blocks were found")

	tmp := t.TempDir()
	overlay := map[string]string{}
	var pkgs []string
	for i, b := range bs {
		// One main package per block.
		dir := filepath.Join(root, "internal", "readme", "snippets", fmt.Sprintf("b%d", i))
		file := filepath.Join(tmp, fmt.Sprintf("b%d.go", i))
		src := source(b)
		require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
		overlay[filepath.Join(dir, "snippet.go")] = file
		pkgs = append(pkgs, "./"+filepath.ToSlash(strings.TrimPrefix(dir, root+string(filepath.Separator))))
	}
	var js strings.Builder
	js.WriteString(`{"Replace":{`)
	n := 0
	for k, v := range overlay {
		if n > 0 {
			js.WriteByte(',')
		}
		fmt.Fprintf(&js, "%q:%q", k, v)
		n++
	}
	js.WriteString("}}")
	ovFile := filepath.Join(tmp, "overlay.json")
	require.NoError(t, os.WriteFile(ovFile, []byte(js.String()), 0o644))

	cmd := exec.Command(goTool, append([]string{"build", "-overlay=" + ovFile, "-o", tmp + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "README.md's Go blocks do not compile:\n%s", out)
}

// The extraction finds a fragment's signature and hoists its imports.
func TestSource(t *testing.T) {
	bs := blocks("text\n<!-- readme-check: func(x int) error -->\n```go\nimport \"fmt\"\n\nfmt.Println(x)\n```\n\n```go\ny := 1\n_ = y\n```\n")
	require.Len(t, bs, 2)
	assert.Equal(t, "func(x int) error", bs[0].sig)
	assert.Equal(t, 4, bs[0].line)
	src := source(bs[0])
	assert.Contains(t, src, "import \"fmt\"\n")
	assert.Contains(t, src, "var _ = func(x int) error {\n//line README.md:6\nfmt.Println(x)\n")
	assert.Contains(t, source(bs[1]), "var _ = func() error {")
}
