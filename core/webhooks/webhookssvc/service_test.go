package webhookssvc_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/feria/feria/core/apps"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/core/webhooks/webhookssvc"
	"github.com/feria/feria/ports/appsport/appsporttest"
	"github.com/feria/feria/ports/outboxport/outboxporttest"
	"github.com/feria/feria/ports/webhooksport"
	"github.com/feria/feria/ports/webhooksport/webhooksporttest"
)

type env struct {
	svc    *webhookssvc.Service
	store  *webhooksporttest.Memory
	outbox *outboxporttest.Memory
	sender *webhooksporttest.Sender
	clock  *kerneltest.Clock // the service clock
	wall   *kerneltest.Clock
	slept  []time.Duration
}

var received = time.Date(2026, 11, 20, 12, 0, 0, 100_000_000, time.UTC)

func setup(t *testing.T, as ...apps.Application) *env {
	t.Helper()
	e := &env{store: webhooksporttest.NewMemory(), outbox: outboxporttest.NewMemory(), sender: &webhooksporttest.Sender{},
		clock: &kerneltest.Clock{At: received}, wall: &kerneltest.Clock{At: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}}
	appSvc := appsporttest.NewService(as...)
	e.svc = webhookssvc.New(webhookssvc.Deps{Store: e.store, Apps: appSvc, Outbox: e.outbox, Sender: e.sender, Tx: kerneltest.Tx{},
		Clock: e.clock, Wall: e.wall, Sleep: func(_ context.Context, d time.Duration) error {
			e.slept = append(e.slept, d)
			e.wall.At = e.wall.At.Add(d)
			return nil
		}})
	return e
}

func app(id, owner int64, topics []string, users ...int64) apps.Application {
	return apps.Application{ID: id, Name: "n", OwnerID: owner, ClientSecret: "s", CallbackURL: "http://127.0.0.1:9/cb",
		Topics: topics, Users: users}
}

func (e *env) all(t *testing.T) []webhooks.Notification {
	t.Helper()
	ns, err := e.store.List(context.Background(), webhooksport.Filter{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

func TestChanges(t *testing.T) {
	ctx := context.Background()
	e := setup(t, app(789, 123, []string{"items", "questions", "flex-handshakes"}, 456),
		app(790, 124, []string{"items"}, 123), app(791, 124, []string{"orders_v2"}, 123))
	item := func(state any) webhooks.Change {
		return webhooks.Change{Topic: "items", Resource: "/items/MLA1100", UserID: 123, State: state}
	}
	steps := []struct {
		name   string
		change webhooks.Change
		apps   []int64 // the applications notified
	}{
		{"creation: both applications with the topic and a grant of 123", item(map[string]any{"title": "a"}), []int64{789, 790}},
		{"the same state again", item(map[string]any{"title": "a"}), nil},
		{"a change", item(map[string]any{"title": "b"}), []int64{789, 790}},
		{"a user granted to one application", webhooks.Change{Topic: "items", Resource: "/items/MLA1101", UserID: 456, State: 1}, []int64{789}},
		{"a user granted to none", webhooks.Change{Topic: "items", Resource: "/items/MLA1102", UserID: 999, State: 1}, nil},
		{"the owner is granted", webhooks.Change{Topic: "items", Resource: "/items/MLA1103", UserID: 124, State: 1}, []int64{790}},
		{"a topic nobody chose", webhooks.Change{Topic: "shipments", Resource: "/shipments/1", UserID: 123, State: 1}, nil},
		{"questions notify every creation", webhooks.Change{Topic: "questions", Resource: "/questions/1", UserID: 123}, []int64{789}},
		{"questions notify every creation (again)", webhooks.Change{Topic: "questions", Resource: "/questions/1", UserID: 123}, []int64{789}},
		{"a new shipment without a driver", webhooks.Change{Topic: "flex-handshakes", Resource: "/a/1", UserID: 123, State: (*int64)(nil)}, nil},
		{"a driver assigned", webhooks.Change{Topic: "flex-handshakes", Resource: "/a/1", UserID: 123, State: 777}, []int64{789}},
		{"a new shipment with a driver", webhooks.Change{Topic: "flex-handshakes", Resource: "/a/2", UserID: 123, State: 777}, []int64{789}},
		{"the driver removed", webhooks.Change{Topic: "flex-handshakes", Resource: "/a/2", UserID: 123, State: nil}, []int64{789}},
	}
	seen := 0
	for _, st := range steps {
		if err := e.svc.Changed(ctx, st.change); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		ns := e.all(t)[seen:]
		seen += len(ns)
		var got []int64
		for _, n := range ns {
			got = append(got, n.AppID)
			if n.Topic != st.change.Topic || n.Resource != st.change.Resource || n.UserID != st.change.UserID ||
				!n.Received.Equal(received) || n.State != webhooks.Pending || n.Attempts != 0 {
				t.Errorf("%s: notification %+v", st.name, n)
			}
		}
		if !reflect.DeepEqual(got, st.apps) {
			t.Errorf("%s: notified %v, want %v", st.name, got, st.apps)
		}
	}
	// Each notification is queued once through the outbox, under its id.
	msgs := e.outbox.Messages()
	if len(msgs) != seen {
		t.Fatalf("%d outbox messages for %d notifications", len(msgs), seen)
	}
	byID := map[string]string{}
	for _, m := range msgs {
		var task webhooksport.Task
		if err := json.Unmarshal(m.Payload, &task); err != nil || task.ID != m.ID || m.Type != webhooksport.TaskDeliver {
			t.Errorf("message %+v", m)
		}
		byID[m.ID] = task.ID
	}
	for _, n := range e.all(t) {
		if byID[n.ID] != n.ID {
			t.Errorf("notification %s has no message", n.ID)
		}
	}
	if err := e.svc.Changed(ctx, webhooks.Change{Topic: "payments"}); err == nil {
		t.Error("a change of an unknown topic is a programming error")
	}
}

func body(t *testing.T, data string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDeliveredAtOnce(t *testing.T) {
	ctx := context.Background()
	e := setup(t, app(789, 123, []string{"messages"}))
	if err := e.svc.Changed(ctx, webhooks.Change{Topic: "messages", Resource: "/messages/m1", UserID: 123}); err != nil {
		t.Fatal(err)
	}
	n := e.all(t)[0]
	e.clock.At = received.Add(23 * time.Millisecond)
	if err := e.svc.Deliver(ctx, n.ID); err != nil {
		t.Fatal(err)
	}
	posts := e.sender.Posts()
	if len(posts) != 1 || posts[0].URL != "http://127.0.0.1:9/cb" || !reflect.DeepEqual(posts[0].Headers, webhooks.Headers()) {
		t.Fatalf("posts %+v", posts)
	}
	want := `{"_id":"` + n.ID + `","resource":"/messages/m1","user_id":123,"topic":"messages","actions":["created"],"application_id":789,"attempts":1,"sent":"2026-11-20T12:00:00.123Z","received":"2026-11-20T12:00:00.100Z"}`
	if posts[0].Data != want {
		t.Fatalf("body\n got %s\nwant %s", posts[0].Data, want)
	}
	got, _ := e.store.Notification(ctx, n.ID)
	if got.State != webhooks.Delivered || len(got.Deliveries) != 1 || *got.Deliveries[0].HTTPCode != 200 || got.Deliveries[0].Error != nil {
		t.Fatalf("after delivery: %+v", got)
	}
	// A second run of the job (a retry after a crash) posts nothing.
	if err := e.svc.Deliver(ctx, n.ID); err != nil || len(e.sender.Posts()) != 1 {
		t.Fatalf("delivered twice: %v %d", err, len(e.sender.Posts()))
	}
	if err := e.svc.Deliver(ctx, "unknown"); err != nil {
		t.Fatalf("a notification removed by a reset: %v", err)
	}
}

func TestRetriesThenMissed(t *testing.T) {
	ctx := context.Background()
	a := app(789, 123, []string{"items"})
	a.RetryDelaysMS = []int64{10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000}
	a.AckTimeoutMS = 200
	e := setup(t, a)
	if err := e.svc.Changed(ctx, webhooks.Change{Topic: "items", Resource: "/items/MLA1", UserID: 123, State: 1}); err != nil {
		t.Fatal(err)
	}
	id := e.all(t)[0].ID
	answers := []webhooks.Exchange{
		{Status: 500, Duration: 5 * time.Millisecond, Body: "oops", Headers: map[string]string{"X-Trace": "t1"}},
		{Status: 200, Duration: 250 * time.Millisecond}, // too slow
		{Err: "timeout: no answer within 200 ms", Duration: 200 * time.Millisecond},
		{Status: 302, Duration: time.Millisecond, Headers: map[string]string{"Location": "http://elsewhere/"}},
	}
	e.sender.Answer = func(req webhooks.Request, timeout time.Duration) webhooks.Exchange {
		if timeout != 200*time.Millisecond {
			t.Errorf("timeout %s, want the ack time", timeout)
		}
		k := len(e.sender.Posts()) - 1
		return answers[min(k, len(answers)-1)]
	}
	for attempt := 1; attempt <= webhooks.MaxAttempts; attempt++ {
		e.clock.At = e.clock.At.Add(time.Second)
		err := e.svc.Deliver(ctx, id)
		n, _ := e.store.Notification(ctx, id)
		if attempt < webhooks.MaxAttempts {
			var later *webhooksport.Later
			delay := time.Duration(attempt) * 10 * time.Second
			if !errors.As(err, &later) || later.In != delay || n.State != webhooks.Retrying || !n.Due.Equal(e.wall.At.Add(delay)) {
				t.Fatalf("attempt %d: %v, state %s due %v", attempt, err, n.State, n.Due)
			}
			// Run again at once: the attempt is not due; a job run a little
			// early waits for it in place.
			if err := e.svc.Deliver(ctx, id); !errors.As(err, &later) || len(e.sender.Posts()) != attempt {
				t.Fatalf("before the delay: %v, %d posts", err, len(e.sender.Posts()))
			}
			e.wall.At = e.wall.At.Add(delay - 500*time.Millisecond)
		} else if err != nil || n.State != webhooks.Missed {
			t.Fatalf("last attempt: %v %s", err, n.State)
		}
	}
	if len(e.slept) != webhooks.MaxAttempts-1 || e.slept[0] != 500*time.Millisecond {
		t.Fatalf("slept %v", e.slept)
	}
	n, _ := e.store.Notification(ctx, id)
	posts := e.sender.Posts()
	if len(posts) != webhooks.MaxAttempts || len(n.Deliveries) != webhooks.MaxAttempts {
		t.Fatalf("%d posts, %d deliveries", len(posts), len(n.Deliveries))
	}
	for i, p := range posts {
		b := body(t, p.Data)
		if b["_id"] != id || b["attempts"] != float64(i+1) {
			t.Errorf("post %d: %s", i, p.Data)
		}
	}
	errs := []string{"answered HTTP 500, not 200", "answered 200 after 250 ms, later than ack_timeout_ms 200", "timeout: no answer within 200 ms", "answered HTTP 302, not 200"}
	for i, want := range errs {
		if d := n.Deliveries[i]; d.Error == nil || *d.Error != want || d.Attempt != i+1 {
			t.Errorf("delivery %d: %+v", i, d)
		}
	}
	if n.Deliveries[2].HTTPCode != nil || *n.Deliveries[0].HTTPCode != 500 {
		t.Errorf("http codes: %+v", n.Deliveries)
	}
	// The missed feed keeps the last request and response.
	if n.Request == nil || n.Request.Data != posts[7].Data || n.Response == nil || *n.Response.HTTPCode != 302 ||
		n.Response.Headers["Location"] != "http://elsewhere/" || n.MissedAt == nil || !n.MissedAt.Equal(e.clock.At) {
		t.Fatalf("missed: %+v %+v %+v", n, n.Request, n.Response)
	}
	if err := e.svc.Deliver(ctx, id); err != nil || len(e.sender.Posts()) != webhooks.MaxAttempts {
		t.Fatalf("a missed notification is tried again: %v", err)
	}
}

// A job that finds an attempt started and never finished (its worker was
// killed) counts that attempt as failed and goes on with the schedule.
func TestAttemptOfADeadWorker(t *testing.T) {
	ctx := context.Background()
	a := app(789, 123, []string{"items"})
	a.RetryDelaysMS = []int64{0, 0, 0, 0, 0, 0, 0}
	e := setup(t, a)
	if err := e.svc.Changed(ctx, webhooks.Change{Topic: "items", Resource: "/items/MLA1", UserID: 123, State: 1}); err != nil {
		t.Fatal(err)
	}
	id := e.all(t)[0].ID
	if ok, err := e.store.StartAttempt(ctx, id, webhooks.Delivery{Attempt: 1, At: webhooks.Stamp(received)}, webhooks.Request{URL: "u"}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	var later *webhooksport.Later
	if err := e.svc.Deliver(ctx, id); !errors.As(err, &later) || later.In != 0 || len(e.sender.Posts()) != 0 {
		t.Fatalf("dead attempt: %v, %d posts", err, len(e.sender.Posts()))
	}
	if err := e.svc.Deliver(ctx, id); err != nil {
		t.Fatal(err)
	}
	n, _ := e.store.Notification(ctx, id)
	if n.State != webhooks.Delivered || len(n.Deliveries) != 2 || *n.Deliveries[0].Error != "no answer recorded: the worker stopped during the attempt" ||
		body(t, e.sender.Posts()[0].Data)["attempts"] != float64(2) {
		t.Fatalf("after the dead attempt: %+v", n)
	}
}

func TestTriggerAndReads(t *testing.T) {
	ctx := context.Background()
	a := app(789, 123, []string{"items"})
	a.RetryDelaysMS = []int64{0, 0, 0, 0, 0, 0, 0}
	e := setup(t, a, app(790, 124, nil))
	bad := func(tr webhooksport.Trigger, causes ...string) {
		t.Helper()
		_, err := e.svc.Trigger(ctx, tr)
		var ke *kernel.Error
		if !errors.As(err, &ke) || !errors.Is(err, webhooks.ErrInvalid) || len(ke.Causes) != len(causes) {
			t.Fatalf("trigger %+v: %v", tr, err)
		}
		for i, c := range causes {
			if ke.Causes[i].Code != c {
				t.Errorf("trigger %+v: causes %+v, want %v", tr, ke.Causes, causes)
			}
		}
	}
	bad(webhooksport.Trigger{AppID: 789, Topic: "payments", Resource: "/x", UserID: 1}, "topic")
	bad(webhooksport.Trigger{Topic: "items", Resource: "x"}, "app_id", "resource", "user_id")
	if _, err := e.svc.Trigger(ctx, webhooksport.Trigger{AppID: 1, Topic: "items", Resource: "/x", UserID: 1}); !errors.Is(err, apps.ErrApplicationNotFound) {
		t.Fatalf("unknown application: %v", err)
	}
	// Topic and grant are not checked: 790 chose no topic, 999 granted
	// nothing.
	n, err := e.svc.Trigger(ctx, webhooksport.Trigger{AppID: 790, Topic: "questions", Resource: "/questions/5", UserID: 999})
	if err != nil || n.AppID != 790 || n.Attempts != 0 || n.Sent != nil || n.State != webhooks.Pending || len(e.outbox.Messages()) != 1 {
		t.Fatalf("trigger: %+v %v", n, err)
	}
	if b, _ := json.Marshal(n.Body()); string(b) != `{"_id":"`+n.ID+`","resource":"/questions/5","user_id":999,"topic":"questions","application_id":790,"attempts":0,"sent":null,"received":"2026-11-20T12:00:00.100Z"}` {
		t.Fatalf("trigger body %s", b)
	}

	// Three missed notifications of 789: the missed feeds, for its owner.
	e.sender.Answer = func(webhooks.Request, time.Duration) webhooks.Exchange { return webhooks.Exchange{Status: 503} }
	for i := range 3 {
		topic := []string{"items", "questions", "items"}[i]
		m, err := e.svc.Trigger(ctx, webhooksport.Trigger{AppID: 789, Topic: topic, Resource: "/r", UserID: 123})
		if err != nil {
			t.Fatal(err)
		}
		for range webhooks.MaxAttempts {
			if err := e.svc.Deliver(ctx, m.ID); err != nil && !errors.As(err, new(*webhooksport.Later)) {
				t.Fatal(err)
			}
		}
		e.clock.At = e.clock.At.Add(time.Hour)
	}
	owner := kernel.WithCaller(ctx, kernel.Caller{UserID: 123})
	got, page, err := e.svc.MissedFeeds(owner, 789, "", paging.Request{Limit: 10})
	if err != nil || len(got) != 3 || page != (paging.Page{Total: 3, Limit: 10}) {
		t.Fatalf("missed feeds: %v %+v %v", len(got), page, err)
	}
	if got, page, _ := e.svc.MissedFeeds(owner, 789, "items", paging.Request{Limit: 1, Offset: 1}); len(got) != 1 || page.Total != 2 || got[0].Topic != "items" {
		t.Fatalf("topic filter: %+v %+v", got, page)
	}
	if _, _, err := e.svc.MissedFeeds(kernel.WithCaller(ctx, kernel.Caller{UserID: 456}), 789, "", paging.Request{Limit: 10}); !errors.Is(err, webhooks.ErrNotTheOwner) {
		t.Fatalf("another user: %v", err)
	}
	if _, _, err := e.svc.MissedFeeds(ctx, 789, "", paging.Request{Limit: 10}); !errors.Is(err, webhooks.ErrNoCaller) {
		t.Fatalf("no caller: %v", err)
	}
	if _, _, err := e.svc.MissedFeeds(owner, 1, "", paging.Request{Limit: 10}); !errors.Is(err, apps.ErrApplicationNotFound) {
		t.Fatalf("unknown application: %v", err)
	}
	// Two days after its last attempt a missed feed is gone: the first was
	// missed three hours before the clock, the others two and one.
	e.clock.At = e.clock.At.Add(webhooks.KeepMissed - 150*time.Minute)
	if got, page, _ := e.svc.MissedFeeds(owner, 789, "", paging.Request{Limit: 10}); len(got) != 2 || page.Total != 2 {
		t.Fatalf("after two days: %d %+v", len(got), page)
	}
	if ns, err := e.svc.Notifications(ctx, 789, "items"); err != nil || len(ns) != 2 || ns[0].State != webhooks.Missed {
		t.Fatalf("notifications: %d %v", len(ns), err)
	}
	if _, err := e.svc.Notifications(ctx, 1, ""); !errors.Is(err, apps.ErrApplicationNotFound) {
		t.Fatalf("notifications of an unknown application: %v", err)
	}
	if _, err := e.svc.Notifications(ctx, 0, "payments"); !errors.Is(err, webhooks.ErrInvalid) {
		t.Fatalf("notifications of an unknown topic: %v", err)
	}
	counts, err := e.svc.Counts(ctx)
	if err != nil || len(counts) != 2 || counts[0] != (webhooks.Count{Topic: "items", Created: 2, Missed: 2, Retried: 14}) {
		t.Fatalf("counts %+v %v", counts, err)
	}
}
