package worldsapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
)

const key = "ci-42-key-0123456789"

// world is the body of a world as the routes answer it; times are taken
// from got, which must carry them.
func world(t *testing.T, got apptest.Response, name, key string) string {
	t.Helper()
	var w struct {
		CreatedAt  string `json:"created_at"`
		LastUsedAt string `json:"last_used_at"`
	}
	got.JSON(t, &w)
	for _, at := range []string{w.CreatedAt, w.LastUsedAt} {
		ts, err := time.Parse("2006-01-02T15:04:05.000Z", at)
		if err != nil || time.Since(ts) > time.Minute || time.Until(ts) > time.Second {
			t.Errorf("%s: time %q is not now, in UTC with milliseconds", got.Request, at)
		}
	}
	b, _ := json.Marshal(map[string]string{"name": name, "sandbox_key": key, "base_path": "/worlds/" + name,
		"created_at": w.CreatedAt, "last_used_at": w.LastUsedAt})
	return string(b)
}

// PUT creates (201) then answers the world (200); a key given replaces the
// one kept; GET answers the same; DELETE removes it (204, then 404); the
// list pages by name.
func TestWorldLifecycle(t *testing.T) {
	t.Parallel() // an instance of its own on each backend
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := apptest.New(t, be)
		r := a.Sandbox("PUT", "/worlds/ci-42", map[string]any{"sandbox_key": key})
		r.Is(t, 201, world(t, r, "ci-42", key))
		created := r
		r = a.Sandbox("PUT", "/worlds/ci-42", map[string]any{})
		r.Is(t, 200, string(created.Body))
		a.Sandbox("GET", "/worlds/ci-42", nil).Is(t, 200, string(created.Body))
		// Another key replaces the world's; no key keeps it.
		r = a.Sandbox("PUT", "/worlds/ci-42", map[string]any{"sandbox_key": "another-key-0123456789"})
		r.Is(t, 200, strings.Replace(string(created.Body), key, "another-key-0123456789", 1))
		a.Sandbox("PUT", "/worlds/ci-42", nil).Is(t, 200, string(r.Body))

		// A generated key: long and random.
		var gen struct {
			SandboxKey string `json:"sandbox_key"`
		}
		a.Sandbox("PUT", "/worlds/a", nil).JSON(t, &gen)
		var gen2 struct {
			SandboxKey string `json:"sandbox_key"`
		}
		a.Sandbox("PUT", "/worlds/b", `{"sandbox_key": null}`).JSON(t, &gen2)
		if len(gen.SandboxKey) < 32 || gen.SandboxKey == gen2.SandboxKey {
			t.Errorf("generated keys %q and %q", gen.SandboxKey, gen2.SandboxKey)
		}

		list := a.Sandbox("GET", "/worlds?limit=2&offset=1", nil).HasStatus(t, 200)
		var page struct {
			Worlds []struct {
				Name string `json:"name"`
			} `json:"worlds"`
			Paging struct{ Total, Offset, Limit int } `json:"paging"`
		}
		list.JSON(t, &page)
		if fmt.Sprint(page) != "{[{b} {ci-42}] {3 1 2}}" {
			t.Errorf("list: %d %s", list.Status, list.Body)
		}
		list = a.Sandbox("GET", "/worlds", nil)
		list.JSON(t, &page)
		if fmt.Sprint(page) != "{[{a} {b} {ci-42}] {3 0 50}}" {
			t.Errorf("default list: %s", list.Body)
		}

		if r := a.Sandbox("DELETE", "/worlds/ci-42", nil).HasStatus(t, 204); len(r.Body) != 0 {
			t.Errorf("delete: %d %s", r.Status, r.Body)
		}
		notFound := apptest.Err(404, "not_found", "world ci-42 not found")
		a.Sandbox("DELETE", "/worlds/ci-42", nil).Is(t, 404, notFound)
		a.Sandbox("GET", "/worlds/ci-42", nil).Is(t, 404, notFound)
		// A world's data is not the default world's: a reset keeps it.
		a.Sandbox("DELETE", "", nil).HasStatus(t, 204)
		a.Sandbox("GET", "/worlds/a", nil).OK(t, 200)
		a.Sandbox("PUT", "/worlds/ci-42", nil).HasStatus(t, 201) // created again
	})
}

// A bad name, key, body or page is 400 naming the field; nothing is
// created.
func TestWorldBadInput(t *testing.T) {
	t.Parallel() // an instance of its own
	a := apptest.New(t, apptest.Embedded)
	badName := apptest.Err(400, "bad_request", "name must be 1 to 63 characters of a-z, 0-9 and -, not starting or ending with -",
		"name", "name must be 1 to 63 characters of a-z, 0-9 and -, not starting or ending with -")
	for _, name := range []string{"-a", "a-", "CI", "ci_42", "ci.42", strings.Repeat("x", 64), "%C3%A9"} {
		a.Sandbox("PUT", "/worlds/"+name, nil).Is(t, 400, badName)
		a.Sandbox("GET", "/worlds/"+name, nil).Is(t, 400, badName)
		a.Sandbox("DELETE", "/worlds/"+name, nil).Is(t, 400, badName)
	}
	badKey := apptest.Err(400, "bad_request", "sandbox_key must be a string of at least 16 characters",
		"sandbox_key", "sandbox_key must be a string of at least 16 characters")
	a.Sandbox("PUT", "/worlds/ok", map[string]any{"sandbox_key": "short"}).Is(t, 400, badKey)
	a.Sandbox("PUT", "/worlds/ok", map[string]any{"sandbox_key": ""}).Is(t, 400, badKey)
	a.Sandbox("PUT", "/worlds/ok", map[string]any{"sandbox_key": 1234567890123456789}).Is(t, 400,
		apptest.Err(400, "bad_request", "field sandbox_key must be a string, got number", "sandbox_key", "sandbox_key must be a string"))
	a.Sandbox("PUT", "/worlds/ok", "{").Is(t, 400,
		apptest.Err(400, "bad_request", "invalid JSON body: unexpected end of JSON input", "body", "unexpected end of JSON input"))
	a.Sandbox("GET", "/worlds?limit=201", nil).Is(t, 400, apptest.Err(400, "bad_request", "limit must be at most 200, got 201"))
	a.Sandbox("GET", "/worlds", nil).Is(t, 200, `{"worlds": [], "paging": {"total": 0, "offset": 0, "limit": 50}}`)
}

// The routes take the default world's key only: none, a wrong one or a
// world's own key is 401.
func TestWorldsTakeTheRootKeyOnly(t *testing.T) {
	t.Parallel() // an instance of its own
	a := apptest.New(t, apptest.Embedded)
	a.Sandbox("PUT", "/worlds/a", map[string]any{"sandbox_key": key}).OK(t, 201)
	unauthorized := apptest.Err(401, "unauthorized", "missing or wrong X-Sandbox-Key header")
	for _, h := range [][]string{nil, {"X-Sandbox-Key", "wrong-key-0123456789"}, {"X-Sandbox-Key", key}} {
		for _, call := range [][2]string{{"PUT", "/sandbox/worlds/b"}, {"GET", "/sandbox/worlds/a"}, {"GET", "/sandbox/worlds"}, {"DELETE", "/sandbox/worlds/a"}} {
			a.Do(call[0], call[1], map[string]any{}, h...).Is(t, 401, unauthorized)
		}
	}
	a.Sandbox("GET", "/worlds", nil).OK(t, 200)
	a.Sandbox("GET", "/worlds/b", nil).Is(t, 404, apptest.Err(404, "not_found", "world b not found"))
}

// MAX_WORLDS bounds the worlds: one more is 429 saying so, and a deletion
// makes room.
func TestMaxWorlds(t *testing.T) {
	t.Parallel() // an instance of its own
	a := apptest.NewConfigured(t, apptest.Embedded, func(c *apptest.Config) { c.MaxWorlds = 2 })
	a.Sandbox("PUT", "/worlds/a", nil).OK(t, 201)
	a.Sandbox("PUT", "/worlds/b", nil).OK(t, 201)
	full := apptest.Err(429, "too_many_requests", "this instance holds its maximum of 2 worlds (MAX_WORLDS): delete one before creating another")
	a.Sandbox("PUT", "/worlds/c", nil).Is(t, 429, full)
	a.Sandbox("GET", "/worlds/c", nil).Is(t, 404, apptest.Err(404, "not_found", "world c not found"))
	a.Sandbox("PUT", "/worlds/a", nil).OK(t, 200) // an existing world is not one more
	a.Sandbox("DELETE", "/worlds/a", nil).HasStatus(t, 204)
	a.Sandbox("PUT", "/worlds/c", nil).OK(t, 201)
}
