// Package arch checks the dependency rule of docs/architecture.md with `go list`,
// so that the shape of the code cannot drift.
package arch

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/feria/feria/"

type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string // of the package's own _test.go files
	XTestImports []string // of its package x_test files
}

// imports are every import of the package, its tests' included: a test
// file may not reach what its package may not.
func (p pkg) imports() []string {
	return append(append(append([]string(nil), p.Imports...), p.TestImports...), p.XTestImports...)
}

func packages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", "github.com/feria/feria/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// rel strips the module prefix; "" for a package outside the module.
func rel(path string) string {
	if !strings.HasPrefix(path, module) {
		return ""
	}
	return strings.TrimPrefix(path, module)
}

func isStd(path string) bool { return !strings.Contains(strings.SplitN(path, "/", 2)[0], ".") }

// infrastructure is the part of the standard library core must not touch:
// talking to databases and networks is the adapters' job.
var infrastructure = []string{"database/sql", "net/http", "net/smtp", "os/exec"}

func isInfra(path string) bool {
	for _, p := range infrastructure {
		if under(path, p) {
			return true
		}
	}
	return false
}

func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// isService reports whether p is a use-case package (core/<m>/<m>svc).
func isService(p string) bool {
	parts := strings.Split(p, "/")
	return len(parts) == 3 && parts[0] == "core" && parts[2] == parts[1]+"svc"
}

// allowed reports whether package from may import imp under the rule.
func allowed(from, imp string) (bool, string) {
	r := rel(imp)
	internal := r != ""
	if r == from {
		return true, "" // a package's x_test files import it
	}
	if (under(from, "core") || under(from, "ports")) && isInfra(imp) {
		return false, "core and ports do not touch databases or networks"
	}
	switch {
	case from == "core/kernel" || from == "core/paging":
		return isStd(imp) || r == "core/kernel", "core/kernel and core/paging import only the standard library"
	case isService(from):
		mod := strings.Split(from, "/")[1]
		return isStd(imp) || under(r, "core/kernel") || r == "core/paging" || under(r, "core/"+mod) && !isService(r) ||
				(strings.HasPrefix(r, "core/") && len(strings.Split(r, "/")) == 2) || under(r, "ports"),
			"use cases import stdlib, kernel (and its test doubles, kerneltest), paging, core types and ports only"
	case under(from, "core"):
		return isStd(imp) || under(r, "core/kernel") || r == "core/paging" || (strings.HasPrefix(r, "core/") && !isService(r) && len(strings.Split(r, "/")) == 2),
			"core/<m> imports stdlib, kernel, paging and other core types only"
	case under(from, "ports"):
		return isStd(imp) || (internal && (under(r, "core") && !isService(r) || under(r, "ports"))) ||
				(strings.HasSuffix(from, "test") && strings.HasPrefix(imp, "github.com/google/uuid")),
			"ports import stdlib and core types only"
	case under(from, "adapters"):
		if internal && under(r, "adapters") && !adapterMayImport(from, r) {
			return false, "an adapter never imports another adapter's packages, only a family's shared root (adapters/<family>) and sandboxapi"
		}
		return !internal || !isService(r) && !under(r, "app") && !under(r, "workers") || r == "workers/tasks" || under(r, "test"),
			"adapters never import use cases, app or workers"
	case under(from, "workers"):
		return isStd(imp) || strings.HasPrefix(imp, "github.com/hibiken/asynq") || strings.HasPrefix(imp, "github.com/prometheus/") ||
				under(r, "workers") || under(r, "ports") || (under(r, "core") && !isService(r)),
			"workers import asynq, workers/tasks, ports and core types only"
	}
	return true, ""
}

// adapterOf is the adapter a package under adapters/ belongs to: its family
// and name ("adapters/sqlstore/fiscaldb" for .../fiscaldb/fiscaldbtest), or
// the family's root for the root's own packages.
func adapterOf(p string) string {
	parts := strings.Split(p, "/")
	if len(parts) > 3 {
		parts = parts[:3]
	}
	return strings.Join(parts, "/")
}

// adapterMayImport reports whether an adapter package may import another
// package under adapters/: its own adapter's, a family's shared root
// (httpapi's error shapes, sqlstore's Tx, redisstore's error translation),
// or sandboxapi, whose Collection every routes package returns. A family's
// root may use the family's packages (sqlstore runs migrations), and a test
// helper (a package named ...test) may seed a neighbour of its family
// through the neighbour's store: both write the same database.
func adapterMayImport(from, imp string) bool {
	family := func(p string) string { return strings.Join(strings.Split(p, "/")[:2], "/") }
	switch {
	case adapterOf(from) == adapterOf(imp), imp == family(imp), imp == "adapters/httpapi/sandboxapi":
		return true
	case (from == family(from) || strings.HasSuffix(from, "test")) && family(from) == family(imp):
		return true
	}
	return false
}

// testOnly reports whether imp is a library any test file may use beside
// what its package may: go-cmp, whose diffs name the field that differs.
func testOnly(p pkg, imp string) bool {
	if !strings.HasPrefix(imp, "github.com/google/go-cmp/") {
		return false
	}
	for _, i := range p.Imports {
		if i == imp {
			return false
		}
	}
	return true
}

func TestDependencyRule(t *testing.T) {
	pkgs := packages(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		from := rel(p.ImportPath)
		for _, imp := range p.imports() {
			if testOnly(p, imp) {
				continue
			}
			if ok, rule := allowed(from, imp); !ok {
				t.Errorf("%s imports %s: %s", from, imp, rule)
			}
		}
	}
}

// Nothing imports app, tests included: it is the top of the graph. Tests
// reach a wired feria through test/apptest.
func TestNothingImportsApp(t *testing.T) {
	for _, p := range packages(t) {
		from := rel(p.ImportPath)
		if under(from, "app") || under(from, "cmd") || under(from, "test") {
			continue
		}
		for _, imp := range p.imports() {
			if under(rel(imp), "app") {
				t.Errorf("%s imports %s", from, imp)
			}
		}
	}
}

// The rule itself: a violation must be caught.
func TestRuleCatchesViolations(t *testing.T) {
	bad := [][2]string{
		{"core/kernel", "github.com/gofiber/fiber/v2"},
		{"core/fiscal", "github.com/uptrace/bun"},
		{"core/fiscal", "database/sql"},
		{"adapters/httpapi/fiscalapi", module + "core/fiscal/fiscalsvc"},
		{"workers/fiscalworker", module + "adapters/sqlstore"},
		{"ports/fiscalport", "github.com/minio/minio-go/v7"},
		{"adapters/httpapi/sandboxapi", module + "adapters/sqlstore/fiscaldb"},
		{"adapters/httpapi/catalogapi", module + "adapters/httpapi/fiscalapi"},
		{"adapters/jobqueue", module + "adapters/sqlstore/outboxdb"},
		{"adapters/sqlstore/compatdb", module + "adapters/sqlstore/catalogdb"},
		{"adapters/httpapi/compatapi", module + "app"},
	}
	for _, b := range bad {
		if ok, _ := allowed(b[0], b[1]); ok {
			t.Errorf("%s → %s passed the rule", b[0], b[1])
		}
	}
}
