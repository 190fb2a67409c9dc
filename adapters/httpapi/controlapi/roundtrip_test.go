package controlapi_test

import (
	"testing"

	"github.com/feria/feria/test/apptest"
	"github.com/feria/feria/test/testenv"
)

// What the controls cost a public request in Redis round trips: with no
// rule matching, one pipeline (the journal's LPUSH+LTRIM and the
// coverage's HINCRBY), the rules being held; a matching limit adds its
// GCRA script, a matching fault its use (and its last use the notice of
// the rule's end); a change of the rules makes the next request read them
// again (one MULTI).
func TestRoundTrips(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		rt := &testenv.RoundTrips{}
		a.Deps.ControlsRedis.AddHook(rt)
		count := func(t *testing.T, path string, status, single, pipelines int64) {
			t.Helper()
			rt.Reset()
			a.Do("GET", path, nil).OK(t, int(status))
			if rt.Single.Load() != single || rt.Pipelines.Load() != pipelines {
				t.Errorf("GET %s: %d commands and %d pipelines, want %d and %d", path, rt.Single.Load(), rt.Pipelines.Load(), single, pipelines)
			}
		}
		a.Do("GET", "/items/MLA1100", nil).OK(t, 200) // the rules are read once
		count(t, "/items/MLA1100", 200, 0, 1)
		count(t, "/nothing/here", 404, 0, 1)
		count(t, "/health/live", 200, 0, 0)

		a.Sandbox("PUT", "/rate_limits", `{"rules": [{"method": "GET", "path": "/items/*", "per_minute": 1000}]}`).OK(t, 200)
		a.Do("GET", "/items/MLA1100", nil).OK(t, 200) // the rules read again; a first script call may load it
		count(t, "/items/MLA1100", 200, 1, 1)         // + the limit's script
		fault(t, a, `{"path": "/items/MLA1102", "status": 503, "times": 2}`)
		count(t, "/items/MLA1101", 200, 1, 2) // the rules read again in one MULTI
		a.Do("GET", "/items/MLA1102", nil).OK(t, 503)
		count(t, "/items/MLA1102", 503, 2, 1) // the fault's last use and its notice; the limit never runs
		count(t, "/items/MLA1101", 200, 1, 2) // the rules read again
	})
}
