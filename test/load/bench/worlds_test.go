package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// A path in a world is set beside the same path at the root of the same
// instance: its ratio, its goal met or not, and its validity from both.
func TestWorldRatioIsTheWorldOverTheRoot(t *testing.T) {
	measured := func(ops int, clientUS, serverUS float64) *side {
		s := &side{server: cpuSandboxed}
		s.add(sample{ops: ops, elapsed: time.Second, lats: []time.Duration{time.Millisecond}},
			map[string]float64{cpuClient: clientUS * float64(ops) / 1e6, cpuSandboxed: serverUS * float64(ops) / 1e6})
		return s
	}
	rw := &row{name: "`GET /items/{id}`", perOp: 1, unit: "req/s"}
	rw.sides[sandboxed], rw.sides[inWorld] = measured(1000, 40, 400), measured(850, 40, 450)
	if ratio, valid := rw.worldRatio(); ratio != 0.85 || !valid {
		t.Errorf("ratio %v valid %v, want 0.85 and valid", ratio, valid)
	}
	rw.sides[inWorld] = measured(950, 500, 450) // its client spent more than feria
	if ratio, valid := rw.worldRatio(); ratio != 0.95 || valid {
		t.Errorf("ratio %v valid %v, want 0.95 and not valid", ratio, valid)
	}
	r := &report{rows: []*row{rw, {name: "not in a world"}}, worlds: &worldsResult{n: 3, listed: 3,
		create: []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}, remove: []time.Duration{time.Millisecond}}}
	var out bytes.Buffer
	r.printWorlds(&out)
	if !strings.Contains(out.String(), "GET /items/{id}                                  1.00k       950  0.950  0.90  yes") ||
		strings.Contains(out.String(), "not in a world") {
		t.Errorf("the in-world rows:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "worlds: 3 created (GET /sandbox/worlds lists 3)") {
		t.Errorf("the lifecycle:\n%s", out.String())
	}
	out.Reset()
	r.markdownWorlds(&out)
	if !strings.Contains(out.String(), "`GET /items/{id}` 950 req/s beside 1.00k at the root, **0.950** (yes; valid **no**)") {
		t.Errorf("the markdown:\n%s", out.String())
	}
}

// Every name is called once, the times come back sorted, and a failure
// is the answer.
func TestTimeEachCallsEveryNameOnce(t *testing.T) {
	seen := make(chan string, 5)
	lats, total, err := timeEach([]string{"a", "b", "c", "d", "e"}, func(n string) error { seen <- n; return nil })
	close(seen)
	if err != nil || len(lats) != 5 || total <= 0 {
		t.Fatalf("%v %v %v", lats, total, err)
	}
	got := map[string]bool{}
	for n := range seen {
		got[n] = true
	}
	if len(got) != 5 {
		t.Errorf("called %v", got)
	}
	for i := 1; i < len(lats); i++ {
		if lats[i] < lats[i-1] {
			t.Errorf("not sorted: %v", lats)
		}
	}
	boom := errors.New("boom")
	if _, _, err := timeEach([]string{"a", "b"}, func(n string) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("err %v, want boom", err)
	}
}
