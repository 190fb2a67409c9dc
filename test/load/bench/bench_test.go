package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A server that keeps up with half the rate asked shows in the open
// loop's tail: latency runs from each request's due instant, so the queue
// that builds is counted, while the closed loop, which waits for each
// answer before the next request, sees only the service time.
func TestOpenLoopCountsTheQueueFromEachDueInstant(t *testing.T) {
	var mu sync.Mutex
	serial := func() error { // one at a time, 20 ms each: 50/s at most
		mu.Lock()
		defer mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		return nil
	}
	open, dropped, err := openLoop(100, 400*time.Millisecond, serial)
	if err != nil || dropped != 0 {
		t.Fatalf("open loop: %v, %d dropped", err, dropped)
	}
	if open.ops != 40 {
		t.Errorf("open loop sent %d requests in 400 ms at 100/s, want 40", open.ops)
	}
	m := merged{}
	m.add(open)
	if _, p99 := m.quantiles(); p99 < 200*time.Millisecond {
		t.Errorf("open loop p99 %s: the queue of a server at half the rate is not counted", p99)
	}
	closed, err := closedLoop(1, 200*time.Millisecond, serial)
	if err != nil {
		t.Fatal(err)
	}
	c := merged{}
	c.add(closed)
	if _, p99 := c.quantiles(); p99 > 150*time.Millisecond {
		t.Errorf("closed loop p99 %s, want about the 20 ms service time", p99)
	}
	if r := closed.perSec(); r < 15 || r > 55 {
		t.Errorf("closed loop rate %.0f/s, want about 50/s", r)
	}
}

// The table goes between the markers of docs/performance.md and nowhere
// else; a file without them is refused, unchanged.
func TestIntoDocReplacesOnlyBetweenTheMarkers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "performance.md")
	doc := "# Performance\n\nintro\n\n" + beginMarker + "\nold table\n" + endMarker + "\n\n## Later sections\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &report{o: options{rounds: 3, duration: time.Second, conc: 8, products: 100}, start: time.Now(), rows: rows()}
	if err := r.intoDoc(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	if strings.Contains(got, "old table") || !strings.Contains(got, "| path | configuration | feria |") {
		t.Errorf("the table did not replace the old one:\n%s", got)
	}
	// The method the table states: paths and anchors in interleaved rounds,
	// the anchors behind HTTP in a service of their own, the ingestion
	// anchor's fixed minimum of operations per event.
	for _, want := range []string{"interleaved rounds", "the anchor service", "fiber + one bun primary-key select",
		fmt.Sprintf("pipelined INCR ÷ %d ops per event", opsPerEvent)} {
		if !strings.Contains(got, want) {
			t.Errorf("the table does not state %q:\n%s", want, got)
		}
	}
	if !strings.HasPrefix(got, "# Performance\n\nintro\n\n"+beginMarker+"\n") || !strings.HasSuffix(got, endMarker+"\n\n## Later sections\n") {
		t.Errorf("text outside the markers changed:\n%s", got)
	}

	bare := filepath.Join(dir, "bare.md")
	if err := os.WriteFile(bare, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.intoDoc(bare); err == nil || !strings.Contains(err.Error(), "markers") {
		t.Errorf("a file without markers: %v, want an error naming the markers", err)
	}
	if b, _ := os.ReadFile(bare); string(b) != "no markers\n" {
		t.Errorf("a file without markers was changed: %q", b)
	}
}

// wrk sends what a request describes: each path of a fresh series once and
// in order, each batch of events new (valid JSON, 100 ids never seen), the
// headers and the body given; the harness reads its counts and advances
// the fresh series past every request it may have sent.
func TestWrkSendsTheRequestsDescribed(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Fatalf("wrk drives the bench's load (apt-get install wrk): %v", err)
	}
	var mu sync.Mutex
	paths := map[string]int{}
	ids := map[string]bool{}
	bad := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		paths[r.URL.Path]++
		if r.Header.Get("X-Key") != "k" {
			bad = "header X-Key missing"
		}
		if strings.HasPrefix(r.URL.Path, "/events") {
			var v struct {
				Events []struct {
					ID, Type, Date string
					ItemID         string `json:"item_id"`
				}
			}
			if err := json.Unmarshal(b, &v); err != nil || len(v.Events) != 100 {
				bad = fmt.Sprintf("events body %.200s: %v", b, err)
			}
			for _, e := range v.Events {
				if ids[e.ID] || e.ItemID == "" || e.Type != "phone_view" {
					bad = fmt.Sprintf("event %+v seen before or incomplete", e)
				}
				ids[e.ID] = true
				if _, err := time.Parse(time.RFC3339, e.Date); err != nil {
					bad = err.Error()
				}
			}
		} else if string(b) != "form" {
			bad = fmt.Sprintf("body %q", b)
		}
		w.WriteHeader(201)
	}))
	defer srv.Close()

	events := &request{method: "POST", base: srv.URL, paths: []string{"/events"}, events: "t", want: 201, header: []string{"X-Key", "k"}}
	s, client, err := wrkLoad(events, 2, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if s.ops == 0 || client <= 0 || s.p99 < s.p50 {
		t.Errorf("wrk's result: %+v, client CPU %v", s, client)
	}
	var fresh atomic.Int64
	fresh.Store(1)
	var all []string
	for n := range 100_000 {
		all = append(all, fmt.Sprint("/p/", n))
	}
	packs := &request{method: "POST", base: srv.URL, paths: all, fresh: &fresh, body: []byte("form"), want: 201, header: []string{"X-Key", "k"}}
	ps, _, err := wrkLoad(packs, 2, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if bad != "" {
		t.Fatal(bad)
	}
	if len(ids) < 100*s.ops {
		t.Errorf("%d event ids for %d batches", len(ids), s.ops)
	}
	if paths["/p/0"] != 0 || paths["/p/1"] != 1 || paths[fmt.Sprint("/p/", ps.ops)] != 1 {
		t.Errorf("fresh paths: /p/0 %d, /p/1 %d, /p/%d %d times; want 0, 1, 1", paths["/p/0"], paths["/p/1"], ps.ops, paths[fmt.Sprint("/p/", ps.ops)])
	}
	for p, n := range paths {
		if n > 1 && p != "/events" {
			t.Errorf("%s sent %d times", p, n)
		}
	}
	if got := fresh.Load(); got < int64(1+ps.ops) {
		t.Errorf("the fresh series is at %d after %d requests from 1", got, ps.ops)
	}
}

// A request's script quotes what Lua would read otherwise.
func TestLuaString(t *testing.T) {
	if got := luaString("a\"b\\c\n\x7f"); got != `"a\"b\\c\010\127"` {
		t.Errorf("luaString: %s", got)
	}
}

// The host's steal is the eighth count of /proc/stat's "cpu" line, in
// USER_HZ ticks: 133 ticks are 1.33 s of CPU taken by the host.
func TestStealIsReadFromTheAllCPUsLine(t *testing.T) {
	stat := "cpu  192916 0 86987 126714 383 0 31552 133 0 0\ncpu0 100911 0 39815 63111 55 0 15747 62 0 0\n"
	if got := stealOf(stat); got != 1330*time.Millisecond {
		t.Errorf("steal of %q: %v, want 1.33s", stat, got)
	}
	for _, bad := range []string{"", "intr 1 2 3", "cpu 1 2 3"} {
		if got := stealOf(bad); got != 0 {
			t.Errorf("steal of %q: %v, want 0 (not counted)", bad, got)
		}
	}
}
