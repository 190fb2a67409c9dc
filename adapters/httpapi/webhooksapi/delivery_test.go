package webhooksapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/test/apptest"
)

// trigger makes a notification through POST /sandbox/notifications and
// returns its id.
func trigger(t *testing.T, a *apptest.App, app int64, topic, resource string) string {
	t.Helper()
	var n struct {
		ID string `json:"_id"`
	}
	r := a.Sandbox("POST", "/notifications", map[string]any{"app_id": app, "topic": topic, "resource": resource, "user_id": 123})
	r.HasStatus(t, 202)
	r.JSON(t, &n)
	return n.ID
}

// A failed attempt is retried with the same _id and attempts counting up,
// after the application's delay; a receiver slower than ack_timeout_ms is a
// failure even when it answers 200.
func TestRetriesWithTheSameID(t *testing.T) {
	a := apptest.NewSample(t, apptest.Real)
	rx := newReceiver(t)
	delays := []int64{300, 300, 300, 300, 300, 300, 300}
	a.Sandbox("PUT", "/applications/789", application(rx.srv.URL, 123, []string{"items"}, nil, delays, 200)).OK(t, 200)
	rx.setAnswer(func(n int, _ map[string]any) (int, time.Duration) {
		switch n {
		case 1:
			return 500, 0
		case 2:
			return 200, 600 * time.Millisecond // too late
		}
		return 200, 0
	})
	a.StartWorkers()
	id := trigger(t, a, 789, "items", "/items/MLA1100")
	ns := waitFor(t, a, "?app_id=789", 20*time.Second, all(1, "delivered"))
	n := ns[0]
	bodies := rx.bodies(t)
	if len(bodies) != 3 || n.ID != id || n.Attempts != 3 || len(n.Deliveries) != 3 {
		t.Fatalf("%d posts, notification %+v", len(bodies), n)
	}
	for i, b := range bodies {
		if b["_id"] != id || b["attempts"] != float64(i+1) {
			t.Errorf("post %d: %v", i+1, b)
		}
	}
	code := func(d delivery) string {
		if d.HTTPCode == nil {
			return "null"
		}
		return fmt.Sprint(*d.HTTPCode)
	}
	text := func(d delivery) string {
		if d.Error == nil {
			return ""
		}
		return *d.Error
	}
	wants := []struct{ code, err string }{
		{"500", "answered HTTP 500, not 200"},
		{"null", "timeout: no answer within 200 ms"},
		{"200", ""},
	}
	for i, w := range wants {
		d := n.Deliveries[i]
		if d.Attempt != i+1 || code(d) != w.code || text(d) != w.err {
			t.Errorf("delivery %d: %+v, want %s %q", i+1, d, w.code, w.err)
		}
	}
	if d := n.Deliveries[1].DurationMS; d < 200 || d > 1000 {
		t.Errorf("the slow attempt took %d ms; it is cut at the ack time", d)
	}
	// Delay i runs from the end of attempt i to the start of attempt i+1,
	// kept within a second.
	posts := rx.posts()
	for i := 1; i < len(posts); i++ {
		gap := posts[i].At.Sub(posts[i-1].At) - time.Duration(n.Deliveries[i-1].DurationMS)*time.Millisecond
		if gap < 250*time.Millisecond || gap > 1300*time.Millisecond {
			t.Errorf("attempt %d started %s after attempt %d ended, want 300 ms within a second", i+1, gap, i)
		}
	}
}

// After the last attempt a notification is a missed feed: paged (10 by
// default), filtered by topic, for the application's owner only, gone two
// days after its last attempt by the sandbox clock.
func TestMissedFeeds(t *testing.T) {
	a := apptest.NewSample(t, apptest.Real)
	rx := newReceiver(t)
	rx.setAnswer(func(int, map[string]any) (int, time.Duration) { return 503, 0 })
	a.Sandbox("PUT", "/applications/789", application(rx.srv.URL+"/cb", 123, []string{"items"}, nil, fast, 500)).OK(t, 200)
	a.StartWorkers()
	var ids []string
	for i := range 11 {
		topic := "items"
		if i%2 == 1 {
			topic = "questions"
		}
		ids = append(ids, trigger(t, a, 789, topic, fmt.Sprintf("/items/MLA%d", 1100+i)))
	}
	ns := waitFor(t, a, "?app_id=789", 60*time.Second, all(11, "missed"))
	for _, n := range ns {
		if n.Attempts != 8 || len(n.Deliveries) != 8 {
			t.Fatalf("missed after %d attempts: %+v", n.Attempts, n)
		}
	}
	if got := len(rx.posts()); got != 88 {
		t.Fatalf("%d posts, want 8 per notification", got)
	}

	type message struct {
		notification
		Request struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
			Data    string            `json:"data"`
		} `json:"request"`
		Response struct {
			ReqTime  *int64            `json:"req_time"`
			HTTPCode *int              `json:"http_code"`
			Body     string            `json:"body"`
			Headers  map[string]string `json:"headers"`
		} `json:"response"`
	}
	var page struct {
		Messages []message   `json:"messages"`
		Paging   paging.Page `json:"paging"`
	}
	feeds := func(query string, token []string) apptest.Response {
		t.Helper()
		return a.Do("GET", "/missed_feeds"+query, nil, token...)
	}
	r := feeds("?app_id=789", seller)
	r.OK(t, 200)
	r.JSON(t, &page)
	if len(page.Messages) != 10 || page.Paging != (paging.Page{Total: 11, Offset: 0, Limit: 10}) {
		t.Fatalf("default page: %d messages, %+v", len(page.Messages), page.Paging)
	}
	last := map[string]string{} // the last body posted for each id
	for _, p := range rx.posts() {
		var b struct {
			ID string `json:"_id"`
		}
		_ = jsonUnmarshal(p.Body, &b)
		last[b.ID] = p.Body
	}
	for i, m := range page.Messages {
		if m.ID != ids[i] || m.Attempts != 8 || m.ApplicationID != 789 || m.Received != "2026-11-20T12:00:00.000Z" || *m.Sent != "2026-11-20T12:00:00.000Z" {
			t.Errorf("message %d (oldest first): %+v", i, m.notification)
		}
		if m.Request.URL != rx.srv.URL+"/cb" || m.Request.Data != last[m.ID] ||
			fmt.Sprint(m.Request.Headers) != "map[Content-Type:application/json User-Agent:feria-webhooks/1]" {
			t.Errorf("request of %s: %+v", m.ID, m.Request)
		}
		if m.Response.HTTPCode == nil || *m.Response.HTTPCode != 503 || m.Response.ReqTime == nil || !strings.HasPrefix(m.Response.Body, `{"seen":`) ||
			m.Response.Headers["X-Receiver"] == "" {
			t.Errorf("response of %s: %+v", m.ID, m.Response)
		}
	}
	r = feeds("?app_id=789&offset=10", seller)
	r.JSON(t, &page)
	if len(page.Messages) != 1 || page.Messages[0].ID != ids[10] || page.Paging != (paging.Page{Total: 11, Offset: 10, Limit: 10}) {
		t.Fatalf("second page: %+v", page)
	}
	r = feeds("?app_id=789&topic=questions&limit=2&offset=1", seller)
	r.JSON(t, &page)
	if len(page.Messages) != 2 || page.Messages[0].ID != ids[3] || page.Messages[1].ID != ids[5] || page.Paging != (paging.Page{Total: 5, Offset: 1, Limit: 2}) {
		t.Fatalf("questions: %+v", page)
	}
	feeds("?app_id=789", other).Is(t, 403, apptest.Err(403, "forbidden", "only the owner of application 789 may read its missed feeds"))
	feeds("?app_id=789", nil).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
	feeds("?app_id=4242", seller).Is(t, 404, apptest.Err(404, "not_found", "application not found"))
	feeds("", seller).Is(t, 400, apptest.Err(400, "bad_request", `app_id must be a positive integer, got ""`, "app_id", "app_id must be a positive integer"))
	feeds("?app_id=789&topic=payments", seller).Is(t, 400, apptest.Err(400, "bad_request",
		`topic must be one of items, questions, orders_v2, messages, shipments, flex-handshakes, got "payments"`, "topic",
		`topic must be one of items, questions, orders_v2, messages, shipments, flex-handshakes, got "payments"`))
	feeds("?app_id=789&limit=201", seller).Is(t, 400, apptest.Err(400, "bad_request", "limit must be at most 200, got 201"))

	// Kept two days after the last attempt, by the sandbox clock (read with
	// a token that lives longer than the two days).
	var long struct {
		AccessToken string `json:"access_token"`
	}
	a.Sandbox("POST", "/users/123/tokens", `{"expires_in":864000}`).JSON(t, &long)
	owner := apptest.Bearer(long.AccessToken)
	a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-22T11:59:59Z"}).OK(t, 200)
	feeds("?app_id=789&limit=0", owner).Is(t, 200, `{"messages":[],"paging":{"total":11,"offset":0,"limit":0}}`)
	a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-22T12:00:00Z"}).OK(t, 200)
	feeds("?app_id=789", owner).Is(t, 200, `{"messages":[],"paging":{"total":0,"offset":0,"limit":10}}`)
	if ns := notifications(t, a, "?app_id=789"); len(ns) != 11 {
		t.Fatalf("the sandbox still lists them: %d", len(ns))
	}

	// The metrics count them by topic.
	metrics := string(a.Do("GET", "/metrics", nil).Body)
	for _, line := range []string{
		`feria_webhook_notifications_total{event="created",topic="items"} 6`,
		`feria_webhook_notifications_total{event="missed",topic="items"} 6`,
		`feria_webhook_notifications_total{event="retried",topic="items"} 42`,
		`feria_webhook_notifications_total{event="delivered",topic="questions"} 0`,
		`feria_webhook_notifications_total{event="missed",topic="questions"} 5`,
	} {
		if !strings.Contains(metrics, line+"\n") {
			t.Errorf("metrics lack %s", line)
		}
	}
	noSecrets(t, rx)
}

// POST /sandbox/notifications makes a notification as a change would,
// whatever the application chose, and answers it before any attempt; the
// embedded backends (make run's) deliver it too.
func TestTriggerAndList(t *testing.T) {
	apptest.Each(t, testTriggerAndList)
}

func testTriggerAndList(t *testing.T, be apptest.Backend) {
	a := apptest.NewSample(t, be)
	rx := newReceiver(t)
	// 790 chose no topic and no user granted it: a trigger still notifies.
	a.Sandbox("PUT", "/applications/790", application(rx.srv.URL, 124, nil, nil, nil, 500)).OK(t, 200)
	r := a.Sandbox("POST", "/notifications", `{"app_id":790,"topic":"messages","resource":"/messages/m-1","user_id":999}`)
	var got map[string]any
	r.OK(t, 202)
	r.JSON(t, &got)
	id, _ := got["_id"].(string)
	want := fmt.Sprintf(`{"_id":%q,"resource":"/messages/m-1","user_id":999,"topic":"messages","actions":["created"],"application_id":790,"attempts":0,"sent":null,"received":"2026-11-20T12:00:00.000Z"}`, id)
	if string(r.Body) != want || len(id) != 36 {
		t.Fatalf("trigger answer:\n got %s\nwant %s", r.Body, want)
	}
	pending := notifications(t, a, "?app_id=790&topic=messages")
	if len(pending) != 1 || pending[0].State != "pending" || len(pending[0].Deliveries) != 0 || pending[0].Sent != nil {
		t.Fatalf("before the workers: %+v", pending)
	}
	a.StartWorkers()
	ns := waitFor(t, a, "?app_id=790", 20*time.Second, all(1, "delivered"))
	if ns[0].ID != id || len(rx.posts()) != 1 || rx.bodies(t)[0]["attempts"] != float64(1) {
		t.Fatalf("delivered: %+v, posts %v", ns, rx.posts())
	}

	bad := func(body, msg, field string, cause ...string) {
		t.Helper()
		c := msg
		if len(cause) > 0 {
			c = cause[0]
		}
		a.Sandbox("POST", "/notifications", body).Is(t, 400, apptest.Err(400, "bad_request", msg, field, c))
	}
	bad(`{"app_id":790,"topic":"payments","resource":"/x","user_id":1}`, `topic must be one of items, questions, orders_v2, messages, shipments, flex-handshakes, got "payments"`, "topic")
	bad(`{"app_id":790,"topic":"items","resource":"x","user_id":1}`, `resource must be a path starting with /, got "x"`, "resource")
	bad(`{"app_id":790,"topic":"items","resource":"/x"}`, "user_id must be a positive integer", "user_id")
	bad(`{"app_id":"790"}`, "field app_id must be an integer, got string", "app_id", "app_id must be an integer")
	a.Sandbox("POST", "/notifications", "").Is(t, 400, apptest.Err(400, "bad_request", "request body is empty", "body", "a JSON body is required"))
	a.Sandbox("POST", "/notifications", `{"app_id":4242,"topic":"items","resource":"/x","user_id":1}`).Is(t, 404, apptest.Err(404, "not_found", "application not found"))
	a.Sandbox("GET", "/notifications?app_id=4242", nil).Is(t, 404, apptest.Err(404, "not_found", "application not found"))
	a.Sandbox("GET", "/notifications?app_id=x", nil).Is(t, 400, apptest.Err(400, "bad_request", `app_id must be a positive integer, got "x"`, "app_id", "app_id must be a positive integer"))
	a.Sandbox("GET", "/notifications?topic=orders", nil).Is(t, 400, apptest.Err(400, "bad_request",
		`topic must be one of items, questions, orders_v2, messages, shipments, flex-handshakes, got "orders"`, "topic",
		`topic must be one of items, questions, orders_v2, messages, shipments, flex-handshakes, got "orders"`))
	a.Sandbox("GET", "/notifications?topic=items", nil).Is(t, 200, `{"notifications":[]}`)
	a.Do("POST", "/notifications", `{}`).Is(t, 404, apptest.Err(404, "not_found", "resource POST /notifications not found"))
	a.Do("GET", "/sandbox/notifications", nil).HasStatus(t, 401)

	// DELETE /sandbox removes every application and notification.
	a.Sandbox("DELETE", "", nil).HasStatus(t, 204)
	a.Sandbox("GET", "/notifications", nil).Is(t, 200, `{"notifications":[]}`)
	var b []byte
	b, _ = json.Marshal(notifications(t, a, ""))
	if string(b) != "[]" {
		t.Fatalf("after the reset: %s", b)
	}
}

// A callback that never answers holds at most webhooks.MaxInFlightPerApp
// of a worker's delivery slots: another application's notifications still
// go out at once.
func TestASilentCallbackHoldsOnlyItsSlots(t *testing.T) {
	a := apptest.NewSample(t, apptest.Real)
	silent, quick := newReceiver(t), newReceiver(t)
	release := make(chan struct{})
	var inFlight, most atomicMax
	silent.setAnswer(func(int, map[string]any) (int, time.Duration) {
		most.observe(inFlight.add(1))
		<-release
		inFlight.add(-1)
		return 200, 0
	})
	defer close(release)
	a.Sandbox("PUT", "/applications/789", application(silent.srv.URL, 123, nil, nil, fast, 30_000)).OK(t, 200)
	a.Sandbox("PUT", "/applications/790", application(quick.srv.URL, 124, nil, nil, fast, 500)).OK(t, 200)
	a.StartWorkers()
	for range 40 {
		trigger(t, a, 789, "items", "/items/MLA1100")
	}
	waitFor(t, a, "?app_id=789", 20*time.Second, func([]notification) bool { return inFlight.get() == webhooks.MaxInFlightPerApp })
	trigger(t, a, 790, "items", "/items/MLA1100")
	waitFor(t, a, "?app_id=790", 10*time.Second, all(1, "delivered"))
	time.Sleep(300 * time.Millisecond)
	if got := most.get(); got != webhooks.MaxInFlightPerApp {
		t.Fatalf("at most %d attempts of one application at once, want %d", got, webhooks.MaxInFlightPerApp)
	}
}

// atomicMax counts and keeps the highest count seen.
type atomicMax struct {
	mu sync.Mutex
	n  int
}

func (m *atomicMax) add(d int) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n += d
	return m.n
}

func (m *atomicMax) get() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n
}

func (m *atomicMax) observe(v int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n = max(m.n, v)
}
