package controlapi_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/core/control"
	"github.com/feria/feria/test/apptest"
)

const tooMany = `{"message": "Too Many Requests", "error": "too_many_requests", "status": 429, "cause": []}`

// refused asserts the 429 of docs/sandbox.md and a Retry-After within the minute.
func refused(t *testing.T, r apptest.Response) {
	t.Helper()
	r.Is(t, 429, tooMany)
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
		t.Errorf("%s: Retry-After %q, want 1..60 seconds", r.Request, r.Header.Get("Retry-After"))
	}
}

// appToken issues a token of user 123 that belongs to application 789.
func appToken(t *testing.T, a *apptest.App) string {
	t.Helper()
	a.Sandbox("PUT", "/applications/789", map[string]any{"name": "my-integration", "owner_id": 123, "client_secret": "s",
		"callback_url": "http://127.0.0.1:9/notifications", "topics": []string{"items"}, "users": []int{123}}).OK(t, 200)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	a.Sandbox("POST", "/users/123/tokens", map[string]any{"app_id": 789}).JSON(t, &tok)
	if tok.AccessToken == "" {
		t.Fatal("no application token")
	}
	return tok.AccessToken
}

// A limit counts per caller: each token's user, an application's tokens
// together, and requests without a valid token by client address; refused
// requests do not count; the 429 is the same on every route.
func TestRateLimitsPerCaller(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		const n = 3
		a.Sandbox("PUT", "/rate_limits", fmt.Sprintf(`{"rules": [
			{"method": "GET", "path": "/users/*/items/search", "per_minute": %d},
			{"method": "GET", "path": "/items/*", "per_minute": 2},
			{"path": "/users/*/brands", "per_minute": 1},
			{"method": "GET", "path": "/items/*/contacts/questions", "per_minute": 1}]}`, n)).
			Is(t, 200, fmt.Sprintf(`{"rules": [{"method": "GET", "path": "/users/*/items/search", "per_minute": %d},
				{"method": "GET", "path": "/items/*", "per_minute": 2}, {"method": null, "path": "/users/*/brands", "per_minute": 1},
				{"method": "GET", "path": "/items/*/contacts/questions", "per_minute": 1}]}`, n))
		app := appToken(t, a)

		seller, other := apptest.Bearer("APP_USR-seller"), apptest.Bearer("APP_USR-other")
		for i := range n {
			a.Do("GET", "/users/123/items/search", nil, seller...).OK(t, 200)
			a.Do("GET", "/users/123/items/search", nil, other...).OK(t, 403) // counted, as any answer the route gives
			if i < n-1 {
				a.Do("GET", fmt.Sprintf("/users/123/items/search?access_token=%s", app), nil).OK(t, 200)
			}
		}
		// The seller used its three; its application's token is another caller.
		refused(t, a.Do("GET", "/users/123/items/search", nil, seller...))
		refused(t, a.Do("GET", "/users/123/items/search", nil, seller...))
		refused(t, a.Do("GET", "/users/123/items/search", nil, other...))
		a.Do("GET", "/users/123/items/search?access_token="+app, nil).OK(t, 200)
		refused(t, a.Do("GET", "/users/123/items/search", nil, "Authorization", "Bearer "+app))
		// Without a valid token the client address is the caller.
		a.Do("GET", "/users/123/items/search", nil).OK(t, 401)
		a.Do("GET", "/users/123/items/search", nil, apptest.Bearer("APP_USR-nobody")...).OK(t, 401)
		a.Do("GET", "/users/123/items/search?access_token=bad", nil).OK(t, 401)
		refused(t, a.Do("GET", "/users/123/items/search", nil))

		// The body is shape (a) whatever the route's own shape.
		a.Do("GET", "/users/789/brands", nil).OK(t, 401)
		refused(t, a.Do("GET", "/users/789/brands", nil))
		a.Do("GET", "/items/MLA1100/contacts/questions?date_from=2026-11-01&date_to=2026-11-02", nil).OK(t, 200)
		refused(t, a.Do("GET", "/items/MLA1100/contacts/questions?date_from=2026-11-01&date_to=2026-11-02", nil))
		// Other paths are not limited by these rules.
		a.Do("GET", "/categories/MLA1747/shipping_preferences", nil).OK(t, 200)
		metrics := string(a.Do("GET", "/metrics", nil).Body)
		if want := `feria_rate_limited_total{method="GET",path="/users/*/items/search"} 5`; !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	})
}

// GET shows the documented defaults until a PUT replaces them; a PUT starts
// every count afresh; DELETE /sandbox brings the defaults back with fresh
// counts; bad rules are refused whole.
func TestRateLimitRules(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		defaults := `{"rules": [
			{"method": "POST", "path": "/catalog_compatibilities/products_search/count_family_products", "per_minute": 100},
			{"method": "POST", "path": "/items/*/compatibilities", "per_minute": 100},
			{"method": "PUT", "path": "/items/*/compatibilities", "per_minute": 100},
			{"method": "DELETE", "path": "/items/*/compatibilities", "per_minute": 100},
			{"method": "DELETE", "path": "/items/*/compatibilities/*", "per_minute": 100},
			{"method": "POST", "path": "/items/*/compatibilities/exception", "per_minute": 100},
			{"method": "GET", "path": "/shipping/flex/sites/*/users/*/subscriptions/v1", "per_minute": 1000},
			{"method": "POST", "path": "/shipping/flex/sites/*/configuration/v3", "per_minute": 1000},
			{"method": "PUT", "path": "/shipping/flex/sites/*/users/*/services/*/configuration/delivery/custom/v3", "per_minute": 1000},
			{"method": "PUT", "path": "/shipping/flex/sites/*/users/*/services/*/configuration/coverage/zone/v3", "per_minute": 1000},
			{"method": null, "path": "/sites/*/shipping/selfservice/items/*", "per_minute": 1000},
			{"method": "GET", "path": "/flex/sites/*/shipments/*/assignment/v1", "per_minute": 1000}]}`
		a.Sandbox("GET", "/rate_limits", nil).Is(t, 200, defaults)

		// The documented limit of the family count, per caller.
		count := `{"domain_id": "MLA-CARS_AND_VANS", "attributes": [{"id": "BRAND", "value_id": "9909"}]}`
		// GCRA: a burst of 100, then one more every 0.6 s; a busy machine
		// may take longer than that for the burst.
		start, allowed := time.Now(), 0
		for allowed <= 2*control.CompatPerMinute {
			r := a.Do("POST", "/catalog_compatibilities/products_search/count_family_products", count, apptest.Bearer("APP_USR-seller")...)
			if r.Status == 429 {
				refused(t, r)
				break
			}
			r.OK(t, 200)
			allowed++
		}
		if refill := int(time.Since(start)/(time.Minute/control.CompatPerMinute)) + 1; allowed < control.CompatPerMinute || allowed > control.CompatPerMinute+refill {
			t.Errorf("%d family counts allowed in %v, want %d and at most %d refilled", allowed, time.Since(start), control.CompatPerMinute, refill)
		}
		a.Do("POST", "/catalog_compatibilities/products_search/count_family_products", count, apptest.Bearer("APP_USR-other")...).OK(t, 200)

		a.Sandbox("PUT", "/rate_limits", `{"rules": [{"path": "/items/*", "per_minute": 1}]}`).OK(t, 200)
		a.Do("POST", "/catalog_compatibilities/products_search/count_family_products", count, apptest.Bearer("APP_USR-seller")...).OK(t, 200)
		a.Do("GET", "/items/MLA1100", nil).OK(t, 200)
		refused(t, a.Do("GET", "/items/MLA1100", nil))
		a.Sandbox("PUT", "/rate_limits", `{"rules": [{"path": "/items/*", "per_minute": 1}]}`).OK(t, 200)
		a.Do("GET", "/items/MLA1100", nil).OK(t, 200) // a new count

		a.Sandbox("PUT", "/rate_limits", `{"rules": []}`).Is(t, 200, `{"rules": []}`)
		a.Sandbox("GET", "/rate_limits", nil).Is(t, 200, `{"rules": []}`)
		for range 3 {
			a.Do("GET", "/items/MLA1100", nil).OK(t, 200)
		}

		for _, c := range []struct{ body, want string }{
			{`{}`, apptest.Err(400, "bad_request", `rules is required: {"rules": [...]}, or {"rules": []} for none`, "rules", "rules is required")},
			{`{"rules": [{"path": "/a", "per_minute": 5}, {"path": "a", "per_minute": 0}]}`, apptest.Err(400, "bad_request", `rules[1]: path must start with /, got "a"`,
				"rules[1].path", `rules[1]: path must start with /, got "a"`, "rules[1].per_minute", "rules[1]: per_minute must be 1..1000000, got 0")},
			{`{"rules": [{"path": "/a"}]}`, apptest.Err(400, "bad_request", "rules[0]: per_minute is required", "rules[0].per_minute", "rules[0]: per_minute is required")},
			{`{"rules": [{"path": "/a", "per_minute": "5"}]}`, apptest.Err(400, "bad_request", "field rules.per_minute must be an integer, got string", "rules.per_minute", "rules.per_minute must be an integer")},
		} {
			a.Sandbox("PUT", "/rate_limits", c.body).Is(t, 400, c.want)
		}
		a.Sandbox("GET", "/rate_limits", nil).Is(t, 200, `{"rules": []}`) // nothing written

		a.Sandbox("PUT", "/rate_limits", `{"rules": [{"path": "/items/*", "per_minute": 1}]}`).OK(t, 200)
		a.Do("GET", "/items/MLA1100", nil).OK(t, 200)
		a.Sandbox("DELETE", "", nil).OK(t, 204)
		a.Sandbox("GET", "/rate_limits", nil).Is(t, 200, defaults)
		a.MustLoad(apptest.Sample())
		a.Do("GET", "/items/MLA1100", nil).OK(t, 200)
		a.Do("GET", "/items/MLA1100", nil).OK(t, 200)
		// The seller's family count starts afresh too.
		a.Do("POST", "/catalog_compatibilities/products_search/count_family_products", count, apptest.Bearer("APP_USR-seller")...).OK(t, 200)
	})
}
