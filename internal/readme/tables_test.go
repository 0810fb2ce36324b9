package readme

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var envName = regexp.MustCompile(`^GPUARR_[A-Z0-9_]+$`)

// goEnvNames collects the GPUARR_* variables a Go file reads: constants
// whose value is the name (every package declares its variables so), and
// names passed to os.Getenv or os.LookupEnv as they are. In a test file
// only GPUARR_TEST_* names count: the others there are the library's, or
// markers a test sets for a child process of its own (..._CHILD).
func goEnvNames(t *testing.T, fset *token.FileSet, name string, src []byte, into map[string]string) {
	t.Helper()
	test := strings.HasSuffix(name, "_test.go")
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	require.NoError(t, err)
	add := func(lit *ast.BasicLit) {
		if lit == nil || lit.Kind != token.STRING {
			return
		}
		v, err := strconv.Unquote(lit.Value)
		if err != nil || !envName.MatchString(v) {
			return
		}
		if test && (!strings.HasPrefix(v, "GPUARR_TEST_") || strings.HasSuffix(v, "_CHILD")) {
			return
		}
		if _, ok := into[v]; !ok {
			into[v] = fset.Position(lit.Pos()).String()
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			if n.Tok == token.CONST {
				for _, spec := range n.Specs {
					for _, v := range spec.(*ast.ValueSpec).Values {
						lit, _ := v.(*ast.BasicLit)
						add(lit)
					}
				}
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && len(n.Args) > 0 {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "os" && (sel.Sel.Name == "Getenv" || sel.Sel.Name == "LookupEnv") {
					lit, _ := n.Args[0].(*ast.BasicLit)
					add(lit)
				}
			}
		}
		return true
	})
}

// Reads in the scripts: ${GPUARR_X:-default} in shell (what the scripts
// take from their caller; a variable a script sets for its children is
// read by Go code above), os.environ in Python.
var (
	shellRead  = regexp.MustCompile(`\$\{(GPUARR_[A-Z0-9_]+):-`)
	pythonRead = regexp.MustCompile(`environ(?:\.get\(|\[)\s*["'](GPUARR_[A-Z0-9_]+)["']`)
)

// envVariables is every GPUARR_* variable the tree reads, with where.
func envVariables(t *testing.T, root string) map[string]string {
	t.Helper()
	vars := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == filepath.Join("bench", "results")) {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(p)
		if ext != ".go" && ext != ".sh" && ext != ".py" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		re := shellRead
		switch ext {
		case ".go":
			goEnvNames(t, fset, rel, b, vars)
			return nil
		case ".py":
			re = pythonRead
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			if _, ok := vars[m[1]]; !ok {
				vars[m[1]] = rel
			}
		}
		return nil
	})
	require.NoError(t, err)
	return vars
}

// tableVariables is every variable named in the first column of the
// tables of README.md's Environment section.
func tableVariables(md string) map[string]bool {
	out := map[string]bool{}
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "## ") {
			in = strings.TrimSpace(line) == "## Environment"
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, m := range regexp.MustCompile("`(GPUARR_[A-Z0-9_]+)`").FindAllStringSubmatch(first, -1) {
			out[m[1]] = true
		}
	}
	return out
}

// README.md's environment tables list every GPUARR_* variable the code,
// its tests and its scripts read, and nothing else.
func TestEnvironmentTablesListEveryVariable(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Skipf("no README.md at the module root: %v", err)
	}
	read := envVariables(t, root)
	listed := tableVariables(string(md))
	require.NotEmpty(t, listed, "README.md has no Environment tables")
	for _, name := range slices.Sorted(maps.Keys(read)) {
		assert.True(t, listed[name], "%s (read at %s) is missing from README.md's Environment tables", name, read[name])
	}
	for _, name := range slices.Sorted(maps.Keys(listed)) {
		_, ok := read[name]
		assert.True(t, ok, "README.md's Environment tables list %s, which nothing reads", name)
	}
}

func TestTableVariables(t *testing.T) {
	md := "## Environment\n\n| variable | meaning |\n| --- | --- |\n| `GPUARR_A`, `GPUARR_B` | see `GPUARR_C` |\n\n## Layout\n\n| `GPUARR_D` | x |\n"
	assert.Equal(t, map[string]bool{"GPUARR_A": true, "GPUARR_B": true}, tableVariables(md))
}

// layoutPaths is the first column of README.md's Layout table.
func layoutPaths(md string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "## ") {
			in = strings.TrimSpace(line) == "## Layout"
			continue
		}
		if in && strings.HasPrefix(line, "| `") {
			out = append(out, strings.Trim(strings.TrimSpace(strings.Split(line, "|")[1]), "`"))
		}
	}
	return out
}

// README.md's Layout table has a row for every package (the programs
// under bench/ and examples/ share their folder's row), and every row
// names a folder that exists.
func TestLayoutTableListsEveryPackage(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Skipf("no README.md at the module root: %v", err)
	}
	rows := layoutPaths(string(md))
	require.NotEmpty(t, rows, "README.md has no Layout table")
	for _, r := range rows {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(r)))
		assert.True(t, err == nil && fi.IsDir(), "README.md's Layout table names %s, which is no folder", r)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !d.IsDir() || rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "bench" || rel == "examples" {
			return filepath.SkipDir
		}
		gos, _ := filepath.Glob(filepath.Join(p, "*.go"))
		if len(gos) > 0 {
			assert.Contains(t, rows, rel+"/", "package %s has no row in README.md's Layout table", rel)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Contains(t, rows, "bench/")
	assert.Contains(t, rows, "examples/")
}
