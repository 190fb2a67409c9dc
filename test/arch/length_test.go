package arch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxLines is the code guide's bound on a production function: a longer
// one is split into named steps.
const maxLines = 80

// tables are the functions allowed past the bound because they are a table
// read top to bottom, one row a line, not logic.
var tables = map[string]bool{
	"app/modules.go modules": true, // the module map, a row a module
	"adapters/sqlstore/migrations/20261122000003_catalog_sales_brands_flex.go init": true, // a list of CREATE statements
}

// longFunc is one function (or method) of a non-test file over the bound.
type longFunc struct {
	key   string // "path name", the form of tables
	lines int
}

// longFuncs lists the functions of the repository's non-test Go files
// longer than maxLines, longest first. Test support (test/, *test
// packages) is left out: the bound is on what runs in production.
func longFuncs(t *testing.T) []longFunc {
	t.Helper()
	root := filepath.Join("..", "..")
	var out []longFunc
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "test" || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasSuffix(d.Name(), "test") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > maxLines {
				out = append(out, longFunc{key: rel + " " + funcName(fn), lines: n})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].lines > out[j].lines })
	return out
}

// funcName is Name for a function, Type.Name for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
			continue
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fn.Name.Name
		}
		return fn.Name.Name
	}
}

// TestFunctionsAreShort holds the code guide's bound: no production
// function over maxLines lines but the tables named in tables. With -v it
// lists every function over the bound.
func TestFunctionsAreShort(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range longFuncs(t) {
		t.Logf("%4d %s", f.lines, f.key)
		seen[f.key] = true
		if !tables[f.key] {
			t.Errorf("%s is %d lines, over %d: split it into named steps (or, for a table, add it to tables)", f.key, f.lines, maxLines)
		}
	}
	for k := range tables {
		if !seen[k] {
			t.Errorf("tables names %s, which is no longer over %d lines: remove it", k, maxLines)
		}
	}
}
