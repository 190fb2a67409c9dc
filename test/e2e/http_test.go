package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/adapters/blobstore/fsblob"
	"github.com/feria/feria/app"
	"github.com/feria/feria/test/apptest"
	"github.com/feria/feria/test/testenv"
)

// serve runs the instance's fiber app on a real loopback listener, as the
// binary does: fiber's test helper hides the reuse of request buffers
// across the requests of a connection, which is where values taken from a
// request without a copy get overwritten.
func serve(t *testing.T, a *apptest.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go a.HTTP.Listener(ln) //nolint:errcheck // ends with the shutdown below
	t.Cleanup(func() { a.HTTP.ShutdownWithTimeout(5 * time.Second) })
	return "http://" + ln.Addr().String()
}

// fiber's zero-copy c.Method(), kept as a metric label, would be
// overwritten by the next request on the connection ("GETT", "POS"), after
// which /metrics would answer 500 for good. Mixed methods on
// keep-alive connections, concurrently; /metrics stays 200 and names only
// the methods that were sent.
func TestMetricsUnderMixedMethods(t *testing.T) {
	a := apptest.New(t, apptest.Embedded)
	base := serve(t, a)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: 10 * time.Second}
	t.Cleanup(client.CloseIdleConnections) // before the server's shutdown, which waits for them
	methods := []string{"GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"}
	paths := []string{"/health/live", "/items/MLA1", "/nowhere/at/all", "/users/1/items/search"}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 60; i++ {
				m := methods[(i+w)%len(methods)]
				req, _ := http.NewRequest(m, base+paths[(i*3+w)%len(paths)], strings.NewReader(`{"x":1}`))
				res, err := client.Do(req)
				if err != nil {
					t.Errorf("%s: %v", m, err)
					return
				}
				io.Copy(io.Discard, res.Body) //nolint:errcheck // draining
				res.Body.Close()
				if res.StatusCode >= 500 {
					t.Errorf("%s %s: %d", m, req.URL.Path, res.StatusCode)
				}
			}
		}(w)
	}
	wg.Wait()
	res, err := client.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("/metrics after mixed methods: %d %s", res.StatusCode, body)
	}
	real := map[string]bool{}
	for _, m := range methods {
		real[m] = true
	}
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`feria_http_requests_total\{method="([^"]*)"`).FindAllStringSubmatch(string(body), -1) {
		if !real[m[1]] {
			t.Errorf("metric labelled with method %q, which no request used", m[1])
		}
		seen[m[1]] = true
	}
	for _, m := range methods {
		if !seen[m] {
			t.Errorf("no request counted for method %s", m)
		}
	}
}

// logBuffer collects an instance's JSON log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// logged is an embedded-backend instance whose log the test reads.
func logged(t *testing.T, configure func(*app.Config)) (*apptest.App, *logBuffer) {
	t.Helper()
	blobs, err := fsblob.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := app.LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.SandboxKey = apptest.SandboxKey
	if configure != nil {
		configure(&cfg)
	}
	logs := &logBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	in, err := app.NewInstance(cfg, log, testenv.SQLite(t), testenv.Redises()["miniredis"](t), blobs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Close)
	a := &apptest.App{Instance: in}
	a.SetT(t)
	return a, logs
}

// rawRequest writes raw bytes on a new connection and reads the answer.
func rawRequest(t *testing.T, addr string, raw []byte, pause time.Duration) *http.Response {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(raw); err != nil {
		t.Fatal(err)
	}
	time.Sleep(pause)
	c.SetReadDeadline(time.Now().Add(5 * time.Second)) //nolint:errcheck // a read error fails below
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return res
}

// Oversized headers and a client too slow to send its request must not
// answer 500 and log an ERROR each, or any client could flood the error
// log. They answer 431 and 408 in shape (a) with a request id, and
// log at INFO.
func TestUnreadRequests(t *testing.T) {
	a, logs := logged(t, func(c *app.Config) { c.HTTPReadTimeout = 300 * time.Millisecond })
	addr := strings.TrimPrefix(serve(t, a), "http://")
	cases := []struct {
		name   string
		raw    string
		pause  time.Duration
		status int
		code   string
	}{
		{"oversized headers", "GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 16<<10) + "\r\n\r\n", 0, 431, "request_header_fields_too_large"},
		{"slow client", "GET /health/live HTTP/1.1\r\nHost: x\r\nX-Half: ", 700 * time.Millisecond, 408, "request_timeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := rawRequest(t, addr, []byte(tc.raw), tc.pause)
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var v struct {
				Error  string `json:"error"`
				Status int    `json:"status"`
			}
			if res.StatusCode != tc.status || json.Unmarshal(body, &v) != nil || v.Error != tc.code || v.Status != tc.status {
				t.Fatalf("%d %s; want %d %s", res.StatusCode, body, tc.status, tc.code)
			}
			id := res.Header.Get("X-Request-Id")
			if id == "" {
				t.Fatalf("no request id on the %d", tc.status)
			}
			time.Sleep(50 * time.Millisecond)
			if !strings.Contains(logs.String(), id) {
				t.Errorf("the log does not name request %s", id)
			}
		})
	}
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("requests the server could not read logged at ERROR:\n%s", logs)
	}
}

// DELETE /sandbox/tokens/{token} must not write the token into the access
// log's path.
func TestAccessLogMasksTokensInPaths(t *testing.T) {
	a, logs := logged(t, nil)
	const token = "APP_USR-revoke-me-0123456789"
	a.Sandbox("PUT", "/users/321", map[string]any{"nickname": "S", "site_id": "MLA", "access_token": token}).OK(t, 200)
	if r := a.Sandbox("DELETE", "/tokens/"+token, nil); r.Status >= 300 {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	if !strings.Contains(logs.String(), `"path":"/sandbox/tokens/xxxxx"`) {
		t.Fatalf("no access line for the revocation:\n%s", logs)
	}
	// Refused before routing (a wrong key): no parameter is known there.
	a.Do("DELETE", "/sandbox/tokens/"+token, nil, "X-Sandbox-Key", "wrong").HasStatus(t, 401)
	if strings.Contains(logs.String(), token) {
		t.Fatalf("the log holds the token:\n%s", logs)
	}
}
