package controlporttest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feria/feria/core/control"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/ports/controlport"
)

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func ids(fs []control.Fault) []int64 {
	out := []int64{}
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

// TestRules is the contract every controlport.Rules must meet. open
// returns empty rules of the test's own; twins (when not nil) returns a
// second handle on the same state, as another instance of the service has.
func TestRules(t *testing.T, open func(t *testing.T) controlport.Rules, twin func(t *testing.T, r controlport.Rules) controlport.Rules) {
	ctx := context.Background()
	current := func(t *testing.T, r controlport.Rules) controlport.Snapshot {
		t.Helper()
		s, err := r.Current(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	add := func(t *testing.T, r controlport.Rules, f control.Fault) control.Fault {
		t.Helper()
		got, err := r.AddFault(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	other := func(t *testing.T, r controlport.Rules) controlport.Rules {
		if twin == nil {
			return r
		}
		return twin(t, r)
	}

	t.Run("empty", func(t *testing.T) {
		r := open(t)
		s := current(t, r)
		if len(s.Faults) != 0 || len(s.Limits) != 0 || s.LimitsSet {
			t.Errorf("fresh rules: %+v", s)
		}
		fs, err := r.Faults(ctx)
		if err != nil || len(fs) != 0 {
			t.Errorf("Faults: %v %v", fs, err)
		}
	})

	t.Run("faults keep every field, oldest first, and are seen by every instance", func(t *testing.T) {
		r := open(t)
		r2 := other(t, r)
		current(t, r2) // the twin has read the rules once: a later change must show
		a := add(t, r, control.Fault{Method: kerneltest.Ptr("GET"), Path: "/items/*", Status: 503, Error: "service_unavailable", Message: "try again",
			LatencyMS: 10, Probability: 0.5, Times: kerneltest.Ptr(3), RetryAfter: 2, Used: 7})
		b := add(t, r, control.Fault{Path: "/x", Probability: 1, RetryAfter: 1})
		if a.ID <= 0 || b.ID <= a.ID {
			t.Fatalf("ids %d then %d: want positive and increasing", a.ID, b.ID)
		}
		if a.Used != 0 {
			t.Errorf("a new rule has %d uses", a.Used)
		}
		want := []control.Fault{a, b}
		for _, h := range []controlport.Rules{r, r2} {
			if got := current(t, h).Faults; js(got) != js(want) {
				t.Errorf("Current faults %s\nwant %s", js(got), js(want))
			}
			if got, _ := h.Faults(ctx); js(got) != js(want) {
				t.Errorf("Faults %s\nwant %s", js(got), js(want))
			}
		}
	})

	t.Run("delete one and all", func(t *testing.T) {
		r := open(t)
		a := add(t, r, control.Fault{Path: "/a", Probability: 1})
		b := add(t, r, control.Fault{Path: "/b", Probability: 1})
		current(t, r)
		if ok, err := r.DeleteFault(ctx, a.ID); !ok || err != nil {
			t.Fatalf("DeleteFault: %v %v", ok, err)
		}
		if ok, err := r.DeleteFault(ctx, a.ID); ok || err != nil {
			t.Fatalf("DeleteFault again: %v %v, want false", ok, err)
		}
		if got := ids(current(t, other(t, r)).Faults); js(got) != js([]int64{b.ID}) {
			t.Errorf("after delete: %v", got)
		}
		c := add(t, r, control.Fault{Path: "/c", Probability: 1})
		if c.ID <= b.ID {
			t.Errorf("an id was reused: %d after %d", c.ID, b.ID)
		}
		if err := r.DeleteFaults(ctx); err != nil {
			t.Fatal(err)
		}
		if got := current(t, other(t, r)).Faults; len(got) != 0 {
			t.Errorf("after delete all: %v", got)
		}
	})

	t.Run("uses are counted and a rule leaves with its last use", func(t *testing.T) {
		r := open(t)
		f := add(t, r, control.Fault{Path: "/a", Probability: 1, Times: kerneltest.Ptr(2)})
		forever := add(t, r, control.Fault{Path: "/b", Probability: 1})
		current(t, r)
		if ok, err := r.UseFault(ctx, f.ID); !ok || err != nil {
			t.Fatalf("first use: %v %v", ok, err)
		}
		fs, _ := r.Faults(ctx)
		if len(fs) != 2 || fs[0].Used != 1 {
			t.Fatalf("after one use: %s", js(fs))
		}
		if ok, _ := other(t, r).UseFault(ctx, f.ID); !ok {
			t.Fatal("second use refused")
		}
		if got := ids(current(t, r).Faults); js(got) != js([]int64{forever.ID}) {
			t.Errorf("after the last use: %v, want only %d", got, forever.ID)
		}
		if ok, _ := r.UseFault(ctx, f.ID); ok {
			t.Error("a use of an expired rule was granted")
		}
		for range 5 {
			if ok, _ := r.UseFault(ctx, forever.ID); !ok {
				t.Fatal("use of a rule without times refused")
			}
		}
		if fs, _ := r.Faults(ctx); len(fs) != 1 || fs[0].Used != 5 {
			t.Errorf("uses of the rule without times: %s", js(fs))
		}
	})

	t.Run("a use is granted once across instances", func(t *testing.T) {
		r := open(t)
		const times = 3
		f := add(t, r, control.Fault{Path: "/a", Probability: 1, Times: kerneltest.Ptr(times)})
		handles := []controlport.Rules{r, other(t, r)}
		var granted atomic.Int64
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := handles[i%2].UseFault(ctx, f.ID)
				if err != nil {
					t.Error(err)
				}
				if ok {
					granted.Add(1)
				}
			}()
		}
		wg.Wait()
		if granted.Load() != times {
			t.Errorf("%d uses granted, want %d", granted.Load(), times)
		}
	})

	t.Run("limits: defaults until set, a new generation on every change", func(t *testing.T) {
		r := open(t)
		s0 := current(t, r)
		limits := []control.RateLimit{{Method: kerneltest.Ptr("POST"), Path: "/a", PerMinute: 5}, {Path: "/b/*", PerMinute: 1}}
		if err := r.SetLimits(ctx, limits); err != nil {
			t.Fatal(err)
		}
		s1 := current(t, other(t, r))
		if !s1.LimitsSet || js(s1.Limits) != js(limits) || s1.Generation == s0.Generation {
			t.Errorf("after SetLimits: %s (generation before %q)", js(s1), s0.Generation)
		}
		if err := r.SetLimits(ctx, nil); err != nil {
			t.Fatal(err)
		}
		s2 := current(t, r)
		if !s2.LimitsSet || len(s2.Limits) != 0 || s2.Generation == s1.Generation {
			t.Errorf("after SetLimits(none): %s", js(s2))
		}
		add(t, r, control.Fault{Path: "/a", Probability: 1})
		if s3 := current(t, r); s3.Generation != s2.Generation {
			t.Errorf("a fault rule changed the limits' generation: %q → %q", s2.Generation, s3.Generation)
		}
		if err := r.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		s4 := current(t, other(t, r))
		if s4.LimitsSet || len(s4.Limits) != 0 || len(s4.Faults) != 0 || s4.Generation == s2.Generation {
			t.Errorf("after Reset: %s", js(s4))
		}
		if err := r.SetLimits(ctx, limits); err != nil {
			t.Fatal(err)
		}
		if s5 := current(t, r); s5.Generation == s1.Generation || s5.Generation == s4.Generation {
			t.Errorf("a generation was reused after a reset: %q", s5.Generation)
		}
	})

	t.Run("a change after a reset is seen by an instance that read the rules before it", func(t *testing.T) {
		r := open(t)
		r2 := other(t, r)
		add(t, r, control.Fault{Path: "/a", Probability: 1})
		if got := current(t, r2).Faults; len(got) != 1 {
			t.Fatalf("before: %v", got)
		}
		if err := r.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		b := add(t, r, control.Fault{Path: "/b", Probability: 1})
		if got := current(t, r2).Faults; len(got) != 1 || got[0].ID != b.ID || got[0].Path != "/b" {
			t.Errorf("after reset and add: %s", js(got))
		}
	})
}

// TestLimiter is the contract every controlport.Limiter must meet: a burst
// of N, then refusals with a Retry-After within the minute, refused
// requests not counted, keys counted apart and across instances.
func TestLimiter(t *testing.T, open func(t *testing.T) (a, b controlport.Limiter)) {
	ctx := context.Background()
	t.Run("a burst of N, then refused", func(t *testing.T) {
		a, b := open(t)
		const n = 5
		for i := range n {
			v, err := []controlport.Limiter{a, b}[i%2].Allow(ctx, "k1", n)
			if err != nil || !v.Allowed {
				t.Fatalf("request %d: %+v %v", i+1, v, err)
			}
		}
		for i := range 3 {
			v, err := []controlport.Limiter{a, b}[i%2].Allow(ctx, "k1", n)
			if err != nil || v.Allowed {
				t.Fatalf("request %d over the limit: %+v %v", n+i+1, v, err)
			}
			if v.RetryAfter <= 0 || v.RetryAfter > time.Minute {
				t.Errorf("retry after %v, want within a minute", v.RetryAfter)
			}
		}
		if v, _ := a.Allow(ctx, "k2", n); !v.Allowed {
			t.Error("another key was refused")
		}
	})
	t.Run("concurrent callers: exactly N allowed", func(t *testing.T) {
		a, b := open(t)
		const n = 7
		var allowed atomic.Int64
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				v, err := []controlport.Limiter{a, b}[i%2].Allow(ctx, "burst", n)
				if err != nil {
					t.Error(err)
				}
				if v.Allowed {
					allowed.Add(1)
				}
			}()
		}
		wg.Wait()
		if allowed.Load() != n {
			t.Errorf("%d allowed, want %d", allowed.Load(), n)
		}
	})
	t.Run("reset forgets every count", func(t *testing.T) {
		// Many keys: on a Redis Cluster they lie on every master, and a
		// reset that looked at one node only would leave counts behind.
		a, b := open(t)
		const keys = 24
		for i := range keys {
			if v, _ := a.Allow(ctx, fmt.Sprint("r", i), 1); !v.Allowed {
				t.Fatalf("first of r%d refused", i)
			}
		}
		if err := b.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		for i := range keys {
			if v, _ := a.Allow(ctx, fmt.Sprint("r", i), 1); !v.Allowed {
				t.Errorf("r%d refused after the reset", i)
			}
		}
	})
	t.Run("one per minute", func(t *testing.T) {
		a, _ := open(t)
		if v, _ := a.Allow(ctx, fmt.Sprint("one"), 1); !v.Allowed {
			t.Fatal("first refused")
		}
		v, _ := a.Allow(ctx, "one", 1)
		if v.Allowed || v.RetryAfter < 58*time.Second || v.RetryAfter > time.Minute {
			t.Errorf("second: %+v, want refused for about a minute", v)
		}
	})
}

// TestJournal is the contract every controlport.Journal must meet.
func TestJournal(t *testing.T, open func(t *testing.T) (a, b controlport.Journal)) {
	ctx := context.Background()
	at := time.Date(2026, 11, 20, 12, 0, 0, 123_000_000, time.UTC)
	entry := func(i int) control.Entry {
		return control.Entry{ID: fmt.Sprint("req-", i), At: at.Add(time.Duration(i) * time.Millisecond), Method: "GET",
			Path: "/items/MLA1", Query: "a=1&access_token=***", Status: 200, DurationMS: 1.25}
	}
	t.Run("every field, newest first, shared", func(t *testing.T) {
		a, b := open(t)
		e1 := entry(1)
		e2 := entry(2)
		e2.UserID, e2.FaultID, e2.Status = kerneltest.Ptr(int64(123)), kerneltest.Ptr(int64(4)), 503
		if err := a.Append(ctx, e1); err != nil {
			t.Fatal(err)
		}
		if err := b.Append(ctx, e2); err != nil {
			t.Fatal(err)
		}
		for _, j := range []controlport.Journal{a, b} {
			got, err := j.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if want := []control.Entry{e2, e1}; js(got) != js(want) {
				t.Errorf("List %s\nwant %s", js(got), js(want))
			}
		}
		if err := b.Reset(ctx, at); err != nil {
			t.Fatal(err)
		}
		if got, _ := a.List(ctx); len(got) != 0 {
			t.Errorf("after Reset: %d entries", len(got))
		}
	})
	t.Run("keeps the last JournalSize", func(t *testing.T) {
		a, _ := open(t)
		for i := range control.JournalSize + 5 {
			if err := a.Append(ctx, entry(i)); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := a.List(ctx)
		if len(got) != control.JournalSize || got[0].ID != fmt.Sprint("req-", control.JournalSize+4) || got[len(got)-1].ID != "req-5" {
			t.Errorf("%d entries from %s to %s", len(got), got[0].ID, got[len(got)-1].ID)
		}
	})
	t.Run("counts tallies since the first one, then since a reset", func(t *testing.T) {
		a, b := open(t)
		if counts, since, err := a.Counts(ctx); err != nil || len(counts) != 0 || !since.IsZero() {
			t.Fatalf("empty: %v %v %v", counts, since, err)
		}
		uncounted := entry(0) // no operation served it
		counted := entry(1)
		counted.Operation, counted.Counted = "GET /items/{item_id}", at.Add(-time.Hour)
		faulted := entry(2)
		faulted.Operation, faulted.Status, faulted.FaultID = "GET /items/{item_id}", 503, kerneltest.Ptr(int64(4))
		for i, e := range []control.Entry{uncounted, counted, counted, faulted} {
			if err := []controlport.Journal{a, b}[i%2].Append(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		counts, since, err := b.Counts(ctx)
		want := map[string]int64{"GET /items/{item_id}|200|": 2, "GET /items/{item_id}|503|f": 1}
		if err != nil || js(counts) != js(want) || !since.Equal(counted.Counted) {
			t.Errorf("Counts %v since %v (%v), want %v since %v", counts, since, err, want, counted.Counted)
		}
		reset := at.Add(time.Hour)
		if err := a.Reset(ctx, reset); err != nil {
			t.Fatal(err)
		}
		if counts, since, err := b.Counts(ctx); err != nil || len(counts) != 0 || !since.Equal(reset) {
			t.Errorf("after Reset: %v since %v (%v)", counts, since, err)
		}
		if err := b.Append(ctx, counted); err != nil {
			t.Fatal(err)
		}
		if counts, since, _ := a.Counts(ctx); counts["GET /items/{item_id}|200|"] != 1 || !since.Equal(reset) {
			t.Errorf("counting after Reset: %v since %v", counts, since)
		}
	})
}
