package docsapi_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// guideRoute is a route as docs/sandbox.md names it: a method, a space and
// a path in the document's form ({param} templates), up to its query.
var guideRoute = regexp.MustCompile(`\b(GET|PUT|POST|DELETE|PATCH) (/[A-Za-z0-9_{}./-]*)`)

// guideRoutes are the routes a page names, as routeKey; a sentence's full
// stop after a path is not part of it.
func guideRoutes(text string) map[string]bool {
	out := map[string]bool{}
	for _, m := range guideRoute.FindAllStringSubmatch(text, -1) {
		out[routeKey(m[1], strings.TrimRight(m[2], "."))] = true
	}
	return out
}

// guideProblems compares the routes docs/sandbox.md names with the
// router's and with docs/openapi.yaml's: every /sandbox route served is
// named and every one named is served, each is an operation of the
// document, and so is every public route the page names.
func guideProblems(named, served, documented map[string]bool) []string {
	var out []string
	for k := range served {
		if isSandbox(k) && !named[k] {
			out = append(out, fmt.Sprintf("the router serves %s, which docs/sandbox.md does not name", k))
		}
	}
	for k := range named {
		if isSandbox(k) && !served[k] {
			out = append(out, fmt.Sprintf("docs/sandbox.md names %s, which the router does not serve", k))
		}
		if !documented[k] {
			out = append(out, fmt.Sprintf("docs/sandbox.md names %s, which docs/openapi.yaml does not document", k))
		}
	}
	for k := range documented {
		if isSandbox(k) && !named[k] {
			out = append(out, fmt.Sprintf("docs/openapi.yaml documents %s, which docs/sandbox.md does not name", k))
		}
	}
	sort.Strings(out)
	return out
}

func isSandbox(key string) bool {
	_, path, _ := strings.Cut(key, " ")
	return path == "/sandbox" || strings.HasPrefix(path, "/sandbox/")
}

// docs/sandbox.md, the sandbox's contract, names every /sandbox route the
// router serves, as `METHOD /sandbox/...` with the {param} templates of
// docs/openapi.yaml, and names no route that is not served and documented.
// A route left out of the page fails the test (checked on the page's own
// routes, one of them taken out).
func TestSandboxGuideNamesEveryRoute(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash("docs/sandbox.md")))
	if err != nil {
		t.Fatal(err)
	}
	named := guideRoutes(string(raw))
	documented := map[string]bool{}
	for path, item := range loadDoc(t).Paths.Map() {
		for method := range item.Operations() {
			documented[routeKey(method, path)] = true
		}
	}
	a := apptest.New(t, apptest.Embedded)
	served := map[string]bool{}
	for _, r := range a.HTTP.GetRoutes(true) {
		if r.Method != "HEAD" {
			served[routeKey(r.Method, docPath(r.Path))] = true
		}
	}
	for _, p := range guideProblems(named, served, documented) {
		t.Error(p)
	}

	sandbox := 0
	for k := range named {
		if isSandbox(k) {
			sandbox++
		}
	}
	if sandbox < 20 {
		t.Fatalf("docs/sandbox.md names %d /sandbox routes; the pattern is broken", sandbox)
	}
	less := map[string]bool{}
	for k := range named {
		less[k] = true
	}
	delete(less, "DELETE /sandbox")
	if got := guideProblems(less, served, documented); len(got) == 0 {
		t.Error("a page without DELETE /sandbox passed the check")
	}
}
