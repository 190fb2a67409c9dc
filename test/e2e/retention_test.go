package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/ports/outboxport"
	"github.com/feria/feria/test/apptest"
)

// TestRetentionPrunesByTheServiceClock: the hourly retention job removes
// relayed outbox rows and the records of compatibility copy jobs done, and
// notifications to applications (with their attempts), once older than
// RETENTION_OUTBOX and RETENTION_NOTIFICATIONS (7 days by default) by the
// service clock; what is younger stays, and so does what is not finished.
func TestRetentionPrunesByTheServiceClock(t *testing.T) {
	t.Parallel() // instances of its own: not before the tests that wait
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := apptest.NewSample(t, be)
		cb := newCallbackServer(t)
		app := fmt.Sprintf(`{"name":"it","owner_id":123,"client_secret":"s","callback_url":%q,"topics":["questions"],"users":[],"retry_delays_ms":[0,0,0,0,0,0,0]}`, cb.srv.URL)
		a.Sandbox("PUT", "/applications/789", app).OK(t, 200)
		a.StartWorkers()
		notify := func() string {
			var n struct {
				ID string `json:"_id"`
			}
			r := a.Sandbox("POST", "/notifications", map[string]any{"app_id": 789, "topic": "questions", "resource": "/questions/1", "user_id": 123}).HasStatus(t, 202)
			r.JSON(t, &n)
			if n.ID == "" {
				t.Fatalf("notification: %d %s", r.Status, r.Body)
			}
			deadline := time.Now().Add(10 * time.Second)
			for !cb.received(n.ID) || count(t, a, "webhook_notifications WHERE id = '"+n.ID+"' AND state = 'delivered'") != 1 {
				if time.Now().After(deadline) {
					t.Fatalf("notification %s not delivered", n.ID)
				}
				time.Sleep(20 * time.Millisecond)
			}
			for count(t, a, "outbox WHERE relayed_at IS NULL") != 0 {
				if time.Now().After(deadline) {
					t.Fatal("the outbox is not relayed")
				}
				time.Sleep(20 * time.Millisecond)
			}
			return n.ID
		}
		// A copy of MLA1100's compatibilities onto item, done by a worker
		// (the application is not told: it watches questions only).
		a.MustLoad(map[string]any{"products": []any{map[string]any{"id": "MLA15197911", "site_id": "MLA", "domain_id": "MLA-CARS_AND_VANS",
			"name": "Ford Ka 2016 1.5", "parent_id": "MLA15197901", "attributes": []any{}}},
			"domains": []map[string]any{{"id": "MLA-CAR_SHOCK_ABSORBERS", "site_id": "MLA", "main": false,
				"compatibilities": []any{map[string]any{"compatible_domain_id": "MLA-CARS_AND_VANS", "type": "EXTENSION", "required": true,
					"restrictions": []any{}, "categories": []any{map[string]any{"id": "MLA1747", "required": true, "note_status": "ENABLED",
						"restrictions_status": "ENABLED", "universal_status": "ENABLED"}}, "restriction_values": []any{}}}}}})
		a.Do("POST", "/items/MLA1100/compatibilities", map[string]any{"products": []any{map[string]any{"id": "MLA15197911"}}},
			"Authorization", "Bearer APP_USR-seller").OK(t, 200)
		copied := func(item string, jobs int) {
			t.Helper()
			a.Do("POST", "/items/"+item+"/compatibilities", map[string]any{"item_to_copy": map[string]any{"item_id": "MLA1100"}},
				"Authorization", "Bearer APP_USR-seller").OK(t, 200)
			deadline := time.Now().Add(10 * time.Second)
			for count(t, a, "compat_jobs") != jobs || count(t, a, "outbox WHERE relayed_at IS NULL") != 0 {
				if time.Now().After(deadline) {
					t.Fatalf("the copy onto %s was not done", item)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		copied("MLA1101", 1)
		old := notify()
		oldRows := count(t, a, "outbox")
		// 7 days less a second later, nothing is old enough.
		a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-27T11:59:59Z"}).OK(t, 200)
		recent := notify()
		// The seller's token of a week ago has expired: issued again.
		a.MustLoad(map[string]any{"users": []map[string]any{{"id": 123, "nickname": "SELLER", "site_id": "MLA", "access_token": "APP_USR-seller"}}})
		copied("MLA1102", 2)
		prune := func() {
			t.Helper()
			if err := a.ProcessTask(context.Background(), asynq.NewTask(outboxport.TaskPrune, nil)); err != nil {
				t.Fatalf("prune: %v", err)
			}
		}
		prune()
		if n := count(t, a, "outbox"); n != oldRows+2 || count(t, a, "webhook_notifications") != 2 || count(t, a, "webhook_deliveries") != 2 ||
			count(t, a, "compat_jobs") != 2 {
			t.Fatalf("pruned before their time: %d outbox rows (want %d), %d notifications, %d attempts, %d copy jobs", n, oldRows+2,
				count(t, a, "webhook_notifications"), count(t, a, "webhook_deliveries"), count(t, a, "compat_jobs"))
		}
		// A second later the first notification and the outbox rows of the
		// world and of that notification are 7 days old; a message not
		// relayed yet stays however old.
		a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-27T12:00:01Z"}).OK(t, 200)
		if _, err := a.Deps.DB.NewRaw("INSERT INTO outbox (id, task_type, payload, created_at) VALUES ('unrelayed', 'none', '{}', ?)",
			time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		prune()
		if n := count(t, a, "outbox"); n != 3 || count(t, a, "outbox WHERE id = 'unrelayed'") != 1 {
			t.Errorf("%d outbox rows after the prune; want the recent notification's, the recent copy's and the unrelayed one", n)
		}
		if count(t, a, "compat_jobs") != 1 || count(t, a, "compat_jobs WHERE done_at > ?", time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)) != 1 {
			t.Errorf("copy jobs after the prune: %d, want the recent one", count(t, a, "compat_jobs"))
		}
		if count(t, a, "webhook_notifications WHERE id = '"+old+"'") != 0 || count(t, a, "webhook_deliveries WHERE notification_id = '"+old+"'") != 0 {
			t.Errorf("the old notification or its attempt was kept")
		}
		if count(t, a, "webhook_notifications WHERE id = '"+recent+"'") != 1 || count(t, a, "webhook_deliveries WHERE notification_id = '"+recent+"'") != 1 {
			t.Errorf("the recent notification or its attempt was pruned")
		}
		if _, err := a.Deps.DB.NewRaw("DELETE FROM outbox WHERE id = 'unrelayed'").Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// count is SELECT count(*) FROM what (a table and its WHERE, with args).
func count(t *testing.T, a *apptest.App, what string, args ...any) int {
	t.Helper()
	var n int
	if err := a.Deps.DB.NewRaw("SELECT count(*) FROM "+what, args...).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A file uploaded for a message and never sent is removed by the prune
// job a day after its upload, by the service clock; a sent one stays.
func TestRetentionPrunesUnsentAttachments(t *testing.T) {
	t.Parallel() // instances of its own: not before the tests that wait
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := demoApp(t, be)
		up := func() string {
			var f struct{ ID string }
			uploadAttachment(a).JSON(t, &f)
			if f.ID == "" {
				t.Fatal("no attachment uploaded")
			}
			return f.ID
		}
		sent, unsent := up(), up()
		a.Do("POST", demoConversation, map[string]any{"from": map[string]any{"user_id": 123}, "to": map[string]any{"user_id": 456},
			"text": "hola", "attachments": []string{sent}}, apptest.Bearer(demoSeller)...).HasStatus(t, 201)
		prune := func() {
			t.Helper()
			if err := a.ProcessTask(context.Background(), asynq.NewTask(outboxport.TaskPrune, nil)); err != nil {
				t.Fatalf("prune: %v", err)
			}
		}
		a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-21T12:00:00Z"}).OK(t, 200)
		prune()
		if count(t, a, "message_attachments") != 2 {
			t.Fatal("an attachment was pruned before its day")
		}
		a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-21T12:00:01Z"}).OK(t, 200)
		prune()
		if count(t, a, "message_attachments") != 1 || count(t, a, "message_attachments WHERE id = ?", sent) != 1 {
			t.Fatalf("after the prune: %d attachments, want the sent one", count(t, a, "message_attachments"))
		}
		a.Do("GET", "/messages/attachments/"+unsent, nil, apptest.Bearer(demoSeller)...).Is(t, 404, apptest.Err(404, "not_found", "attachment not found"))
		a.Do("GET", "/messages/attachments/"+sent, nil, apptest.Bearer(demoBuyer)...).HasStatus(t, 200)
	})
}
