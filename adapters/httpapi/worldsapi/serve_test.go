package worldsapi_test

import (
	"encoding/json"
	"testing"

	"github.com/feria/feria/test/apptest"
)

const keyA, keyB = "world-a-key-0123456789", "world-b-key-0123456789"

// A world serves the whole API under /worlds/{name} on storage of its own:
// what world a's sandbox loads, world a answers, and neither world b nor
// the default world knows of it; a world's key opens its sandbox only, its
// tokens open only its API, its fault rules and journal are its own, its
// reset is its own, and its deletion leaves nothing for its next creation.
func TestWorldServesTheAPIApart(t *testing.T) {
	t.Parallel() // an instance of its own on each backend
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := apptest.New(t, be)
		a.Sandbox("PUT", "/worlds/a", map[string]any{"sandbox_key": keyA}).OK(t, 201)
		a.Sandbox("PUT", "/worlds/b", map[string]any{"sandbox_key": keyB}).OK(t, 201)
		in := func(world, key, method, path string, body any, headers ...string) apptest.Response {
			t.Helper()
			if key != "" {
				headers = append(headers, "X-Sandbox-Key", key)
			}
			return a.Do(method, "/worlds/"+world+path, body, headers...)
		}
		now := map[string]any{"now": "2026-11-20T12:00:00Z"}
		in("a", keyA, "PUT", "/sandbox/clock", now).OK(t, 200)
		in("a", keyA, "POST", "/sandbox/fixtures", apptest.Sample()).HasStatus(t, 200)
		item := in("a", "", "GET", "/items/MLA1100", nil).HasStatus(t, 200)
		var it struct {
			ID, Title string
			SellerID  int64 `json:"seller_id"`
		}
		item.JSON(t, &it)
		if it.ID != "MLA1100" || it.Title != "Amortiguador MLA1100" || it.SellerID != 123 {
			t.Fatalf("world a's item: %d %s", item.Status, item.Body)
		}
		itemNotFound := apptest.Err(404, "not_found", "item not found")
		in("b", "", "GET", "/items/MLA1100", nil).Is(t, 404, itemNotFound)
		a.Do("GET", "/items/MLA1100", nil).Is(t, 404, itemNotFound)

		// The same answer as the default world gives for the same data.
		a.Sandbox("PUT", "/clock", now).OK(t, 200)
		a.MustLoad(apptest.Sample())
		root := a.Do("GET", "/items/MLA1100", nil).HasStatus(t, 200)
		var x, y any
		json.Unmarshal(root.Body, &x) //nolint:errcheck // compared below
		json.Unmarshal(item.Body, &y) //nolint:errcheck // compared below
		if string(mustJSON(x)) != string(mustJSON(y)) {
			t.Errorf("the default world answers %s\nworld a answers %s", root.Body, item.Body)
		}

		// The URLs the service writes carry the world's base.
		if r := in("a", "", "GET", "/categories/MLA1747/shipping", nil); r.Header.Get("Link") != `</worlds/a/categories/MLA1747/shipping_preferences>; rel="successor-version"` {
			t.Errorf("world a's Link: %q", r.Header.Get("Link"))
		}
		if r := a.Do("GET", "/categories/MLA1747/shipping", nil); r.Header.Get("Link") != `</categories/MLA1747/shipping_preferences>; rel="successor-version"` {
			t.Errorf("the default world's Link: %q", r.Header.Get("Link"))
		}

		// Keys: each world's opens its own sandbox only.
		unauthorized := apptest.Err(401, "unauthorized", "missing or wrong X-Sandbox-Key header")
		for _, k := range []string{keyB, apptest.SandboxKey, ""} {
			in("a", k, "GET", "/sandbox/clock", nil).Is(t, 401, unauthorized)
		}
		in("b", keyA, "GET", "/sandbox/clock", nil).Is(t, 401, unauthorized)
		in("a", keyA, "GET", "/sandbox/clock", nil).OK(t, 200)
		a.Do("GET", "/sandbox/clock", nil, "X-Sandbox-Key", keyA).Is(t, 401, unauthorized)
		// The lifecycle is the default world's: not served in a world.
		in("a", keyA, "GET", "/sandbox/worlds", nil).Is(t, 404, apptest.Err(404, "not_found", "resource GET /sandbox/worlds not found"))

		// Tokens: world a's seller is unknown to world b.
		in("a", "", "GET", "/users/123/items/search", nil, apptest.Bearer("APP_USR-seller")...).OK(t, 200)
		in("b", "", "GET", "/users/123/items/search", nil, apptest.Bearer("APP_USR-seller")...).Is(t, 401,
			apptest.Err(401, "unauthorized", "invalid access token"))

		// Fault rules and the journal: world a's own.
		in("a", keyA, "POST", "/sandbox/faults", map[string]any{"method": "GET", "path": "/items/*", "status": 503,
			"error": "service_unavailable", "message": "try again"}).OK(t, 201)
		in("a", "", "GET", "/items/MLA1100", nil).Is(t, 503, apptest.Err(503, "service_unavailable", "try again"))
		a.Do("GET", "/items/MLA1100", nil).OK(t, 200)
		in("b", "", "GET", "/items/MLA1100", nil).Is(t, 404, itemNotFound)
		var journal struct {
			Requests []struct {
				Path   string `json:"path"`
				Status int    `json:"status"`
			} `json:"requests"`
		}
		in("b", keyB, "GET", "/sandbox/requests", nil).JSON(t, &journal)
		if len(journal.Requests) != 3 || journal.Requests[0].Path != "/items/MLA1100" || journal.Requests[1].Path != "/users/123/items/search" ||
			journal.Requests[1].Status != 401 || journal.Requests[2].Status != 404 {
			t.Errorf("world b's journal: %+v", journal.Requests)
		}
		in("b", keyB, "GET", "/sandbox/faults", nil).Is(t, 200, `{"faults": []}`)

		// A world's reset is its own.
		in("a", keyA, "DELETE", "/sandbox", nil).HasStatus(t, 204) // world a's reset
		in("a", "", "GET", "/items/MLA1100", nil).Is(t, 404, itemNotFound)
		a.Do("GET", "/items/MLA1100", nil).OK(t, 200)

		// A world that does not exist, or no longer does.
		worldNotFound := apptest.Err(404, "not_found", "world zz not found")
		a.Do("GET", "/worlds/zz/items/MLA1100", nil).Is(t, 404, worldNotFound)
		a.Do("GET", "/worlds/NO/items/MLA1100", nil).Is(t, 404, apptest.Err(404, "not_found", "world NO not found"))
		in("b", keyB, "POST", "/sandbox/fixtures", apptest.Sample()).OK(t, 200)
		a.Sandbox("DELETE", "/worlds/b", nil).HasStatus(t, 204)
		in("b", "", "GET", "/items/MLA1100", nil).Is(t, 404, apptest.Err(404, "not_found", "world b not found"))
		a.Sandbox("PUT", "/worlds/b", map[string]any{"sandbox_key": keyB}).OK(t, 201)
		in("b", "", "GET", "/items/MLA1100", nil).Is(t, 404, itemNotFound)
		in("b", keyB, "GET", "/sandbox/requests", nil).JSON(t, &journal)
		if len(journal.Requests) != 1 {
			t.Errorf("world b re-created keeps a journal: %+v", journal.Requests)
		}
	})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
