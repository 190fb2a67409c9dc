package worldsapi_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
	"github.com/feria/feria/workers/tasks"
)

// A world's jobs are its own in the shared queues: its task ids name it, so
// that the default world's reset and another world's leave them queued,
// and its own reset and its deletion remove them. A process that served a
// world deleted through another stops serving it within WorldRecheck.
func TestWorldJobsAreTheirWorlds(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewConfigured(t, be, func(c *apptest.Config) { c.WorldRecheck = 20 * time.Millisecond })
		twin := a.Twin()
		a.Sandbox("PUT", "/worlds/a", map[string]any{"sandbox_key": keyA}).OK(t, 201)
		a.Sandbox("PUT", "/worlds/b", map[string]any{"sandbox_key": keyB}).OK(t, 201)
		wa, wb := client{a: a, name: "a", key: keyA}, client{a: a, name: "b", key: keyB}
		for _, w := range []client{wa, wb} {
			w.sandbox("POST", "/fixtures", fiscalFixtures(w.name)).OK(t, 200)
			w.sandbox("PUT", "/applications/789", map[string]any{"name": "it", "owner_id": 101, "client_secret": "s",
				"callback_url": "http://127.0.0.1:1/cb", "topics": []string{"items"}}).OK(t, 200)
		}
		a.MustLoad(apptest.Sample())
		queued := func() map[string]int {
			n := map[string]int{}
			for _, q := range tasks.Names() {
				infos, _ := a.Deps.Inspect.ListPendingTasks(q)
				for _, ti := range infos {
					n[tasks.WorldOf(ti.ID)]++
				}
			}
			return n
		}
		wa.sandbox("POST", "/notifications", map[string]any{"app_id": 789, "topic": "items", "resource": "/items/MLA101", "user_id": 101}).OK(t, 202)
		wb.sandbox("POST", "/notifications", map[string]any{"app_id": 789, "topic": "items", "resource": "/items/MLA101", "user_id": 101}).OK(t, 202)
		// Each world's relay queues its own outbox: no worker runs here.
		eventually(t, 10*time.Second, func() string {
			if n := queued(); n["a"] != 1 || n["b"] != 1 || n[""] != 0 {
				return fmt.Sprintf("queued by world: %v", n)
			}
			return ""
		})
		a.Sandbox("DELETE", "", nil).HasStatus(t, 204)
		wb.sandbox("DELETE", "", nil).HasStatus(t, 204)
		if n := queued(); n["a"] != 1 || n["b"] != 0 {
			t.Errorf("after the default world's and b's resets: %v", n)
		}
		wa.sandbox("DELETE", "", nil).HasStatus(t, 204)
		if n := queued(); n["a"] != 0 {
			t.Errorf("after a's reset: %v", n)
		}

		// The twin serves world b, which a deletes: the twin lets it go.
		twin.Do("GET", "/worlds/b/sandbox/clock", nil, "X-Sandbox-Key", keyB).OK(t, 200)
		a.Sandbox("DELETE", "/worlds/b", nil).HasStatus(t, 204)
		eventually(t, 500*time.Millisecond, func() string {
			if r := twin.Do("GET", "/worlds/b/sandbox/clock", nil, "X-Sandbox-Key", keyB); r.Status != 404 {
				return fmt.Sprintf("the twin answers %d %s", r.Status, r.Body)
			}
			return ""
		})
		twin.Do("GET", "/worlds/b/sandbox/clock", nil, "X-Sandbox-Key", keyB).Is(t, 404, apptest.Err(404, "not_found", "world b not found"))
	})
}
