package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/feria/feria/docs"
	"github.com/feria/feria/test/apptest"
)

// prismInstall is how a developer gets Prism when the test cannot find it.
const prismInstall = "bash deploy/scripts/prism.sh (npm ci of deploy/prism into PRISM_DIR, default ~/.cache/feria-prism; make test runs it first)"

// TestPrismProxyValidatesEveryAnswer puts an outside validator, Stoplight
// Prism in proxy mode, in front of a real `feria all` with the demo world,
// and sends every public operation of docs/openapi.yaml through it, as a
// seller, a buyer, with a bad token, an unknown id and without its required
// parameters, then the writes of an integration's day. Prism checks every
// answer against the document and says what contradicts it in the
// sl-violations header: any response violation fails the test, and so does
// an operation never called or never answering the success it declares.
func TestPrismProxyValidatesEveryAnswer(t *testing.T) {
	t.Parallel()
	prism := prismBinary(t)
	demo, err := filepath.Abs("../../deploy/demo/fixtures.json")
	if err != nil {
		t.Fatal(err)
	}
	p := startEmbedded(t, t.TempDir(), "FIXTURES_FILE="+demo, `RATE_LIMITS={"rules": []}`, "ADMIN_KEY=prism-admin")
	v := &validator{t: t, base: startPrism(t, prism, p.base)}
	ops := publicOperations(t)
	for _, op := range ops {
		v.generic(op)
	}
	v.day()
	if len(v.violations) > 0 {
		t.Errorf("Prism found %d answers that contradict docs/openapi.yaml (of %d requests):\n%s",
			len(v.violations), v.requests, strings.Join(v.violations, "\n"))
	}
	v.covered(p, ops)
	t.Logf("Prism validated %d requests: %d request violations (error cases), %d response violations", v.requests, v.requestViolations, len(v.violations))
}

// prismBinary finds Prism or fails saying how to install it.
func prismBinary(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PRISM_DIR")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatalf("Prism: no home directory (%v); install it with %s", err, prismInstall)
		}
		dir = filepath.Join(home, ".cache", "feria-prism")
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "prism")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("Prism (the outside OpenAPI validator) is not installed at %s: install it with %s", bin, prismInstall)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("Prism needs Node.js, which is not on PATH: apt-get install -y nodejs npm, then %s", prismInstall)
	}
	return bin
}

// startPrism runs `prism proxy` of docs/openapi.yaml in front of upstream
// and returns its base URL once it answers.
func startPrism(t *testing.T, bin, upstream string) string {
	t.Helper()
	doc, err := filepath.Abs("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cmd := exec.Command(bin, "proxy", doc, upstream, "--host", "127.0.0.1", "--port", fmt.Sprint(port))
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("prism: %v; install it with %s", err, prismInstall)
	}
	t.Cleanup(func() {
		cmd.Process.Kill() //nolint:errcheck // the test is over
		cmd.Wait()         //nolint:errcheck // killed
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for range 600 { // 60 s at most: Prism reads the document first
		if res, err := http.Get(base + "/health/live"); err == nil {
			res.Body.Close()
			return base
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("prism did not start:\n%s", logs.String())
	return ""
}

// operation is one public operation of the document.
type operation struct {
	method, path string
	query        []string // its required query parameters
	body         bool
	secured      bool
	succeeds     bool // the document declares a 2xx or 3xx answer
}

// publicOperations are the document's operations outside /sandbox.
func publicOperations(t *testing.T) []operation {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(docs.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	var out []operation
	for _, path := range doc.Paths.InMatchingOrder() {
		if strings.HasPrefix(path, "/sandbox") {
			continue
		}
		item := doc.Paths.Value(path)
		for method, op := range item.Operations() {
			o := operation{method: method, path: path, body: op.RequestBody != nil, secured: op.Security != nil && len(*op.Security) > 0}
			for code := range op.Responses.Map() {
				o.succeeds = o.succeeds || code[0] == '2' || code[0] == '3'
			}
			for _, p := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
				if p.Value.In == "query" && p.Value.Required {
					o.query = append(o.query, p.Value.Name)
				}
			}
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path+out[i].method < out[j].path+out[j].method })
	return out
}

// The demo world's values of path and query parameters, and unknown ones.
var (
	demoParams = map[string]string{
		"item_id": "MLA1100", "user_id": "123", "seller_id": "123", "order_id": "2000001", "pack_id": "2000001234",
		"shipment_id": "40001", "site_id": "MLA", "category_id": "MLA1747", "domain_id": "MLA-CAR_SHOCK_ABSORBERS",
		"brand_id": "5002", "service_id": "3001", "question_id": "1", "message_id": "1", "compatibility_id": "1",
		"fiscal_document_id": "1",
		"date_from":          "2026-11-01T00:00:00Z", "date_to": "2026-11-30T00:00:00Z", "last": "7", "unit": "day",
		"ids": "MLA1100,MLA1101", "app_id": "7001", "main_domain_id": "MLA-CARS_AND_VANS", "secondary_domain_id": "MLA-CAR_SHOCK_ABSORBERS",
	}
	unknownParams = map[string]string{
		"item_id": "MLA999999", "user_id": "999999", "seller_id": "999999", "order_id": "999999", "pack_id": "999999",
		"shipment_id": "999999", "site_id": "MZZ", "category_id": "MLA999999", "domain_id": "MLA-NOPE", "brand_id": "999999",
		"service_id": "999999", "question_id": "999999", "message_id": "999999", "compatibility_id": "999999", "fiscal_document_id": "999999",
	}
)

const (
	prismSeller = "APP_USR-demo-seller"
	prismBuyer  = "APP_USR-demo-buyer"
)

// validator sends requests through Prism and keeps what it reports.
type validator struct {
	t                 *testing.T
	base              string
	requests          int
	requestViolations int
	violations        []string
	// strict: the requests are an integration's valid ones, so that a
	// request violation is the document's fault too.
	strict bool
}

// send sends one request through Prism; a response violation is kept.
func (v *validator) send(method, path, token, contentType string, body []byte, header ...string) (int, []byte) {
	v.t.Helper()
	req, err := http.NewRequest(method, v.base+path, bytes.NewReader(body))
	if err != nil {
		v.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		v.t.Fatalf("%s %s through Prism: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	v.requests++
	if h := res.Header.Get("sl-violations"); h != "" {
		var vs []struct {
			Location []string `json:"location"`
			Message  string   `json:"message"`
		}
		if err := json.Unmarshal([]byte(h), &vs); err != nil {
			v.t.Fatalf("%s %s: Prism's sl-violations header does not decode: %v: %s", method, path, err, h)
		}
		for _, x := range vs {
			if len(x.Location) > 0 && x.Location[0] == "response" || v.strict {
				v.violations = append(v.violations, fmt.Sprintf("  %s %s → %d: %s: %s\n    body: %.300s",
					method, path, res.StatusCode, strings.Join(x.Location, "."), x.Message, b))
			} else {
				v.requestViolations++
			}
		}
	}
	return res.StatusCode, b
}

// fill builds the path of op with values, and its required query
// parameters but those left out.
func fill(op operation, values map[string]string, leaveOut bool) string {
	path := op.path
	for name, val := range demoParams {
		if v, ok := values[name]; ok {
			val = v
		}
		path = strings.ReplaceAll(path, "{"+name+"}", val)
	}
	if leaveOut || len(op.query) == 0 {
		return path
	}
	q := make([]string, len(op.query))
	for i, name := range op.query {
		q[i] = name + "=" + demoParams[name]
	}
	return path + "?" + strings.Join(q, "&")
}

// generic calls op as the seller, the buyer, with a bad token, on unknown
// ids and without its required query parameters; a body is `{}`.
func (v *validator) generic(op operation) {
	var body []byte
	ct := ""
	if op.body {
		body, ct = []byte("{}"), "application/json"
		if op.path == "/oauth/token" {
			body, ct = []byte("grant_type=refresh_token&client_id=1&client_secret=x&refresh_token=nope"), "application/x-www-form-urlencoded"
		}
	}
	v.send(op.method, fill(op, nil, false), prismSeller, ct, body)
	v.send(op.method, fill(op, nil, false), prismBuyer, ct, body)
	v.send(op.method, fill(op, nil, false), "APP_USR-not-a-token", ct, body)
	v.send(op.method, fill(op, unknownParams, false), prismSeller, ct, body)
	if len(op.query) > 0 {
		v.send(op.method, fill(op, nil, true), prismSeller, ct, body)
	}
}

// covered fails naming the public operations no request reached, and
// those that declare a success but answered none, from feria's own
// coverage count.
func (v *validator) covered(p *embeddedProcess, ops []operation) {
	v.t.Helper()
	st, b := p.call(v.t, "GET", "/sandbox/coverage", "", nil, "X-Sandbox-Key", apptest.SandboxKey)
	if st != 200 {
		v.t.Fatalf("coverage: %d %s", st, b)
	}
	var cov struct {
		Operations []struct {
			Method   string         `json:"method"`
			Path     string         `json:"path"`
			Statuses map[string]int `json:"statuses"`
		} `json:"operations"`
	}
	if err := json.Unmarshal([]byte(b), &cov); err != nil {
		v.t.Fatal(err)
	}
	succeeds := map[string]bool{}
	for _, op := range ops {
		succeeds[op.method+" "+op.path] = op.succeeds
	}
	var missed, noSuccess []string
	for _, op := range cov.Operations {
		ok := false
		for s := range op.Statuses {
			ok = ok || s[0] == '2' || s[0] == '3'
		}
		switch {
		case len(op.Statuses) == 0:
			missed = append(missed, op.Method+" "+op.Path)
		case !ok && succeeds[op.Method+" "+op.Path]:
			noSuccess = append(noSuccess, op.Method+" "+op.Path)
		}
	}
	if len(missed) > 0 {
		v.t.Errorf("%d public operations were never called through Prism:\n  %s", len(missed), strings.Join(missed, "\n  "))
	}
	if len(noSuccess) > 0 {
		v.t.Errorf("%d operations that declare a success answered none through Prism:\n  %s", len(noSuccess), strings.Join(noSuccess, "\n  "))
	}
}
