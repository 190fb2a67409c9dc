package docsapi_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi/docsapi"
	"github.com/feria/feria/docs"
	"github.com/feria/feria/test/apptest"
)

// routeKey is a route as "METHOD /path/{param}".
func routeKey(method, path string) string { return method + " " + path }

var fiberParam = regexp.MustCompile(`:([A-Za-z_]+)\??`)

// docPath is a fiber route's path in the document's form: parameters in
// braces, the wildcard as {path}, no trailing slash.
func docPath(p string) string {
	p = fiberParam.ReplaceAllString(p, "{$1}")
	p = strings.ReplaceAll(p, "*", "{path}")
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

// emptySegmentOf reports whether route (with an empty segment, as fiber
// registers /packs//fiscal_documents to answer an empty pack id) is
// documented path with a parameter where the route has nothing.
func emptySegmentOf(route, path string) bool {
	r, d := strings.Split(route, "/"), strings.Split(path, "/")
	if len(r) != len(d) {
		return false
	}
	empty := false
	for i := range r {
		switch {
		case r[i] == d[i]:
		case r[i] == "" && strings.HasPrefix(d[i], "{"):
			empty = true
		default:
			return false
		}
	}
	return empty
}

// Every route the router serves is an operation of docs/openapi.yaml, and
// every operation of the document is a route of the router. fiber's own
// HEAD of each GET is the GET's; a path item marked x-feria-any-method
// (fiber's All: the jobs dashboard) covers every method.
func TestEveryRouteIsDocumented(t *testing.T) {
	doc := loadDoc(t)
	documented := map[string]bool{}
	anyMethod := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		if item.Extensions["x-feria-any-method"] == true {
			anyMethod[path] = true
		}
		for method := range item.Operations() {
			documented[routeKey(method, path)] = true
		}
	}
	a := apptest.New(t, apptest.Embedded)
	served := map[string]bool{}
	for _, r := range a.HTTP.GetRoutes(true) {
		path := docPath(r.Path)
		if anyMethod[path] {
			served[routeKey("GET", path)] = true
			continue
		}
		if r.Method == "HEAD" {
			continue // fiber adds HEAD to every GET
		}
		key := routeKey(r.Method, path)
		if !documented[key] {
			var alias string
			for d := range documented {
				if m, p, _ := strings.Cut(d, " "); m == r.Method && emptySegmentOf(path, p) {
					alias = d
				}
			}
			if alias == "" {
				t.Errorf("the router serves %s %s, which docs/openapi.yaml does not document", r.Method, r.Path)
				continue
			}
			key = alias
		}
		served[key] = true
	}
	var missing []string
	for k := range documented {
		if !served[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	for _, k := range missing {
		t.Errorf("docs/openapi.yaml documents %s, which the router does not serve", k)
	}
	t.Logf("%d operations documented, each served", len(documented))
}

// GET /openapi.yaml answers the document's bytes, /openapi.json the same
// document, and /docs the reference page with the viewer and the document
// inline (nothing loaded from elsewhere).
func TestServed(t *testing.T) {
	a := apptest.New(t, apptest.Embedded)
	y := a.Do("GET", "/openapi.yaml", nil)
	want, err := os.ReadFile(filepath.Join(root, "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	y.HasStatus(t, 200)
	if string(y.Body) != string(want) || y.Header.Get("Content-Type") != "application/yaml" {
		t.Errorf("GET /openapi.yaml: %d %s, %d bytes; want 200 application/yaml, docs/openapi.yaml (%d bytes)",
			y.Status, y.Header.Get("Content-Type"), len(y.Body), len(want))
	}
	j := a.Do("GET", "/openapi.json", nil).HasStatus(t, 200)
	var v struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(j.Body, &v); err != nil {
		t.Fatalf("GET /openapi.json: %d, %v", j.Status, err)
	}
	if v.OpenAPI != "3.1.0" || v.Paths["/items/{item_id}"]["get"] == nil || len(v.Paths) != len(loadDoc(t).Paths.Map()) {
		t.Errorf("GET /openapi.json: openapi %q, %d paths; not the document", v.OpenAPI, len(v.Paths))
	}
	d := a.Do("GET", "/docs", nil)
	page := string(d.Body)
	d.HasStatus(t, 200)
	if !strings.HasPrefix(d.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /docs: %d %s", d.Status, d.Header.Get("Content-Type"))
	}
	for _, s := range []string{"Redoc.init(", `"operationId":"getItem"`, `ReDoc Version: `, `downloadDefinitionUrl: "/openapi.yaml"`} {
		if !strings.Contains(page, s) {
			t.Errorf("GET /docs: the page lacks %q", s)
		}
	}
	// Redoc prints a version after the title ("feria (1)"): the page's copy
	// has none.
	if !strings.Contains(page, `"info":{"description":`) || strings.Contains(page, `"version":"1"`) {
		t.Errorf("GET /docs: the page's document still carries info.version")
	}
	if m := regexp.MustCompile(`<(?:script|link)[^>]+(?:src|href)=`).FindString(page); m != "" {
		t.Errorf("GET /docs loads something from elsewhere: %s", m)
	}
}

// The embedded viewer is the Redoc that viewer/package-lock.json pins
// (viewer/build.sh copies it from npm): its version banner says so.
func TestViewerIsThePinnedRedoc(t *testing.T) {
	var lock struct {
		Packages map[string]struct {
			Version   string `json:"version"`
			Integrity string `json:"integrity"`
		} `json:"packages"`
	}
	raw, err := os.ReadFile("viewer/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &lock); err != nil {
		t.Fatal(err)
	}
	pin := lock.Packages["node_modules/redoc"]
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	raw, err = os.ReadFile("viewer/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	if pin.Version == "" || pkg.Dependencies["redoc"] != pin.Version || pin.Integrity == "" {
		t.Fatalf("viewer: package.json pins redoc %q, package-lock.json %q (integrity %q): pin one exact version",
			pkg.Dependencies["redoc"], pin.Version, pin.Integrity)
	}
	bundle, err := os.ReadFile("viewer/redoc.standalone.js")
	if err != nil {
		t.Fatal(err)
	}
	if banner := `" ReDoc Version: ","` + pin.Version + `"`; !strings.Contains(string(bundle), banner) {
		t.Errorf("viewer/redoc.standalone.js is not redoc %s (no %s); run viewer/build.sh", pin.Version, banner)
	}
}

// A document that does not convert (a build defect: the tests parse the
// embedded one) fails its JSON and its page, on every request, and
// nothing else: the process starts and the YAML is served as it is.
func TestBrokenDocumentFailsItsRoutesOnly(t *testing.T) {
	app := fiber.New()
	docsapi.New([]byte("openapi: [3.1.0\n")).Routes(app)
	for range 2 {
		for path, want := range map[string]int{"/openapi.yaml": 200, "/openapi.json": 500, "/docs": 500} {
			res, err := app.Test(httptest.NewRequest("GET", path, nil))
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != want {
				t.Errorf("GET %s: %d, want %d", path, res.StatusCode, want)
			}
		}
	}
}

// Building the routes' contract converts nothing: the JSON and the page
// (a parse of the whole document, and the 1.1 MB viewer copied) are made
// on their first request, not in every process at start-up.
func TestNewBuildsNothingUntilAsked(t *testing.T) {
	allocs := testing.AllocsPerRun(10, func() { docsapi.New(docs.OpenAPI) })
	if allocs > 10 {
		t.Errorf("docsapi.New allocates %.0f times; it should only set up what the first request builds", allocs)
	}
}

// The reference page lists each operation once, under its one area, and
// every area it declares holds operations.
func TestOneAreaPerOperation(t *testing.T) {
	doc := loadDoc(t)
	declared := map[string]int{}
	for _, tag := range doc.Tags {
		declared[tag.Name] = 0
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if len(op.Tags) != 1 {
				t.Errorf("%s %s: tags %q, want exactly one area", method, path, op.Tags)
				continue
			}
			if _, ok := declared[op.Tags[0]]; !ok {
				t.Errorf("%s %s: tag %q is not among the document's tags", method, path, op.Tags[0])
			}
			declared[op.Tags[0]]++
		}
	}
	for name, n := range declared {
		if n == 0 {
			t.Errorf("tag %q has no operation", name)
		}
	}
}
