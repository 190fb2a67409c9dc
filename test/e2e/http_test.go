package e2e

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
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

// Defect 1 of issue 10: fiber's zero-copy c.Method() was kept as a metric
// label and overwritten by the next request on the connection ("GETT",
// "POS"), after which /metrics answered 500 for good. Mixed methods on
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
