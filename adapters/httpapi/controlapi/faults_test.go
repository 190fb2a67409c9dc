package controlapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
)

// fault posts a rule and returns its id.
func fault(t *testing.T, a *apptest.App, rule string) int64 {
	t.Helper()
	r := a.Sandbox("POST", "/faults", rule)
	var f struct {
		ID int64 `json:"id"`
	}
	r.HasStatus(t, 201)
	r.JSON(t, &f)
	return f.ID
}

func TestFaultRules(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		// Every field, as docs/sandbox.md shows it; then every field omitted.
		a.Sandbox("POST", "/faults", `{"method": "GET", "path": "/items/*/compatibilities", "status": 503,
			"error": "service_unavailable", "message": "try again", "latency_ms": 0, "probability": 1.0, "times": 3, "retry_after": 1}`).
			Is(t, 201, `{"id": 1, "method": "GET", "path": "/items/*/compatibilities", "status": 503, "error": "service_unavailable",
				"message": "try again", "latency_ms": 0, "probability": 1, "times": 3, "retry_after": 1, "used": 0}`)
		a.Sandbox("POST", "/faults", `{"path": "/items/*"}`).
			Is(t, 201, `{"id": 2, "method": null, "path": "/items/*", "status": 0, "error": "", "message": "", "latency_ms": 0,
				"probability": 1, "times": null, "retry_after": 1, "used": 0}`)
		a.Sandbox("POST", "/faults", `{"method": "post", "path": "/questions", "status": 502, "latency_ms": 25, "probability": 0.5, "retry_after": 7}`).
			Is(t, 201, `{"id": 3, "method": "POST", "path": "/questions", "status": 502, "error": "bad_gateway", "message": "Bad Gateway",
				"latency_ms": 25, "probability": 0.5, "times": null, "retry_after": 7, "used": 0}`)

		a.Sandbox("GET", "/faults", nil).Is(t, 200, `{"faults": [
			{"id": 1, "method": "GET", "path": "/items/*/compatibilities", "status": 503, "error": "service_unavailable", "message": "try again", "latency_ms": 0, "probability": 1, "times": 3, "retry_after": 1, "used": 0},
			{"id": 2, "method": null, "path": "/items/*", "status": 0, "error": "", "message": "", "latency_ms": 0, "probability": 1, "times": null, "retry_after": 1, "used": 0},
			{"id": 3, "method": "POST", "path": "/questions", "status": 502, "error": "bad_gateway", "message": "Bad Gateway", "latency_ms": 25, "probability": 0.5, "times": null, "retry_after": 7, "used": 0}]}`)
		a.Sandbox("GET", "/faults/2", nil).Is(t, 200, `{"id": 2, "method": null, "path": "/items/*", "status": 0, "error": "", "message": "", "latency_ms": 0, "probability": 1, "times": null, "retry_after": 1, "used": 0}`)

		a.Sandbox("DELETE", "/faults/2", nil).OK(t, 204)
		a.Sandbox("DELETE", "/faults/2", nil).Is(t, 404, apptest.Err(404, "not_found", "fault rule 2 not found"))
		a.Sandbox("GET", "/faults/2", nil).Is(t, 404, apptest.Err(404, "not_found", "fault rule 2 not found"))
		a.Sandbox("DELETE", "/faults/x", nil).Is(t, 400, apptest.Err(400, "bad_request", `id must be a positive integer, got "x"`, "id", "id must be a positive integer"))
		if r := a.Sandbox("GET", "/faults", nil); strings.Count(string(r.Body), `"id"`) != 2 {
			t.Errorf("after deleting one: %s", r.Body)
		}
		a.Sandbox("DELETE", "/faults", nil).OK(t, 204)
		a.Sandbox("GET", "/faults", nil).Is(t, 200, `{"faults": []}`)
		// Ids keep growing: a deleted rule's id never names another.
		if id := fault(t, a, `{"path": "/x"}`); id != 4 {
			t.Errorf("next id %d, want 4", id)
		}

		bad := []struct{ body, want string }{
			{`{}`, apptest.Err(400, "bad_request", "path is required: a path such as /items/*/compatibilities", "path", "path is required: a path such as /items/*/compatibilities")},
			{`{"path": "items"}`, apptest.Err(400, "bad_request", `path must start with /, got "items"`, "path", `path must start with /, got "items"`)},
			{`{"path": "/a", "status": 200}`, apptest.Err(400, "bad_request", "status must be 0 (answer normally after the delay) or an error status 400..599, got 200", "status", "status must be 0 (answer normally after the delay) or an error status 400..599, got 200")},
			{`{"path": "/a", "probability": 2, "times": 0}`, apptest.Err(400, "bad_request", "probability must be between 0 and 1, got 2",
				"probability", "probability must be between 0 and 1, got 2", "times", "times must be a positive integer or null (never expires), got 0")},
			{`{"path": "/a", "latency_ms": -5}`, apptest.Err(400, "bad_request", "latency_ms must be 0..30000, got -5", "latency_ms", "latency_ms must be 0..30000, got -5")},
			{`{"path": "/a", "retry_after": -1}`, apptest.Err(400, "bad_request", "retry_after must be 0..86400 seconds, got -1", "retry_after", "retry_after must be 0..86400 seconds, got -1")},
			{`{"path": "/a", "method": "GE T"}`, apptest.Err(400, "bad_request", `method must be an HTTP method such as GET, or null for any, got "GE T"`, "method", `method must be an HTTP method such as GET, or null for any, got "GE T"`)},
			{`{"path": "/a", "times": "3"}`, apptest.Err(400, "bad_request", "field times must be an integer, got string", "times", "times must be an integer")},
			{`[]`, apptest.Err(400, "bad_request", "field body must be an object, got array", "body", "body must be an object")},
			{``, apptest.Err(400, "bad_request", "request body is empty", "body", "a JSON body is required")},
		}
		for _, c := range bad {
			a.Sandbox("POST", "/faults", c.body).Is(t, 400, c.want)
		}
		a.Sandbox("GET", "/faults", nil).Is(t, 200, `{"faults": [{"id": 4, "method": null, "path": "/x", "status": 0, "error": "", "message": "", "latency_ms": 0, "probability": 1, "times": null, "retry_after": 1, "used": 0}]}`)
		a.Do("GET", "/sandbox/faults", nil).Is(t, 401, apptest.Err(401, "unauthorized", "missing or wrong X-Sandbox-Key header"))
	})
}

// A fault answers in the error shape of the route the request would have
// reached: (a), (b) on brands, (c) on contacts, (a) where no route serves.
func TestFaultShapes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		fault(t, a, `{"path": "/items/*", "status": 503, "error": "service_unavailable", "message": "try again"}`)
		fault(t, a, `{"path": "/users/*/brands/*", "status": 500, "error": "boom", "message": "brands are down"}`)
		fault(t, a, `{"method": "GET", "path": "/items/*/contacts/questions", "status": 504, "error": "timeout", "message": "too slow"}`)
		fault(t, a, `{"path": "/nothing/*", "status": 418, "message": "a teapot"}`)
		fault(t, a, `{"path": "/compats-snapshots/orders/*", "status": 429, "error": "too_many_requests", "message": "slow down", "retry_after": 7}`)

		r := a.Do("GET", "/items/MLA1100", nil)
		r.Is(t, 503, `{"message": "try again", "error": "service_unavailable", "status": 503, "cause": []}`)
		if h := r.Header.Get("Retry-After"); h != "" {
			t.Errorf("Retry-After %q on a 503 fault", h)
		}
		a.Do("GET", "/users/123/brands/5001", nil, apptest.Bearer("APP_USR-seller")...).
			Is(t, 500, `{"error": "boom", "message": "brands are down", "status": 500}`)
		a.Do("GET", "/items/MLA1100/contacts/questions?date_from=2026-11-01&date_to=2026-11-02", nil).
			Is(t, 504, `{"code": "timeout", "message": "too slow"}`)
		a.Do("POST", "/items/MLA1100/contacts/questions", nil).Is(t, 404, // a method the rule does not name
			apptest.Err(404, "not_found", "resource POST /items/MLA1100/contacts/questions not found"))
		a.Do("GET", "/nothing/here", nil).Is(t, 418, `{"message": "a teapot", "error": "im_a_teapot", "status": 418, "cause": []}`)
		r = a.Do("GET", "/compats-snapshots/orders/1", nil)
		r.Is(t, 429, `{"message": "slow down", "error": "too_many_requests", "status": 429, "cause": []}`)
		if h := r.Header.Get("Retry-After"); h != "7" {
			t.Errorf("Retry-After %q, want 7", h)
		}
		// Unmatched paths are answered by their routes.
		a.Do("GET", "/users/123/brands", nil).Is(t, 401, `{"error": "unauthorized", "message": "access token required", "status": 401}`)
		a.Do("GET", "/items/MLA1100/compatibilities", nil).OK(t, 403)
	})
}

// times: the rule answers that many requests and leaves the list; probability
// 0 never answers (and is never used up), 1 always.
func TestFaultTimesAndProbability(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		id := fault(t, a, `{"method": "GET", "path": "/items/*", "status": 503, "times": 2}`)
		never := fault(t, a, `{"path": "/users/*/items/search", "status": 500, "probability": 0, "times": 1}`)
		always := fault(t, a, `{"path": "/categories/*/shipping_preferences", "status": 502, "probability": 1}`)
		for i := range 2 {
			a.Do("GET", "/items/MLA1100", nil).Is(t, 503, apptest.Err(503, "service_unavailable", "Service Unavailable"))
			var f struct {
				Used int `json:"used"`
			}
			if i == 0 {
				a.Sandbox("GET", fmt.Sprintf("/faults/%d", id), nil).JSON(t, &f)
				if f.Used != 1 {
					t.Errorf("used %d after one answer", f.Used)
				}
			}
		}
		a.Do("GET", "/items/MLA1100", nil).OK(t, 200)
		a.Sandbox("GET", fmt.Sprintf("/faults/%d", id), nil).Is(t, 404, apptest.Err(404, "not_found", fmt.Sprintf("fault rule %d not found", id)))

		for range 10 {
			a.Do("GET", "/users/123/items/search", nil, apptest.Bearer("APP_USR-seller")...).OK(t, 200)
			a.Do("GET", "/categories/MLA1747/shipping_preferences", nil).Is(t, 502, apptest.Err(502, "bad_gateway", "Bad Gateway"))
		}
		var list struct {
			Faults []struct {
				ID   int64 `json:"id"`
				Used int   `json:"used"`
			} `json:"faults"`
		}
		a.Sandbox("GET", "/faults", nil).JSON(t, &list)
		if len(list.Faults) != 2 || list.Faults[0].ID != never || list.Faults[0].Used != 0 || list.Faults[1].ID != always || list.Faults[1].Used != 10 {
			t.Errorf("faults after 10 requests each: %+v", list.Faults)
		}

		// The metric counts each rule's answers.
		metrics := string(a.Do("GET", "/metrics", nil).Body)
		for _, want := range []string{
			fmt.Sprintf(`feria_sandbox_faults_total{fault_id="%d",method="GET",path="/items/*",status="503"} 2`, id),
			fmt.Sprintf(`feria_sandbox_faults_total{fault_id="%d",method="any",path="/categories/*/shipping_preferences",status="502"} 10`, always),
		} {
			if !strings.Contains(metrics, want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
		if strings.Contains(metrics, fmt.Sprintf(`fault_id="%d"`, never)) {
			t.Errorf("/metrics counts the rule of probability 0")
		}
	})
}

// latency_ms delays the answer: with status 0 the route then answers as
// usual; with a status the fault answers after the delay. The journal shows
// the delay in duration_ms.
func TestFaultLatency(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		const ms = 300
		fault(t, a, fmt.Sprintf(`{"method": "GET", "path": "/items/MLA1100", "latency_ms": %d}`, ms))
		fault(t, a, fmt.Sprintf(`{"method": "GET", "path": "/items/MLA1101", "latency_ms": %d, "status": 503}`, ms))
		for _, c := range []struct {
			path   string
			status int
		}{{"/items/MLA1100", 200}, {"/items/MLA1101", 503}} {
			start := time.Now()
			a.Do("GET", c.path, nil).OK(t, c.status)
			if d := time.Since(start); d < ms*time.Millisecond {
				t.Errorf("%s answered after %v, before the %d ms delay", c.path, d, ms)
			}
			var j struct {
				Requests []struct {
					DurationMS float64 `json:"duration_ms"`
					FaultID    *int64  `json:"fault_id"`
				} `json:"requests"`
			}
			a.Sandbox("GET", "/requests?limit=1&path="+c.path, nil).JSON(t, &j)
			if len(j.Requests) != 1 || j.Requests[0].DurationMS < ms || j.Requests[0].FaultID == nil {
				t.Errorf("journal of %s: %+v", c.path, j.Requests)
			}
		}
		a.Do("GET", "/items/MLA1102", nil).OK(t, 200)
	})
}

// Rules never apply to /sandbox, /health, /metrics, /admin, /openapi.* or
// /docs, even when they name them or match them with *.
func TestFaultExclusions(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		for _, p := range []string{"/sandbox/faults", "/sandbox/*", "/health/live", "/health/*", "/metrics", "/*", "/admin/*", "/openapi.json", "/docs"} {
			fault(t, a, fmt.Sprintf(`{"path": %q, "status": 503}`, p))
		}
		a.Sandbox("GET", "/faults", nil).OK(t, 200)
		a.Sandbox("GET", "/clock", nil).OK(t, 200)
		a.Do("GET", "/health/live", nil).Is(t, 200, `{"status": "ok"}`)
		a.Do("GET", "/health/ready", nil).OK(t, 200)
		a.Do("GET", "/metrics", nil).HasStatus(t, 200)
		for _, p := range []string{"/openapi.json", "/openapi.yaml", "/docs"} {
			a.Do("GET", p, nil).HasStatus(t, 200)
		}
		a.Do("GET", "/admin/jobs/", nil).OK(t, 401)
		// The public API is still faulted by /*.
		a.Do("GET", "/anything", nil).Is(t, 503, apptest.Err(503, "service_unavailable", "Service Unavailable"))
		// And none of the excluded requests is in the journal.
		var j struct {
			Requests []struct {
				Path string `json:"path"`
			} `json:"requests"`
		}
		a.Sandbox("GET", "/requests", nil).JSON(t, &j)
		if b, _ := json.Marshal(j.Requests); string(b) != `[{"path":"/anything"}]` {
			t.Errorf("journal: %s", b)
		}
	})
}

// A fault rule is applied before rate limits: a faulted request is not
// counted by the limit.
func TestFaultBeforeRateLimit(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		a.Sandbox("PUT", "/rate_limits", `{"rules": [{"method": "GET", "path": "/items/*", "per_minute": 1}]}`).OK(t, 200)
		fault(t, a, `{"path": "/items/*", "status": 503, "times": 2}`)
		a.Do("GET", "/items/MLA1100", nil).OK(t, 503)
		a.Do("GET", "/items/MLA1100", nil).OK(t, 503)
		a.Do("GET", "/items/MLA1100", nil).OK(t, 200)
		a.Do("GET", "/items/MLA1100", nil).OK(t, 429)
		// A delay-only rule lets the request on to the limit.
		fault(t, a, `{"path": "/items/*", "latency_ms": 1}`)
		a.Do("GET", "/items/MLA1100", nil).OK(t, 429)
	})
}
