package webhooksporttest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/webhooksport"
)

// TestStore is the contract of webhooksport.Store.
func TestStore(t *testing.T, newStore func(t testing.TB) webhooksport.Store) {
	ctx := context.Background()
	at := time.Date(2026, 11, 20, 12, 0, 0, 100_000_000, time.UTC)
	note := func(id string, app int64, topic string) webhooks.Notification {
		return webhooks.Notification{ID: id, AppID: app, Topic: topic, Resource: "/items/MLA1100", UserID: 123,
			Received: at, State: webhooks.Pending}
	}
	ids := func(ns []webhooks.Notification) []string {
		out := []string{}
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}

	t.Run("states are swapped per topic and resource", func(t *testing.T) {
		s := newStore(t)
		steps := []struct {
			topic, resource, fp string
			created, changed    bool
		}{
			{"items", "/items/MLA1", "a", true, false},
			{"items", "/items/MLA1", "a", false, false},
			{"items", "/items/MLA1", "b", false, true},
			{"items", "/items/MLA1", "b", false, false},
			{"items", "/items/MLA2", "b", true, false},
			{"orders_v2", "/items/MLA1", "a", true, false},
			{"items", "/items/MLA1", "a", false, true},
		}
		for i, st := range steps {
			created, changed, err := s.SwapState(ctx, st.topic, st.resource, st.fp)
			if err != nil || created != st.created || changed != st.changed {
				t.Fatalf("step %d %+v: created %v changed %v %v", i, st, created, changed, err)
			}
		}
	})

	t.Run("a notification reads back", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Notification(ctx, "n0"); !errors.Is(err, webhooksport.ErrNotFound) {
			t.Fatalf("unknown: %v", err)
		}
		n := note("n1", 789, "items")
		if err := s.Add(ctx, []webhooks.Notification{n, note("n2", 790, "items")}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Notification(ctx, "n1")
		if err != nil || got.ID != "n1" || got.AppID != 789 || got.Topic != "items" || got.Resource != "/items/MLA1100" ||
			got.UserID != 123 || !got.Received.Equal(at) || got.State != webhooks.Pending || got.Attempts != 0 ||
			got.Sent != nil || got.Due != nil || got.MissedAt != nil || len(got.Deliveries) != 0 || got.Request != nil || got.Response != nil {
			t.Fatalf("got %+v %v", got, err)
		}
	})

	t.Run("attempts start and finish once, in order", func(t *testing.T) {
		s := newStore(t)
		if err := s.Add(ctx, []webhooks.Notification{note("n1", 789, "items")}); err != nil {
			t.Fatal(err)
		}
		req := webhooks.Request{URL: "http://h/cb", Headers: map[string]string{"Content-Type": "application/json"}, Data: `{"_id":"n1"}`}
		sent := at.Add(time.Second)
		wall := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		d1 := webhooks.Delivery{Attempt: 1, At: webhooks.Stamp(sent), Wall: wall}
		if ok, err := s.StartAttempt(ctx, "n1", webhooks.Delivery{Attempt: 2, At: webhooks.Stamp(sent)}, req); ok || err != nil {
			t.Fatalf("attempt 2 before 1: %v %v", ok, err)
		}
		if ok, err := s.StartAttempt(ctx, "n1", d1, req); !ok || err != nil {
			t.Fatalf("start 1: %v %v", ok, err)
		}
		if ok, err := s.StartAttempt(ctx, "n1", d1, req); ok || err != nil {
			t.Fatalf("start 1 twice: %v %v", ok, err)
		}
		if ok, err := s.StartAttempt(ctx, "n1", webhooks.Delivery{Attempt: 2, At: webhooks.Stamp(sent)}, req); ok || err != nil {
			t.Fatalf("start 2 while 1 runs: %v %v", ok, err)
		}
		got, _ := s.Notification(ctx, "n1")
		if got.Attempts != 1 || got.Sent == nil || !got.Sent.Equal(sent) || got.State != webhooks.Pending ||
			len(got.Deliveries) != 1 || got.Deliveries[0].Done || got.Deliveries[0].Attempt != 1 ||
			!time.Time(got.Deliveries[0].At).Equal(sent) || !got.Deliveries[0].Wall.Equal(wall) || !reflect.DeepEqual(got.Request, &req) {
			t.Fatalf("after start: %+v", got)
		}

		due := wall.Add(time.Minute)
		res := webhooks.Response{ReqTime: 12, HTTPCode: kerneltest.Ptr(500), Body: "oops", Headers: map[string]string{"X-A": "b"}}
		n := got
		n.State, n.Due, n.Response = webhooks.Retrying, &due, &res
		failed := d1
		failed.HTTPCode, failed.DurationMS, failed.Error = kerneltest.Ptr(500), 12, kerneltest.Ptr("answered HTTP 500, not 200")
		if ok, err := s.FinishAttempt(ctx, n, webhooks.Delivery{Attempt: 2}); ok || err != nil {
			t.Fatalf("finish an attempt not started: %v %v", ok, err)
		}
		if ok, err := s.FinishAttempt(ctx, n, failed); !ok || err != nil {
			t.Fatalf("finish 1: %v %v", ok, err)
		}
		if ok, err := s.FinishAttempt(ctx, n, failed); ok || err != nil {
			t.Fatalf("finish 1 twice: %v %v", ok, err)
		}
		got, _ = s.Notification(ctx, "n1")
		dv := got.Deliveries[0]
		if got.State != webhooks.Retrying || got.Due == nil || !got.Due.Equal(due) || !reflect.DeepEqual(got.Response, &res) ||
			!dv.Done || *dv.HTTPCode != 500 || dv.DurationMS != 12 || *dv.Error != "answered HTTP 500, not 200" {
			t.Fatalf("after finish: %+v %+v", got, dv)
		}

		d2 := webhooks.Delivery{Attempt: 2, At: webhooks.Stamp(sent.Add(time.Minute)), Wall: due}
		if ok, err := s.StartAttempt(ctx, "n1", d2, req); !ok || err != nil {
			t.Fatalf("start 2: %v %v", ok, err)
		}
		if got, _ := s.Notification(ctx, "n1"); got.Due != nil || got.Attempts != 2 {
			t.Fatalf("a started attempt clears due: %+v", got)
		}
		missedAt := sent.Add(2 * time.Minute)
		n.State, n.Due, n.MissedAt, n.Attempts = webhooks.Missed, nil, &missedAt, 2
		nothing := webhooks.Response{ReqTime: 500, Headers: map[string]string{}}
		n.Response = &nothing
		d2.DurationMS, d2.Error = 500, kerneltest.Ptr("timeout")
		if ok, err := s.FinishAttempt(ctx, n, d2); !ok || err != nil {
			t.Fatalf("finish 2: %v %v", ok, err)
		}
		got, _ = s.Notification(ctx, "n1")
		if got.State != webhooks.Missed || got.MissedAt == nil || !got.MissedAt.Equal(missedAt) || len(got.Deliveries) != 2 ||
			got.Deliveries[1].HTTPCode != nil || !reflect.DeepEqual(got.Response, &nothing) {
			t.Fatalf("missed: %+v", got)
		}
		if ok, err := s.StartAttempt(ctx, "n1", webhooks.Delivery{Attempt: 3}, req); ok || err != nil {
			t.Fatalf("an attempt after the notification finished: %v %v", ok, err)
		}
	})

	t.Run("lists, missed feeds and counts", func(t *testing.T) {
		s := newStore(t)
		for i, c := range []struct {
			app   int64
			topic string
		}{{789, "items"}, {790, "items"}, {789, "questions"}, {789, "items"}, {789, "items"}} {
			n := note(string(rune('a'+i)), c.app, c.topic)
			if err := s.Add(ctx, []webhooks.Notification{n}); err != nil {
				t.Fatal(err)
			}
		}
		list := func(f webhooksport.Filter, limit int) []string {
			t.Helper()
			got, err := s.List(ctx, f, limit)
			if err != nil {
				t.Fatal(err)
			}
			return ids(got)
		}
		for _, c := range []struct {
			f     webhooksport.Filter
			limit int
			want  []string
		}{
			{webhooksport.Filter{}, 10, []string{"a", "b", "c", "d", "e"}},
			{webhooksport.Filter{AppID: 789}, 10, []string{"a", "c", "d", "e"}},
			{webhooksport.Filter{AppID: 789, Topic: "items"}, 10, []string{"a", "d", "e"}},
			{webhooksport.Filter{Topic: "items"}, 2, []string{"d", "e"}}, // the newest, oldest first
			{webhooksport.Filter{AppID: 1}, 10, []string{}},
		} {
			if got := list(c.f, c.limit); !reflect.DeepEqual(got, c.want) {
				t.Errorf("list %+v limit %d: %v, want %v", c.f, c.limit, got, c.want)
			}
		}

		// a, c, d, e of app 789 are missed at successive minutes; b is
		// delivered after a retry.
		miss := func(id string, attempts int, state string, at time.Time) {
			t.Helper()
			for k := 1; k <= attempts; k++ {
				d := webhooks.Delivery{Attempt: k, At: webhooks.Stamp(at)}
				if ok, err := s.StartAttempt(ctx, id, d, webhooks.Request{URL: "http://h", Headers: map[string]string{}}); !ok || err != nil {
					t.Fatalf("start %s %d: %v %v", id, k, ok, err)
				}
				n, _ := s.Notification(ctx, id)
				n.State, n.Response = webhooks.Retrying, &webhooks.Response{Headers: map[string]string{}}
				if k == attempts {
					n.State = state
					if state == webhooks.Missed {
						n.MissedAt = &at
					}
				}
				if ok, err := s.FinishAttempt(ctx, n, d); !ok || err != nil {
					t.Fatalf("finish %s %d: %v %v", id, k, ok, err)
				}
			}
		}
		miss("a", 3, webhooks.Missed, at)
		miss("b", 2, webhooks.Delivered, at)
		miss("c", 1, webhooks.Missed, at.Add(time.Minute))
		miss("d", 1, webhooks.Missed, at.Add(2*time.Minute))
		missed := func(f webhooksport.Filter, since time.Time, p paging.Request) ([]string, int) {
			t.Helper()
			got, total, err := s.Missed(ctx, f, since, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range got {
				if n.Request == nil || n.Response == nil {
					t.Fatalf("missed %s without its request: %+v", n.ID, n)
				}
			}
			return ids(got), total
		}
		for _, c := range []struct {
			f     webhooksport.Filter
			since time.Time
			p     paging.Request
			want  []string
			total int
		}{
			{webhooksport.Filter{AppID: 789}, at.Add(-time.Hour), paging.Request{Limit: 10}, []string{"a", "c", "d"}, 3},
			{webhooksport.Filter{AppID: 789}, at.Add(-time.Hour), paging.Request{Limit: 1, Offset: 1}, []string{"c"}, 3},
			{webhooksport.Filter{AppID: 789}, at.Add(-time.Hour), paging.Request{Limit: 0}, []string{}, 3},
			{webhooksport.Filter{AppID: 789, Topic: "items"}, at.Add(-time.Hour), paging.Request{Limit: 10}, []string{"a", "d"}, 2},
			{webhooksport.Filter{AppID: 789}, at, paging.Request{Limit: 10}, []string{"c", "d"}, 2}, // missed after since only
			{webhooksport.Filter{AppID: 790}, at.Add(-time.Hour), paging.Request{Limit: 10}, []string{}, 0},
		} {
			if got, total := missed(c.f, c.since, c.p); !reflect.DeepEqual(got, c.want) || total != c.total {
				t.Errorf("missed %+v since %s %+v: %v (%d), want %v (%d)", c.f, c.since, c.p, got, total, c.want, c.total)
			}
		}
		counts, err := s.Counts(ctx)
		want := []webhooks.Count{
			{Topic: "items", Created: 4, Delivered: 1, Missed: 2, Retried: 3},
			{Topic: "questions", Created: 1, Missed: 1},
		}
		if err != nil || !reflect.DeepEqual(counts, want) {
			t.Fatalf("counts %+v %v, want %+v", counts, err, want)
		}
	})
}
