package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	if strings.Contains(got, "old table") || !strings.Contains(got, "| path | feria |") {
		t.Errorf("the table did not replace the old one:\n%s", got)
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
