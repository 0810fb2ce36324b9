package readme

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What users read and copy — the godoc examples (example*_test.go) of
// the packages they can import and the programs under examples/ — imports
// no internal package, which a user's module cannot import. The examples
// of internal packages are for this module's own code, which can.
func TestExamplesImportNoInternalPackages(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skipf("no module source here: %v", err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		internal := slices.Contains(strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/"), "internal")
		isExample := strings.HasPrefix(name, "example") && strings.HasSuffix(name, "_test.go") && !internal
		isProgram := strings.HasPrefix(rel, "examples"+string(filepath.Separator)) &&
			strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")
		if !isExample && !isProgram {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			assert.False(t, strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal"),
				"%s imports %s, which users cannot import", rel, p)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, checked, 5, "the examples were found")
}
