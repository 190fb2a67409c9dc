package controlsvc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/feria/feria/core/control"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/ports/controlport"
	"github.com/feria/feria/ports/controlport/controlporttest"
)

type fixture struct {
	svc     *Service
	rules   *controlporttest.Rules
	journal *controlporttest.Journal
	now     time.Time
	draw    float64
}

func newFixture() *fixture {
	f := &fixture{rules: controlporttest.NewRules(), journal: controlporttest.NewJournal(), now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	limiter := controlporttest.NewLimiter(func() time.Time { return f.now })
	ops := control.NewOperations([]control.Operation{{Method: "GET", Path: "/items/{item_id}", Area: "items"}})
	f.svc = New(Deps{Rules: f.rules, Limiter: limiter, Journal: f.journal, Operations: ops, Clock: kernel.ClockFunc(func() time.Time { return f.now }),
		Defaults: []control.RateLimit{{Method: kerneltest.Ptr("POST"), Path: "/limited", PerMinute: 2}}, Roll: func() float64 { return f.draw }})
	return f
}

func (f *fixture) snap(t *testing.T) controlport.Snapshot {
	t.Helper()
	s, err := f.svc.Rules(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fixture) fault(t *testing.T, method, path string) *control.Fault {
	t.Helper()
	got, err := f.svc.Fault(context.Background(), f.snap(t), method, path)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func (f *fixture) add(t *testing.T, in control.FaultInput) control.Fault {
	t.Helper()
	got, err := f.svc.AddFault(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestFaultSelection(t *testing.T) {
	ctx := context.Background()
	t.Run("the oldest matching rule applies", func(t *testing.T) {
		f := newFixture()
		other := f.add(t, control.FaultInput{Method: kerneltest.Ptr("POST"), Path: kerneltest.Ptr("/items/*"), Status: kerneltest.Ptr(500)})
		old := f.add(t, control.FaultInput{Path: kerneltest.Ptr("/items/*"), Status: kerneltest.Ptr(503)})
		f.add(t, control.FaultInput{Path: kerneltest.Ptr("/items/*"), Status: kerneltest.Ptr(502)})
		if got := f.fault(t, "GET", "/items/MLA1"); got == nil || got.ID != old.ID {
			t.Errorf("GET: %+v, want rule %d", got, old.ID)
		}
		if got := f.fault(t, "POST", "/items/MLA1"); got == nil || got.ID != other.ID {
			t.Errorf("POST: %+v, want rule %d", got, other.ID)
		}
		if got := f.fault(t, "GET", "/users/1"); got != nil {
			t.Errorf("unmatched path answered by rule %d", got.ID)
		}
	})
	t.Run("times: the rule leaves after answering that many", func(t *testing.T) {
		f := newFixture()
		r := f.add(t, control.FaultInput{Path: kerneltest.Ptr("/a"), Status: kerneltest.Ptr(503), Times: kerneltest.Ptr(2)})
		for i := range 2 {
			if got := f.fault(t, "GET", "/a"); got == nil || got.ID != r.ID {
				t.Fatalf("request %d: %+v", i+1, got)
			}
		}
		if got := f.fault(t, "GET", "/a"); got != nil {
			t.Errorf("third request answered by rule %d", got.ID)
		}
		if fs, _ := f.svc.Faults(ctx); len(fs) != 0 {
			t.Errorf("expired rule still listed: %+v", fs)
		}
	})
	t.Run("a rule gone since the snapshot gives way to the next oldest", func(t *testing.T) {
		f := newFixture()
		gone := f.add(t, control.FaultInput{Path: kerneltest.Ptr("/a"), Status: kerneltest.Ptr(503), Times: kerneltest.Ptr(1)})
		next := f.add(t, control.FaultInput{Path: kerneltest.Ptr("/a"), Status: kerneltest.Ptr(500)})
		snap := f.snap(t)
		if ok, _ := f.rules.UseFault(ctx, gone.ID); !ok { // another instance takes the last use
			t.Fatal("use refused")
		}
		got, err := f.svc.Fault(ctx, snap, "GET", "/a")
		if err != nil || got == nil || got.ID != next.ID {
			t.Errorf("got %+v %v, want rule %d", got, err, next.ID)
		}
	})
	t.Run("probability: a skipped request is answered normally and not counted", func(t *testing.T) {
		f := newFixture()
		r := f.add(t, control.FaultInput{Path: kerneltest.Ptr("/a"), Status: kerneltest.Ptr(503), Probability: kerneltest.Ptr(0.3), Times: kerneltest.Ptr(1)})
		f.add(t, control.FaultInput{Path: kerneltest.Ptr("/a"), Status: kerneltest.Ptr(500)})
		f.draw = 0.3 // not below 0.3: skipped
		if got := f.fault(t, "GET", "/a"); got != nil {
			t.Errorf("skipped request answered by rule %d (the oldest rule applies, alone)", got.ID)
		}
		if fs, _ := f.svc.Faults(ctx); fs[0].Used != 0 {
			t.Errorf("a skipped request was counted: %+v", fs[0])
		}
		f.draw = 0.29
		if got := f.fault(t, "GET", "/a"); got == nil || got.ID != r.ID {
			t.Errorf("drawn request: %+v", got)
		}
	})
	t.Run("probability 0 never, 1 always", func(t *testing.T) {
		f := newFixture()
		f.add(t, control.FaultInput{Path: kerneltest.Ptr("/never"), Status: kerneltest.Ptr(503), Probability: kerneltest.Ptr(0.0)})
		f.add(t, control.FaultInput{Path: kerneltest.Ptr("/always"), Status: kerneltest.Ptr(503), Probability: kerneltest.Ptr(1.0)})
		for _, d := range []float64{0, 0.5, 0.999999} {
			f.draw = d
			if f.fault(t, "GET", "/never") != nil || f.fault(t, "GET", "/always") == nil {
				t.Errorf("draw %v", d)
			}
		}
	})
}

func TestDeleteFault(t *testing.T) {
	f := newFixture()
	r := f.add(t, control.FaultInput{Path: kerneltest.Ptr("/a")})
	if err := f.svc.DeleteFault(context.Background(), r.ID); err != nil {
		t.Fatal(err)
	}
	err := f.svc.DeleteFault(context.Background(), r.ID)
	if !errors.Is(err, control.ErrFaultNotFound) || err.Error() != "fault rule 1 not found" {
		t.Errorf("again: %v", err)
	}
	if _, err := f.svc.AddFault(context.Background(), control.FaultInput{}); !errors.Is(err, control.ErrInvalid) {
		t.Errorf("invalid rule: %v", err)
	}
}

func TestAllow(t *testing.T) {
	ctx := context.Background()
	allow := func(t *testing.T, f *fixture, method, path, caller string) controlport.Limited {
		t.Helper()
		asked := false
		got, err := f.svc.Allow(ctx, f.snap(t), method, path, func() string { asked = true; return caller })
		if err != nil {
			t.Fatal(err)
		}
		if asked != (got.Rule != nil) {
			t.Errorf("%s %s: caller asked %v with rule %+v: the caller is resolved only under a limit", method, path, asked, got.Rule)
		}
		return got
	}
	t.Run("defaults, per caller, refused requests not counted", func(t *testing.T) {
		f := newFixture()
		for i := range 2 {
			if v := allow(t, f, "POST", "/limited", "user:1"); !v.Allowed {
				t.Fatalf("request %d refused", i+1)
			}
		}
		v := allow(t, f, "POST", "/limited", "user:1")
		if v.Allowed || v.RetryAfter != time.Minute || v.Rule.PerMinute != 2 {
			t.Errorf("third: %+v", v)
		}
		if v := allow(t, f, "POST", "/limited", "user:2"); !v.Allowed {
			t.Error("another caller refused")
		}
		if v := allow(t, f, "GET", "/limited", "user:1"); !v.Allowed || v.Rule != nil {
			t.Errorf("unlimited method: %+v", v)
		}
		f.now = f.now.Add(61 * time.Second)
		if v := allow(t, f, "POST", "/limited", "user:1"); !v.Allowed {
			t.Error("refused a minute later")
		}
	})
	t.Run("set limits replace the defaults and start afresh; reset restores them", func(t *testing.T) {
		f := newFixture()
		allow(t, f, "POST", "/limited", "user:1")
		allow(t, f, "POST", "/limited", "user:1")
		set, err := f.svc.SetRateLimits(ctx, []control.RateLimitInput{{Path: kerneltest.Ptr("/other"), PerMinute: kerneltest.Ptr(1)}, {Path: kerneltest.Ptr("/other"), PerMinute: kerneltest.Ptr(5)}})
		if err != nil || len(set) != 2 {
			t.Fatalf("SetRateLimits: %v %v", set, err)
		}
		if got, _ := f.svc.RateLimits(ctx); len(got) != 2 || got[0].Path != "/other" {
			t.Errorf("RateLimits: %+v", got)
		}
		if v := allow(t, f, "POST", "/limited", "user:1"); v.Rule != nil {
			t.Errorf("a default limit still applies: %+v", v)
		}
		allow(t, f, "GET", "/other", "user:1")
		if v := allow(t, f, "GET", "/other", "user:1"); v.Allowed || v.Rule.PerMinute != 1 {
			t.Errorf("the first matching rule counts: %+v", v)
		}
		if err := f.svc.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.svc.RateLimits(ctx); len(got) != 1 || got[0].Path != "/limited" {
			t.Errorf("after reset: %+v", got)
		}
		if v := allow(t, f, "POST", "/limited", "user:1"); !v.Allowed {
			t.Errorf("counts kept across the reset: %+v", v)
		}
		if _, err := f.svc.SetRateLimits(ctx, []control.RateLimitInput{{Path: kerneltest.Ptr("x")}}); !errors.Is(err, control.ErrInvalid) {
			t.Errorf("invalid limits: %v", err)
		}
	})
}

func TestJournal(t *testing.T) {
	ctx := context.Background()
	f := newFixture()
	for i, e := range []control.Entry{{ID: "1", Method: "GET", Status: 200}, {ID: "2", Method: "POST", Status: 429}, {ID: "3", Method: "GET", Status: 404}} {
		if err := f.svc.Record(ctx, e); err != nil {
			t.Fatal(i, err)
		}
	}
	got, err := f.svc.Requests(ctx, control.Filter{Method: "GET", Limit: 50})
	if err != nil || len(got) != 2 || got[0].ID != "3" || got[1].ID != "1" {
		t.Errorf("GET entries: %+v %v", got, err)
	}
	f.add(t, control.FaultInput{Path: kerneltest.Ptr("/a")})
	if err := f.svc.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.svc.Requests(ctx, control.Filter{Limit: 50}); len(got) != 0 {
		t.Errorf("journal after reset: %+v", got)
	}
	if got, _ := f.svc.Faults(ctx); len(got) != 0 {
		t.Errorf("faults after reset: %+v", got)
	}
}

// The coverage lists every operation of the contract, counts what the
// journal counted, and starts afresh at a reset, dated by the service
// clock.
func TestCoverageCountsSinceTheReset(t *testing.T) {
	ctx := context.Background()
	f := newFixture()
	rec := func(status int, faulted bool) {
		e := control.Entry{At: time.Now(), Method: "GET", Path: "/items/MLA1", Status: status, Operation: "GET /items/{item_id}"}
		if faulted {
			e.FaultID = kerneltest.Ptr(int64(1))
		}
		if err := f.svc.Record(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	rec(200, false)
	rec(503, true)
	cov, err := f.svc.Coverage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	op := cov.Operations[0]
	if !cov.Since.Equal(f.now) || op.Calls != 2 || op.Faulted != 1 || op.Statuses["200"] != 1 || op.Statuses["503"] != 1 ||
		cov.Summary != (control.CoverageSummary{Operations: 1, Called: 1, WithErrorSeen: 1}) {
		t.Errorf("coverage %+v", cov)
	}
	f.now = f.now.Add(time.Hour)
	if err := f.svc.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if cov, _ = f.svc.Coverage(ctx); !cov.Since.Equal(f.now) || cov.Operations[0].Calls != 0 || cov.Summary.Called != 0 {
		t.Errorf("after the reset %+v", cov)
	}
}
