package numpytest_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	gotypes "go/types"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Rows of the differences table whose difference is that a call does not
// compile: each instantiation listed must fail to type-check (no), and
// its alternative must type-check (yes), against the type parameters of
// gpuarr's functions as declared in its source and the element-type
// constraints of gpuarr and device/dtype.
var doNotCompile = map[string]struct{ no, yes []string }{
	"bool-sum": {
		no:  []string{"Sum[bool]", "Mean[bool]", "Prod[bool]"},
		yes: []string{"SumAs[int64, bool]", "MeanAs[float64, bool]", "Max[bool]", "Min[bool]"},
	},
	"var-int": {
		no:  []string{"Var[int32]", "Std[int64]", "Var[uint8]"},
		yes: []string{"VarAs[float64, int32]", "StdAs[float64, int64]", "Var[float32]"},
	},
	"nan-int": {
		no:  []string{"NanSum[int32]", "NanMean[int64]", "NanMin[uint8]", "NanMax[int16]"},
		yes: []string{"NanSum[float32]", "Sum[int32]", "Mean[int64]", "Min[uint8]", "Max[int16]"},
	},
	"complex-order": {
		no: []string{"Min[complex64]", "Max[complex128]", "ArgMin[complex64]", "ArgMax[complex128]",
			"Less[complex64]", "Greater[complex128]", "Sort[complex64]", "Argsort[complex128]"},
		yes: []string{"Equal[complex64]", "NotEqual[complex128]", "Min[float32]"},
	},
	"complex-abs": {
		no:  []string{"Abs[complex64]", "Abs[complex128]"},
		yes: []string{"ComplexAbs[float32, complex64]", "ComplexAbs[float64, complex128]", "Abs[float32]"},
	},
}

// TestDifferencesThatDoNotCompile type-checks, for each entry of
// doNotCompile, each instantiation of a gpuarr function with the type
// parameters its source declares.
func TestDifferencesThatDoNotCompile(t *testing.T) {
	var funcs []string
	for key, c := range doNotCompile {
		require.Contains(t, differences, key, "doNotCompile names no difference")
		for _, inst := range append(append([]string(nil), c.no...), c.yes...) {
			funcs = append(funcs, inst[:strings.Index(inst, "[")])
		}
	}
	src, err := constraintSource("../../gpuarr", "../../device/dtype", funcs)
	require.NoError(t, err)
	check := func(inst string) error {
		file := src + "\nvar _ = sig_" + inst + "\n"
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "constraints.go", file, 0)
		if err != nil {
			return fmt.Errorf("parsing: %w", err)
		}
		_, err = (&gotypes.Config{}).Check("p", fset, []*ast.File{f}, nil)
		return err
	}
	// the source itself type-checks (else every "no" would pass)
	_, err = parser.ParseFile(token.NewFileSet(), "constraints.go", src, 0)
	require.NoError(t, err, src)
	for key, c := range doNotCompile {
		for _, inst := range c.no {
			err := check(inst)
			if assert.Error(t, err, "%s: gpuarr.%s compiles; the row %q says it does not", key, inst, differences[key].row) {
				assert.Contains(t, err.Error(), "does not satisfy", "%s: gpuarr.%s fails for another reason", key, inst)
			}
		}
		for _, inst := range c.yes {
			assert.NoError(t, check(inst), "%s: gpuarr.%s does not compile", key, inst)
		}
	}
}

// constraintSource is a Go package (no imports) holding gpuarr's
// constraint interfaces and aliases and device/dtype's (renamed dtype_X),
// half's Float16 and BFloat16 as opaque structs, and for each function
// named a func sig_Name with that gpuarr function's type parameters and
// no parameters.
func constraintSource(gpuarrDir, dtypeDir string, funcs []string) (string, error) {
	dtypeFiles, err := parseDir(dtypeDir)
	if err != nil {
		return "", err
	}
	gpuarrFiles, err := parseDir(gpuarrDir)
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	var b strings.Builder
	b.WriteString("package p\n\ntype Float16 struct{ b uint16 }\n\ntype BFloat16 struct{ b uint16 }\n\n")
	dtypeNames := map[string]bool{}
	for _, f := range dtypeFiles {
		for _, ts := range constraintSpecs(f) {
			dtypeNames[ts.Name.Name] = true
		}
	}
	// write prints a node with references renamed: dtype.X → dtype_X,
	// half.X → X, and in dtype's own declarations X → dtype_X.
	write := func(n ast.Node, inDtype bool) error {
		var s strings.Builder
		if err := printer.Fprint(&s, fset, n); err != nil {
			return err
		}
		text := qualified.ReplaceAllStringFunc(s.String(), func(m string) string {
			pkg, name, _ := strings.Cut(m, ".")
			if pkg == "half" {
				return name
			}
			return "dtype_" + name
		})
		if inDtype {
			text = identifier.ReplaceAllStringFunc(text, func(m string) string {
				if dtypeNames[m] {
					return "dtype_" + m
				}
				return m
			})
		}
		b.WriteString(text)
		return nil
	}
	for _, f := range dtypeFiles {
		for _, ts := range constraintSpecs(f) {
			b.WriteString("type ")
			if err := write(ts, true); err != nil {
				return "", err
			}
			b.WriteString("\n\n")
		}
	}
	for _, f := range gpuarrFiles {
		for _, ts := range constraintSpecs(f) {
			if sel, ok := ts.Type.(*ast.SelectorExpr); ok && sel.X.(*ast.Ident).Name == "half" {
				continue // declared above
			}
			b.WriteString("type ")
			if err := write(ts, false); err != nil {
				return "", err
			}
			b.WriteString("\n\n")
		}
	}
	found := map[string]bool{}
	for _, f := range gpuarrFiles {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Type.TypeParams == nil || found[fd.Name.Name] || !contains(funcs, fd.Name.Name) {
				continue
			}
			found[fd.Name.Name] = true
			fmt.Fprintf(&b, "func sig_%s[", fd.Name.Name)
			for i, p := range fd.Type.TypeParams.List {
				if i > 0 {
					b.WriteString(", ")
				}
				for j, n := range p.Names {
					if j > 0 {
						b.WriteString(", ")
					}
					b.WriteString(n.Name)
				}
				b.WriteString(" ")
				if err := write(p.Type, false); err != nil {
					return "", err
				}
			}
			b.WriteString("]() {}\n\n")
		}
	}
	for _, fn := range funcs {
		if !found[fn] {
			return "", fmt.Errorf("gpuarr declares no generic function %s", fn)
		}
	}
	return b.String(), nil
}

var (
	qualified  = regexp.MustCompile(`\b(dtype|half)\.\w+`)
	identifier = regexp.MustCompile(`\b\w+\b`)
)

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// parseDir parses a package directory's non-test Go files.
func parseDir(dir string) ([]*ast.File, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Go files in %s", dir)
	}
	return files, nil
}

// constraintSpecs are a file's type declarations that constrain type
// parameters: interfaces of type terms only (no methods), and aliases of
// dtype's and half's types.
func constraintSpecs(f *ast.File) []*ast.TypeSpec {
	var out []*ast.TypeSpec
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			switch t := ts.Type.(type) {
			case *ast.InterfaceType:
				if ts.TypeParams != nil || t.Methods == nil || len(t.Methods.List) == 0 {
					continue
				}
				termsOnly := true
				for _, m := range t.Methods.List {
					if len(m.Names) > 0 {
						termsOnly = false
					}
				}
				if termsOnly {
					out = append(out, ts)
				}
			case *ast.SelectorExpr:
				if x, ok := t.X.(*ast.Ident); ok && ts.Assign.IsValid() && (x.Name == "dtype" || x.Name == "half") {
					out = append(out, ts)
				}
			}
		}
	}
	return out
}
