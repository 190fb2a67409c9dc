package controlapi_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/feria/feria/adapters/httpapi/controlapi"
	"github.com/feria/feria/docs"
	"github.com/feria/feria/test/apptest"
)

type coverage struct {
	Since      time.Time `json:"since"`
	Operations []struct {
		Method      string           `json:"method"`
		Path        string           `json:"path"`
		Area        string           `json:"area"`
		Calls       int64            `json:"calls"`
		Statuses    map[string]int64 `json:"statuses"`
		Faulted     int64            `json:"faulted"`
		RateLimited int64            `json:"rate_limited"`
	} `json:"operations"`
	Summary struct {
		Operations    int `json:"operations"`
		Called        int `json:"called"`
		WithErrorSeen int `json:"with_error_seen"`
	} `json:"summary"`
}

func coverageOf(t *testing.T, a *apptest.App) (coverage, map[string]string) {
	t.Helper()
	var c coverage
	a.Sandbox("GET", "/coverage", nil).JSON(t, &c)
	called := map[string]string{}
	for _, op := range c.Operations {
		if op.Calls > 0 {
			b, _ := json.Marshal(op)
			called[op.Method+" "+op.Path] = string(b)
		}
	}
	return c, called
}

// A known script of calls gives a known coverage: every operation of the
// contract listed in its order, the called ones with their statuses, the
// faulted and rate-limited answers marked, a path no route serves not
// counted, and a reset starting the counts afresh.
func TestCoverageOfAScript(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		a.Sandbox("PUT", "/rate_limits", `{"rules": [{"method": "GET", "path": "/categories/*/shipping_preferences", "per_minute": 1}]}`).OK(t, 200)
		fault(t, a, `{"method": "DELETE", "path": "/items/*/compatibilities", "status": 503, "times": 1}`)
		now := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
		a.Sandbox("PUT", "/clock", `{"now": "`+now.Format(time.RFC3339)+`"}`).OK(t, 200)

		a.Do("GET", "/items/MLA1100", nil).OK(t, 200)
		a.Do("HEAD", "/items/MLA1100", nil).OK(t, 200)
		a.Do("GET", "/items/MLA999999", nil).OK(t, 404)
		a.Do("DELETE", "/items/MLA1100/compatibilities", nil, apptest.Bearer("APP_USR-seller")...).OK(t, 503)
		a.Do("GET", "/categories/MLA1747/shipping_preferences", nil).OK(t, 200)
		a.Do("GET", "/categories/MLA1747/shipping_preferences", nil).OK(t, 429)
		a.Do("POST", "/no/such/path", "{}").OK(t, 404)

		c, called := coverageOf(t, a)
		want := map[string]string{
			"GET /items/{item_id}":                               `{"method":"GET","path":"/items/{item_id}","area":"items","calls":3,"statuses":{"200":2,"404":1},"faulted":0,"rate_limited":0}`,
			"DELETE /items/{item_id}/compatibilities":            `{"method":"DELETE","path":"/items/{item_id}/compatibilities","area":"compatibilities","calls":1,"statuses":{"503":1},"faulted":1,"rate_limited":0}`,
			"GET /categories/{category_id}/shipping_preferences": `{"method":"GET","path":"/categories/{category_id}/shipping_preferences","area":"shipping","calls":2,"statuses":{"200":1,"429":1},"faulted":0,"rate_limited":1}`,
		}
		if len(called) != len(want) {
			t.Errorf("called: %v", called)
		}
		for k, w := range want {
			if called[k] != w {
				t.Errorf("%s:\n got %s\nwant %s", k, called[k], w)
			}
		}
		ops, err := controlapi.Operations(docs.OpenAPI)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Operations) != len(ops) || c.Summary.Operations != len(ops) || c.Summary.Called != 3 || c.Summary.WithErrorSeen != 3 {
			t.Errorf("%d operations of %d, summary %+v", len(c.Operations), len(ops), c.Summary)
		}
		for i, op := range c.Operations {
			if i < len(ops) && (op.Method != ops[i].Method || op.Path != ops[i].Path || op.Area != ops[i].Area || op.Statuses == nil) {
				t.Errorf("operation %d: %+v, want %+v in the contract's order", i, op, ops[i])
			}
		}
		if !c.Since.Equal(now) {
			t.Errorf("since %v: before any reset, the first request counted, by the service clock (%v)", c.Since, now)
		}

		later := now.Add(48 * time.Hour)
		a.Sandbox("PUT", "/clock", `{"now": "`+later.Format(time.RFC3339)+`"}`).OK(t, 200)
		a.Sandbox("DELETE", "", nil).OK(t, 204)
		c, called = coverageOf(t, a)
		if len(called) != 0 || c.Summary.Called != 0 || !c.Since.Equal(later) {
			t.Errorf("after the reset: since %v, want the service clock %v; called %v", c.Since, later, called)
		}
	})
}
