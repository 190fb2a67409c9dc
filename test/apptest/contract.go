package apptest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/feria/feria/core/control"
	"github.com/feria/feria/docs"
)

// The contract: every exchange an HTTP test makes through Send is checked
// against docs/openapi.yaml, so that an answer drifting from the document
// fails the test that produced it. The rules:
//   - a request the document has no operation for must be answered with an
//     error in shape (a) (an unknown path, a method the path lacks);
//   - a request the document refuses (a parameter out of its limits, a
//     body of the wrong type) must be answered with an error (4xx or 5xx):
//     tests send bad requests on purpose, and feria must refuse them;
//   - every answer must have a status the operation lists, with a body its
//     schema accepts; a status only the operation's `default` (a sandbox
//     fault rule's answer) covers must come from a fault rule, as the
//     request journal tells;
//   - a world's quota may refuse any request of that world, in shape (a).

// contract is the document and its router, loaded once per test binary.
var contract = sync.OnceValues(func() (*contractDoc, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(docs.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("docs/openapi.yaml: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("docs/openapi.yaml: %w", err)
	}
	// Tests call the app with httptest's host: match paths on any server.
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("docs/openapi.yaml: router: %w", err)
	}
	errorA := doc.Components.Schemas["ErrorA"].Value
	return &contractDoc{doc: doc, router: router, errorA: errorA}, nil
})

type contractDoc struct {
	doc    *openapi3.T
	router routers.Router
	errorA *openapi3.Schema
}

// anyPath reports whether path is under a path item marked
// x-feria-any-method whose last segment is {path}: a tree served whole
// (the jobs dashboard), which the document names once.
func (c *contractDoc) anyPath(path string) bool {
	for p, item := range c.doc.Paths.Map() {
		if item.Extensions["x-feria-any-method"] != true {
			continue
		}
		if prefix, ok := strings.CutSuffix(p, "{path}"); ok && strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}

// noAuth leaves authentication to feria: the document states who may call
// what, the tests check the answers.
func noAuth(context.Context, *openapi3filter.AuthenticationInput) error { return nil }

// exchange is one request and its answer, kept for the check.
type exchange struct {
	req  *http.Request
	body []byte
	res  Response
	// faulted: a sandbox fault rule answered, as the journal said when the
	// answer came (asked only for a status the operation does not list).
	faulted bool
	// quota: a world's quota refused the request (docs/sandbox.md
	// "Worlds"), which any operation of a world may answer, in shape (a).
	quota bool
}

// record keeps an exchange for the check at the end of the test (the
// validation costs milliseconds under the race detector, which tests of
// rate limits in real time must not pay between their requests); an App
// built by hand, without that cleanup, checks at once.
func (a *App) record(t testing.TB, sent *http.Request, body []byte, res Response) {
	t.Helper()
	c, err := contract()
	if err != nil {
		t.Fatal(err)
	}
	x := exchange{req: sent.Clone(context.Background()), body: body, res: res}
	// A world serves the same API under its base path: the same operations.
	if rest, ok := strings.CutPrefix(x.req.URL.Path, "/worlds/"); ok {
		if _, sub, ok := strings.Cut(rest, "/"); ok {
			x.req.URL.Path, x.req.URL.RawPath = "/"+sub, ""
		}
		x.quota = (res.Status == http.StatusTooManyRequests || res.Status == http.StatusRequestEntityTooLarge) &&
			bytes.Contains(res.Body, []byte("(WORLD_MAX_"))
	}
	if route, _, err := c.router.FindRoute(getOfHead(x.req)); err == nil &&
		route.Operation.Responses.Status(res.Status) == nil && route.Operation.Responses.Default() != nil {
		x.faulted = a.faulted(res)
	}
	if !a.deferred {
		a.checkContract(t, x)
		return
	}
	a.mu.Lock()
	a.pending = append(a.pending, x)
	a.mu.Unlock()
}

// verify checks the exchanges recorded, when the test ends.
func (a *App) verify() {
	a.checkPending()
	a.dumpJournal()
}

// checkPending checks the exchanges recorded so far against the document.
func (a *App) checkPending() {
	a.mu.Lock()
	pending := a.pending
	a.pending = nil
	a.mu.Unlock()
	for _, x := range pending {
		a.checkContract(a.t, x)
	}
	a.report()
}

// getOfHead is req, or a GET copy of a HEAD request: fiber answers HEAD
// with the GET route.
func getOfHead(req *http.Request) *http.Request {
	if req.Method != http.MethodHead {
		return req
	}
	g := req.Clone(context.Background())
	g.Method = http.MethodGet
	return g
}

// checkContract checks one exchange.
func (a *App) checkContract(t testing.TB, x exchange) {
	t.Helper()
	c, err := contract()
	if err != nil {
		t.Fatal(err)
	}
	a.checked.Add(1)
	res := x.res
	req := x.req.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(decoded(req, x.body)))
	head := req.Method == http.MethodHead
	if head {
		req.Method = http.MethodGet // fiber answers HEAD with the GET route
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("contract (docs/openapi.yaml): %s: %d: %s\nbody: %s", res.Request, res.Status, fmt.Sprintf(format, args...), clip(res.Body))
	}
	if x.quota {
		if verr := validJSON(c.errorA, res.Body); verr != nil {
			fail("a world's quota answered, not in shape (a): %v", verr)
		}
		return
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil && c.anyPath(req.URL.Path) {
		return // the jobs dashboard's own paths: documented as one item
	}
	if err != nil {
		if res.Status < 400 {
			fail("no operation in the document for this request (%v), yet it was answered", err)
			return
		}
		if !head {
			if verr := validJSON(c.errorA, res.Body); verr != nil {
				fail("not a shape (a) error: %v", verr)
			}
		}
		return
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: noAuth, MultiError: true}}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		if res.Status < 400 {
			fail("the document refuses this request (%v), yet feria answered it", err)
		}
		// A refused request: its answer is checked like any other below.
	}
	op := route.Operation
	if op.Responses.Status(res.Status) == nil && op.Responses.Default() != nil && !x.faulted {
		fail("status %d is not listed for %s %s (only `default`, a fault rule's answer, covers it)", res.Status, route.Method, route.Path)
		return
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
	ct := res.Header.Get("Content-Type")
	if mt, _, _ := mime.ParseMediaType(ct); head || len(res.Body) == 0 && res.Status == http.StatusNoContent || !strings.HasSuffix(mt, "json") {
		// Files, pages and metrics: the status and the media type are
		// checked, not the bytes.
		opts.ExcludeResponseBody = true
		if !head && len(res.Body) > 0 && !mediaListed(op, res.Status, mt) {
			fail("media type %q is not listed for status %d", mt, res.Status)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.Status, Header: res.Header,
		Body: io.NopCloser(bytes.NewReader(res.Body)), Options: opts}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		fail("the answer does not match the document: %v", err)
	}
}

// decoded is a request body without its gzip content coding: the document
// describes the representation, which HTTP may send compressed.
func decoded(req *http.Request, body []byte) []byte {
	if req.Header.Get("Content-Encoding") != "gzip" {
		return body
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return body
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		return body
	}
	req.Header.Del("Content-Encoding")
	return plain
}

// faulted reports whether a sandbox fault rule answered res, by its
// request id in the journal.
func (a *App) faulted(res Response) bool {
	id := res.Header.Get("X-Request-Id")
	if id == "" || a.Deps == nil || a.Deps.Controls == nil {
		return false
	}
	es, err := a.Deps.Controls.Requests(context.Background(), control.Filter{Limit: control.MaxJournalLimit})
	if err != nil {
		return false
	}
	for _, e := range es {
		if e.ID == id {
			return e.FaultID != nil
		}
	}
	return false
}

func mediaListed(op *openapi3.Operation, status int, mt string) bool {
	r := op.Responses.Status(status)
	if r == nil {
		r = op.Responses.Default()
	}
	if r == nil || r.Value == nil {
		return false
	}
	if len(r.Value.Content) == 0 {
		return true // a response without content in the document: any
	}
	return r.Value.Content.Get(mt) != nil
}

func validJSON(s *openapi3.Schema, body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	return s.VisitJSON(v, openapi3.EnableJSONSchema2020())
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

// report logs how many exchanges of the instance were checked against
// the document (seen with -v, as make test's log is written).
func (a *App) report() {
	if n := a.checked.Load(); n > 0 && a.t != nil {
		a.t.Logf("contract: %d exchanges checked against docs/openapi.yaml", n)
	}
}
