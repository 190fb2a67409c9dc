package controlapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/core/control"
	"github.com/feria/feria/test/apptest"
	"github.com/feria/feria/test/testenv"
)

type entry struct {
	ID         string   `json:"id"`
	At         string   `json:"at"`
	Method     string   `json:"method"`
	Path       string   `json:"path"`
	Query      string   `json:"query"`
	Status     int      `json:"status"`
	DurationMS *float64 `json:"duration_ms"`
	UserID     *int64   `json:"user_id"`
	FaultID    *int64   `json:"fault_id"`
}

func journal(t *testing.T, a *apptest.App, query string) []entry {
	t.Helper()
	var j struct {
		Requests []entry `json:"requests"`
	}
	r := a.Sandbox("GET", "/requests"+query, nil)
	r.HasStatus(t, 200)
	r.JSON(t, &j)
	return j.Requests
}

// brief is an entry without its generated parts (at, duration).
func brief(es []entry) string {
	var out []string
	for _, e := range es {
		user, fault := "null", "null"
		if e.UserID != nil {
			user = fmt.Sprint(*e.UserID)
		}
		if e.FaultID != nil {
			fault = fmt.Sprint(*e.FaultID)
		}
		out = append(out, fmt.Sprintf("%s %s %s ?%s %d user=%s fault=%s", e.ID, e.Method, e.Path, e.Query, e.Status, user, fault))
	}
	return strings.Join(out, "\n")
}

// The journal keeps every public request (faulted, limited and 404 ones
// included) newest first, with the X-Request-Id, the path and query as sent
// (every access_token value masked), the status, the duration and the
// caller's user id (null without a valid token); tokens are stored
// nowhere; /sandbox, /health and /metrics are left out.
func TestJournal(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		a.Sandbox("PUT", "/rate_limits", `{"rules": [{"method": "GET", "path": "/categories/*/shipping_preferences", "per_minute": 1}]}`).OK(t, 200)
		fid := fault(t, a, `{"method": "DELETE", "path": "/items/*/compatibilities", "status": 503, "times": 1}`)
		before := time.Now().UTC()

		id := func(s string) []string { return []string{"X-Request-Id", s} }
		a.Do("GET", "/items/MLA1100?attributes=id&access_token=APP_USR-seller", nil, id("req-1")...).OK(t, 200)
		a.Do("GET", "/users/123/items/search?access%5Ftoken=APP_USR-seller&access_token=APP_USR-other&limit=1", nil, id("req-2")...).OK(t, 200)
		a.Do("GET", "/users/123/items/search", nil, append(id("req-3"), apptest.Bearer("APP_USR-other")...)...).OK(t, 403)
		a.Do("GET", "/users/123/items/search?access_token=APP_USR-expired", nil, id("req-4")...).OK(t, 401)
		a.Do("DELETE", "/items/MLA1100/compatibilities", nil, append(id("req-5"), apptest.Bearer("APP_USR-seller")...)...).OK(t, 503)
		a.Do("GET", "/categories/MLA1747/shipping_preferences", nil, id("req-6")...).OK(t, 200)
		a.Do("GET", "/categories/MLA1747/shipping_preferences", nil, id("req-7")...).OK(t, 429)
		a.Do("POST", "/no/such/path?x=%20y", "{}", id("req-8")...).OK(t, 404)
		a.Do("GET", "/health/live", nil, id("health")...).OK(t, 200)
		a.Do("GET", "/metrics", nil, id("metrics")...)
		a.Sandbox("GET", "/clock", nil).OK(t, 200)
		plain := a.Do("GET", "/items/MLA1101", nil) // a request id made by feria

		got := journal(t, a, "")
		want := fmt.Sprintf(`%s GET /items/MLA1101 ? 200 user=null fault=null
req-8 POST /no/such/path ?x=%%20y 404 user=null fault=null
req-7 GET /categories/MLA1747/shipping_preferences ? 429 user=null fault=null
req-6 GET /categories/MLA1747/shipping_preferences ? 200 user=null fault=null
req-5 DELETE /items/MLA1100/compatibilities ? 503 user=123 fault=%d
req-4 GET /users/123/items/search ?access_token=*** 401 user=null fault=null
req-3 GET /users/123/items/search ? 403 user=124 fault=null
req-2 GET /users/123/items/search ?access%%5Ftoken=***&access_token=***&limit=1 200 user=123 fault=null
req-1 GET /items/MLA1100 ?attributes=id&access_token=*** 200 user=123 fault=null`, plain.Header.Get("X-Request-Id"), fid)
		if brief(got) != want {
			t.Errorf("journal:\n%s\nwant:\n%s", brief(got), want)
		}
		for _, e := range got {
			at, err := time.Parse(time.RFC3339Nano, e.At)
			if err != nil || at.Before(before.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) || e.DurationMS == nil || *e.DurationMS < 0 {
				t.Errorf("%s: at %q duration %v", e.ID, e.At, e.DurationMS)
			}
		}
		raw := a.Sandbox("GET", "/requests?limit=1000", nil)
		for _, secret := range []string{"APP_USR-seller", "APP_USR-other", "APP_USR-expired", "Bearer"} {
			if strings.Contains(string(raw.Body), secret) {
				t.Errorf("the journal holds %q: %s", secret, raw.Body)
			}
		}
		// The entry of the fault's answer is exactly this.
		var five struct {
			Requests []map[string]any `json:"requests"`
		}
		a.Sandbox("GET", "/requests?status=503", nil).JSON(t, &five)
		if len(five.Requests) != 1 {
			t.Fatalf("503s: %+v", five.Requests)
		}
		delete(five.Requests[0], "at")
		delete(five.Requests[0], "duration_ms")
		b, _ := json.Marshal(five.Requests[0])
		if string(b) != fmt.Sprintf(`{"fault_id":%d,"id":"req-5","method":"DELETE","path":"/items/MLA1100/compatibilities","query":"","status":503,"user_id":123}`, fid) {
			t.Errorf("entry: %s", b)
		}

		// Filters: method and path exact, status a number, limit.
		for _, c := range []struct{ query, ids string }{
			{"?method=GET&limit=3", plain.Header.Get("X-Request-Id") + ",req-7,req-6"},
			{"?method=get", ""},
			{"?path=/users/123/items/search", "req-4,req-3,req-2"},
			{"?path=/users/123/items/search&status=403", "req-3"},
			{"?path=/users/123/items", ""},
			{"?status=429", "req-7"},
			{"?status=404&method=POST&path=/no/such/path", "req-8"},
			{"?limit=0", ""},
			{"?limit=1", plain.Header.Get("X-Request-Id")},
		} {
			var ids []string
			for _, e := range journal(t, a, c.query) {
				ids = append(ids, e.ID)
			}
			if strings.Join(ids, ",") != c.ids {
				t.Errorf("%s: %v, want %s", c.query, ids, c.ids)
			}
		}
		a.Sandbox("GET", "/requests?limit=1001", nil).Is(t, 400, apptest.Err(400, "bad_request", `limit must be an integer 0..1000, got "1001"`, "limit", "limit must be 0..1000"))
		a.Sandbox("GET", "/requests?limit=-1", nil).Is(t, 400, apptest.Err(400, "bad_request", `limit must be an integer 0..1000, got "-1"`, "limit", "limit must be 0..1000"))
		a.Sandbox("GET", "/requests?status=ok", nil).Is(t, 400, apptest.Err(400, "bad_request", `status must be an HTTP status (100..599), got "ok"`, "status", "status must be an HTTP status"))

		a.Sandbox("DELETE", "", nil).OK(t, 204)
		if got := journal(t, a, ""); len(got) != 0 {
			t.Errorf("after DELETE /sandbox:\n%s", brief(got))
		}
		a.Sandbox("GET", "/faults", nil).Is(t, 200, `{"faults": []}`)
	})
}

// The journal keeps the last 1,000 requests and answers at most 1,000, 50
// by default.
func TestJournalSize(t *testing.T) {
	a := apptest.New(t, apptest.Embedded)
	for i := range 1003 {
		a.Do("GET", fmt.Sprintf("/nothing/%d", i), nil).OK(t, 404)
	}
	if got := journal(t, a, ""); len(got) != 50 || got[0].Path != "/nothing/1002" {
		t.Errorf("default: %d entries, newest %+v", len(got), got[0])
	}
	got := journal(t, a, "?limit=1000")
	if len(got) != 1000 || got[0].Path != "/nothing/1002" || got[999].Path != "/nothing/3" {
		t.Errorf("all: %d entries from %s to %s", len(got), got[0].Path, got[len(got)-1].Path)
	}
}

// Without a sandbox key nothing is journaled (nobody could read it) and
// no fault rule applies, but rate limits do.
func TestWithoutSandbox(t *testing.T) {
	a := apptest.NewConfigured(t, apptest.Embedded, func(c *apptest.Config) { c.SandboxKey = "" })
	// Nobody can change the rules, so none are read: a request no limit
	// matches costs the controls no round trip at all.
	rt := &testenv.RoundTrips{}
	a.Deps.ControlsRedis.AddHook(rt)
	for range 2 {
		a.Do("GET", "/items/MLA1", nil).OK(t, 404)
	}
	if rt.Single.Load() != 0 || rt.Pipelines.Load() != 0 {
		t.Errorf("GET /items twice without a sandbox: %d commands and %d pipelines on the controls' Redis, want none", rt.Single.Load(), rt.Pipelines.Load())
	}
	n, err := a.Deps.Redis.Exists(t.Context(), "feria:control:journal").Result()
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("requests were journaled without a sandbox")
	}
	body := `{"domain_id": "MLA-X", "attributes": [{"id": "BRAND", "value_id": "1"}]}`
	// The default limit holds without a sandbox: a burst of 100, then GCRA
	// refills one every 0.6 s, which a busy machine (the race run) reaches.
	start, allowed := time.Now(), 0
	for allowed <= 2*control.CompatPerMinute {
		r := a.Do("POST", "/catalog_compatibilities/products_search/count_family_products", body)
		if r.Status == 429 {
			refused(t, r)
			break
		}
		allowed++
	}
	if refill := int(time.Since(start)/(time.Minute/control.CompatPerMinute)) + 1; allowed < control.CompatPerMinute || allowed > control.CompatPerMinute+refill {
		t.Errorf("%d family counts allowed in %v, want %d and at most %d refilled", allowed, time.Since(start), control.CompatPerMinute, refill)
	}
}
