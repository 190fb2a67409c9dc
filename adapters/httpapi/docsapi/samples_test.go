package docsapi_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/feria/feria/docs"
)

// root is the repository's root.
const root = "../../.."

// sample is one curl command of the README and the operation it calls.
type sample struct {
	op, source string
}

var (
	curlMethod = regexp.MustCompile(`\s-X\s+([A-Z]+)`)
	curlData   = regexp.MustCompile(`\s(-d|-F|--data[a-z-]*)\s`)
	curlURL    = regexp.MustCompile(`localhost:8080(/[^'"\s)]*)`)
	shellVar   = regexp.MustCompile(`\$[A-Za-z_]+`)
	worldBase  = regexp.MustCompile(`^/worlds/[^/]+`)
)

// readmeSamples are the README's curl commands (a command continued with
// `\` or `|` is one), each with the operation of docs/openapi.yaml it
// calls, in README order.
func readmeSamples(t *testing.T, doc *openapi3.T) []sample {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out []sample
	inSh := false
	var cmd []string
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
			continue
		case strings.HasPrefix(line, "```"):
			inSh = false
			continue
		case !inSh:
			continue
		}
		cmd = append(cmd, line)
		if strings.HasSuffix(line, "\\") || strings.HasSuffix(line, "|") {
			continue
		}
		text := strings.Join(cmd, "\n")
		cmd = nil
		m := curlURL.FindStringSubmatch(text)
		if m == nil || !strings.Contains(text, "curl ") {
			continue
		}
		method := "GET"
		if mm := curlMethod.FindStringSubmatch(text); mm != nil {
			method = mm[1]
		} else if curlData.MatchString(text) {
			method = "POST"
		}
		// A world serves the same operations under its base path.
		path := worldBase.ReplaceAllString(m[1], "")
		req, err := http.NewRequest(method, "http://localhost:8080"+shellVar.ReplaceAllString(path, "1"), nil)
		if err != nil {
			t.Fatalf("README: %s: %v", text, err)
		}
		route, _, err := router.FindRoute(req)
		if err != nil {
			t.Errorf("README: no operation of docs/openapi.yaml serves %s %s (%v):\n%s", method, m[1], err, text)
			continue
		}
		out = append(out, sample{op: route.Operation.OperationID, source: text})
	}
	return out
}

// loadDoc loads docs/openapi.yaml.
func loadDoc(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(docs.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return doc
}

// The README's curl commands are the request examples (x-codeSamples) of
// the operations they call, and no operation has another: the reference
// page shows what the README runs (test/docs runs it). UPDATE_CODE_SAMPLES=1
// rewrites the document's samples from the README.
func TestCodeSamplesAreTheReadmes(t *testing.T) {
	doc := loadDoc(t)
	samples := readmeSamples(t, doc)
	if len(samples) < 40 {
		t.Fatalf("only %d curl commands found in the README; the parser is broken", len(samples))
	}
	want := map[string][]string{}
	for _, s := range samples {
		if !slices.Contains(want[s.op], s.source) {
			want[s.op] = append(want[s.op], s.source)
		}
	}
	if os.Getenv("UPDATE_CODE_SAMPLES") != "" {
		rewriteSamples(t, want)
		return
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var got []string
			if v, ok := op.Extensions["x-codeSamples"].([]any); ok {
				for _, e := range v {
					m, _ := e.(map[string]any)
					src, _ := m["source"].(string)
					got = append(got, strings.TrimSuffix(src, "\n"))
				}
			}
			if !slices.Equal(got, want[op.OperationID]) {
				t.Errorf("%s %s (%s): x-codeSamples are\n%q\nthe README's commands are\n%q\n(UPDATE_CODE_SAMPLES=1 go test ./adapters/httpapi/docsapi -run TestCodeSamplesAreTheReadmes rewrites them)",
					method, path, op.OperationID, got, want[op.OperationID])
			}
		}
	}
}

// rewriteSamples replaces every x-codeSamples block of docs/openapi.yaml
// with the README's, placed after each operation's operationId line.
func rewriteSamples(t *testing.T, want map[string][]string) {
	path := filepath.Join(root, "docs", "openapi.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	var out []string
	opID := regexp.MustCompile(`^(\s+)operationId: (\S+)$`)
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if trimmed := strings.TrimLeft(l, " "); trimmed == "x-codeSamples:" {
			indent := len(l) - len(trimmed)
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || len(lines[i+1])-len(strings.TrimLeft(lines[i+1], " ")) > indent) {
				i++
			}
			continue
		}
		out = append(out, l)
		m := opID.FindStringSubmatch(l)
		if m == nil || len(want[m[2]]) == 0 {
			continue
		}
		in := m[1]
		out = append(out, in+"x-codeSamples:")
		for _, src := range want[m[2]] {
			out = append(out, in+"  - lang: Shell", in+"    label: curl", in+"    source: |")
			for _, sl := range strings.Split(src, "\n") {
				out = append(out, in+"      "+sl)
			}
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Println("docs/openapi.yaml: x-codeSamples rewritten from the README")
}
