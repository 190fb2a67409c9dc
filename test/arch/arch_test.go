// Package arch checks the dependency rule of ARCHITECTURE.md with `go list`,
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
	ImportPath string
	Imports    []string
}

func packages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "github.com/feria/feria/...").Output()
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
	if (under(from, "core") || under(from, "ports")) && isInfra(imp) {
		return false, "core and ports do not touch databases or networks"
	}
	switch {
	case from == "core/kernel" || from == "core/paging":
		return isStd(imp) || r == "core/kernel", "core/kernel and core/paging import only the standard library"
	case isService(from):
		mod := strings.Split(from, "/")[1]
		return isStd(imp) || r == "core/kernel" || r == "core/paging" || under(r, "core/"+mod) && !isService(r) ||
				(strings.HasPrefix(r, "core/") && len(strings.Split(r, "/")) == 2) || under(r, "ports"),
			"use cases import stdlib, kernel, paging, core types and ports only"
	case under(from, "core"):
		return isStd(imp) || r == "core/kernel" || r == "core/paging" || (strings.HasPrefix(r, "core/") && !isService(r) && len(strings.Split(r, "/")) == 2),
			"core/<m> imports stdlib, kernel, paging and other core types only"
	case under(from, "ports"):
		return isStd(imp) || (internal && (under(r, "core") && !isService(r) || under(r, "ports"))) ||
				(strings.HasSuffix(from, "test") && strings.HasPrefix(imp, "github.com/google/uuid")),
			"ports import stdlib and core types only"
	case under(from, "adapters"):
		return !internal || !isService(r) && !under(r, "app") && !under(r, "workers") || r == "workers/tasks",
			"adapters never import use cases, app or workers"
	case under(from, "workers"):
		return isStd(imp) || strings.HasPrefix(imp, "github.com/hibiken/asynq") || strings.HasPrefix(imp, "github.com/prometheus/") ||
				under(r, "workers") || under(r, "ports") || (under(r, "core") && !isService(r)),
			"workers import asynq, workers/tasks, ports and core types only"
	}
	return true, ""
}

func TestDependencyRule(t *testing.T) {
	pkgs := packages(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		from := rel(p.ImportPath)
		for _, imp := range p.Imports {
			if ok, rule := allowed(from, imp); !ok {
				t.Errorf("%s imports %s: %s", from, imp, rule)
			}
		}
	}
}

// Nothing imports app: it is the top of the graph.
func TestNothingImportsApp(t *testing.T) {
	for _, p := range packages(t) {
		from := rel(p.ImportPath)
		if under(from, "app") || under(from, "cmd") || under(from, "test") {
			continue
		}
		for _, imp := range p.Imports {
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
	}
	for _, b := range bad {
		if ok, _ := allowed(b[0], b[1]); ok {
			t.Errorf("%s → %s passed the rule", b[0], b[1])
		}
	}
}
