// Package apptest builds a whole feria on real test services for HTTP and
// end-to-end tests: the fiber app with every module, the sandbox enabled,
// and helpers to load fixtures and call the API.
package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/blobstore/fsblob"
	"github.com/feria/feria/adapters/blobstore/s3blob"
	"github.com/feria/feria/app"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/test/testenv"
)

// SandboxKey is the sandbox key of every test instance.
const SandboxKey = "test-sandbox-key"

// Backend selects the adapters of an instance.
type Backend struct {
	Name  string
	SQL   string // "postgres" or "sqlite"
	Redis string // "redis" or "miniredis"
	Blobs string // "s3" or "filesystem"
}

// Real is PostgreSQL, Redis and MinIO; Embedded is SQLite, miniredis and the
// filesystem, as `make run` uses them.
var (
	Real     = Backend{Name: "real", SQL: "postgres", Redis: "redis", Blobs: "s3"}
	Embedded = Backend{Name: "embedded", SQL: "sqlite", Redis: "miniredis", Blobs: "filesystem"}
	Both     = []Backend{Real, Embedded}
)

// Each runs test once on each backend (Both), as a subtest named after it:
// the one way a test runs on both. A test that may run beside others calls
// t.Parallel() first.
func Each(t *testing.T, test func(t *testing.T, be Backend)) {
	t.Helper()
	for _, be := range Both {
		t.Run(be.Name, func(t *testing.T) { test(t, be) })
	}
}

// Config is the configuration a test may change before the instance is
// wired (NewConfigured), so that tests need not import app.
type Config = app.Config

// App is a running test instance.
type App struct {
	*app.Instance
	// Timeout is how long Send waits for an answer: 30 s when zero.
	Timeout time.Duration
	t       testing.TB
	// checked counts the exchanges checked against docs/openapi.yaml.
	checked atomic.Int64
	// deferred: the exchanges are checked when the test ends (contract.go).
	deferred bool
	mu       sync.Mutex
	pending  []exchange
}

// New wires feria on the backend's test services.
func New(t testing.TB, be Backend) *App {
	t.Helper()
	return NewConfigured(t, be, nil)
}

// NewConfigured is New with a last say on the configuration (a disabled
// sandbox, say).
func NewConfigured(t testing.TB, be Backend, configure func(*Config)) *App {
	t.Helper()
	db := testenv.Databases()[be.SQL](t)
	rdb := testenv.Redises()[be.Redis](t)
	var blobs blobport.Store
	var err error
	if be.Blobs == "s3" {
		s := testenv.S3(t)
		blobs, err = s3blob.New(context.Background(), s3blob.Config{Endpoint: s.Endpoint, AccessKey: s.AccessKey,
			SecretKey: s.SecretKey, Bucket: testenv.S3Bucket(t), UseSSL: s.UseSSL})
	} else {
		blobs, err = fsblob.New(t.TempDir())
	}
	if err != nil {
		t.Fatalf("apptest: blobs: %v", err)
	}
	cfg, err := app.LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.SandboxKey = SandboxKey
	cfg.AdminKey = "test-admin-key"
	cfg.ShutdownTimeout = 5 * time.Second
	if configure != nil {
		configure(&cfg)
	}
	recordValues(cfg.SandboxKey, cfg.AdminKey)
	level := slog.LevelWarn
	if os.Getenv("TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	log := slog.New(scanned(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	in, err := app.NewInstance(cfg, log, db, rdb, blobs)
	if err != nil {
		t.Fatalf("apptest: %v", err)
	}
	t.Cleanup(in.Close)
	a := &App{Instance: in, t: t, deferred: true}
	t.Cleanup(a.verify)
	return a
}

// NewOnRedis wires feria on SQLite and files of the test's own and on rdb,
// a Redis the test controls (one it stops, say).
func NewOnRedis(t testing.TB, rdb *redis.Client) *App {
	t.Helper()
	blobs, err := fsblob.New(t.TempDir())
	if err != nil {
		t.Fatalf("apptest: blobs: %v", err)
	}
	cfg, err := app.LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.SandboxKey = SandboxKey
	cfg.ShutdownTimeout = 5 * time.Second
	recordValues(cfg.SandboxKey)
	log := slog.New(scanned(slog.NewJSONHandler(io.Discard, nil)))
	in, err := app.NewInstance(cfg, log, testenv.SQLite(t), rdb, blobs)
	if err != nil {
		t.Fatalf("apptest: %v", err)
	}
	t.Cleanup(in.Close)
	a := &App{Instance: in, t: t, deferred: true}
	t.Cleanup(a.verify)
	return a
}

// Twin is another instance of the service on the same database, Redis
// (through a client of its own) and file store, as a second process behind
// a load balancer would be: for tests of state every instance must share.
func (a *App) Twin() *App {
	a.t.Helper()
	rdb := testenv.Twin(a.Deps.Redis)
	a.t.Cleanup(func() { rdb.Close() })
	in, err := app.NewInstance(a.Deps.Config, a.Deps.Log, a.Deps.DB, rdb, a.Deps.Blobs)
	if err != nil {
		a.t.Fatalf("apptest: twin: %v", err)
	}
	a.t.Cleanup(in.Close)
	// A process reads the sandbox clock another froze at start-up (and
	// every second after, which tests do not wait for).
	if err := in.Deps.Clock.Reload(context.Background()); err != nil {
		a.t.Fatalf("apptest: twin: %v", err)
	}
	twin := &App{Instance: in, t: a.t, deferred: true}
	a.t.Cleanup(twin.verify)
	return twin
}

// SetT binds an App built by hand (app.NewInstance) to a test.
func (a *App) SetT(t testing.TB) { a.t = t }

// For is the same instance as seen by t, a subtest of the test that built
// a: its requests fail t and their exchanges are checked when t ends. So
// parallel subtests that only read share one instance, loaded once.
func (a *App) For(t testing.TB) *App {
	view := &App{Instance: a.Instance, t: t, deferred: true}
	t.Cleanup(view.checkPending)
	return view
}

// StartWorkers runs the job workers and the outbox relay until the test ends.
func (a *App) StartWorkers() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := a.RunWorkers(ctx); err != nil {
			a.t.Errorf("apptest: workers: %v", err)
		}
	}()
	a.t.Cleanup(func() { cancel(); <-done })
}

// Response is an answer read whole.
type Response struct {
	// Request is "METHOD /path?query" of the request answered, for failures.
	Request string
	Status  int
	Header  http.Header
	Body    []byte
}

// JSON decodes the body into v, failing the test if it is not JSON.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("answer is not JSON (%v): %s", err, r.Body)
	}
}

// Do sends a request through the fiber app. body may be nil, a []byte, a
// string or any value to encode as JSON. headers are name, value pairs.
func (a *App) Do(method, path string, body any, headers ...string) Response {
	a.t.Helper()
	return a.Send(a.request(method, path, body, headers...))
}

// request is Do's request, not sent.
func (a *App) request(method, path string, body any, headers ...string) *http.Request {
	a.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// Send sends a prepared request through the fiber app and checks the
// exchange against docs/openapi.yaml (contract.go).
func (a *App) Send(req *http.Request) Response {
	a.t.Helper()
	timeout := a.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	return a.send(req, timeout)
}

func (a *App) send(req *http.Request, timeout time.Duration) Response {
	a.t.Helper()
	recordSecrets(req)
	var sent []byte
	if req.Body != nil {
		var err error
		if sent, err = io.ReadAll(req.Body); err != nil {
			a.t.Fatal(err)
		}
		req.Body = io.NopCloser(bytes.NewReader(sent))
	}
	res, err := a.HTTP.Test(req, int(timeout.Milliseconds()))
	if err != nil {
		a.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	r := Response{Request: req.Method + " " + req.URL.RequestURI(), Status: res.StatusCode, Header: res.Header, Body: b}
	a.record(a.t, req, sent, r)
	return r
}

// Sandbox calls the sandbox API with the instance's key.
func (a *App) Sandbox(method, path string, body any) Response {
	a.t.Helper()
	return a.Do(method, "/sandbox"+path, body, "X-Sandbox-Key", SandboxKey)
}

// loadTimeout is how long MustLoad waits for a world to load.
const loadTimeout = 3 * time.Minute

// MustLoad loads fixtures and fails the test unless they load. A world of
// hundreds of entries is thousands of statements, which SQLite parses one by
// one and slowly under the race detector: on two busy cores such a load has
// outlasted Send's 30 s, so it is given loadTimeout.
func (a *App) MustLoad(fixtures any) {
	a.t.Helper()
	req := a.request("POST", "/sandbox/fixtures", fixtures, "X-Sandbox-Key", SandboxKey)
	if r := a.send(req, loadTimeout); r.Status != 200 {
		a.t.Fatalf("fixtures: %d %s", r.Status, r.Body)
	}
}

// Bearer returns the header pair of a bearer token, for Do; none for "",
// so that a table's row without a token sends no Authorization header.
func Bearer(token string) []string {
	if token == "" {
		return nil
	}
	return []string{"Authorization", "Bearer " + token}
}
