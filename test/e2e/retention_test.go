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
// relayed outbox rows and notifications to applications (with their
// attempts) once older than RETENTION_OUTBOX and RETENTION_NOTIFICATIONS
// (7 days by default) by the service clock; what is younger stays, and so
// does what is not finished.
func TestRetentionPrunesByTheServiceClock(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := apptest.NewSample(t, be)
		cb := newCallbackServer(t)
		app := fmt.Sprintf(`{"name":"it","owner_id":123,"client_secret":"s","callback_url":%q,"topics":["items"],"users":[],"retry_delays_ms":[0,0,0,0,0,0,0]}`, cb.srv.URL)
		a.Sandbox("PUT", "/applications/789", app).OK(t, 200)
		a.StartWorkers()
		notify := func() string {
			var n struct {
				ID string `json:"_id"`
			}
			r := a.Sandbox("POST", "/notifications", map[string]any{"app_id": 789, "topic": "items", "resource": "/items/MLA1100", "user_id": 123})
			r.JSON(t, &n)
			if r.Status != 202 || n.ID == "" {
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
		old := notify()
		oldRows := count(t, a, "outbox")
		// 7 days less a second later, nothing is old enough.
		a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-27T11:59:59Z"}).OK(t, 200)
		recent := notify()
		prune := func() {
			t.Helper()
			if err := a.ProcessTask(context.Background(), asynq.NewTask(outboxport.TaskPrune, nil)); err != nil {
				t.Fatalf("prune: %v", err)
			}
		}
		prune()
		if n := count(t, a, "outbox"); n != oldRows+1 || count(t, a, "webhook_notifications") != 2 || count(t, a, "webhook_deliveries") != 2 {
			t.Fatalf("pruned before their time: %d outbox rows (want %d), %d notifications, %d attempts", n, oldRows+1,
				count(t, a, "webhook_notifications"), count(t, a, "webhook_deliveries"))
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
		if n := count(t, a, "outbox"); n != 2 || count(t, a, "outbox WHERE id = 'unrelayed'") != 1 {
			t.Errorf("%d outbox rows after the prune; want the recent notification's and the unrelayed one", n)
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

// count is SELECT count(*) FROM what (a table and its WHERE).
func count(t *testing.T, a *apptest.App, what string) int {
	t.Helper()
	var n int
	if err := a.Deps.DB.NewRaw("SELECT count(*) FROM "+what).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}
