package visitsapi_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/feria/feria/core/visits"
	"github.com/feria/feria/test/apptest"
	"github.com/feria/feria/test/testenv"
)

func mla1Total(t *testing.T, a *apptest.App) int {
	t.Helper()
	var v []struct {
		TotalVisits int `json:"total_visits"`
	}
	r := a.Do("GET", "/items/visits?ids=MLA1&date_from=2026-11-01&date_to=2026-11-30", nil)
	r.JSON(t, &v)
	r.HasStatus(t, 200)
	return v[0].TotalVisits
}

func TestVisitEvents(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		// The same ids again, and one new: only the new one counts.
		a.Sandbox("POST", "/visit_events", map[string]any{"events": []map[string]string{
			{"id": "v1", "item_id": "MLA1", "date": "2026-11-19T23:30:00Z"},
			{"id": "v9", "item_id": "MLA1", "date": "2026-11-20T01:00:00Z"},
			{"id": "v9", "item_id": "MLA1", "date": "2026-11-20T01:00:00Z"},
		}}).Is(t, 200, `{"accepted":1,"duplicates":2}`)
		if n := mla1Total(t, a); n != 4 {
			t.Errorf("MLA1 visits = %d, want 4", n)
		}
		// A contact event of the same id is another count: visits have their own.
		a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]string{
			{"id": "v1", "item_id": "MLA1", "type": "question", "date": "2026-11-19T23:30:00Z"},
		}}).Is(t, 200, `{"accepted":1,"duplicates":0}`)
		a.Sandbox("PUT", "/visit_events/v10", map[string]string{"item_id": "MLA1", "date": "2026-11-20T02:00:00Z"}).Is(t, 200,
			`{"id":"v10","item_id":"MLA1","date":"2026-11-20T02:00:00Z","duplicate":false}`)
		a.Sandbox("PUT", "/visit_events/v10", map[string]string{"item_id": "MLA1", "date": "2026-11-20T02:00:00Z"}).Is(t, 200,
			`{"id":"v10","item_id":"MLA1","date":"2026-11-20T02:00:00Z","duplicate":true}`)
		a.Sandbox("GET", "/visit_events/v3", nil).Is(t, 200, `{"id":"v3","item_id":"MLA1","date":"2026-11-20T13:15:07Z"}`)
		if n := mla1Total(t, a); n != 5 {
			t.Errorf("MLA1 visits = %d, want 5", n)
		}

		bad := func(msg, field, cause string) string { return apptest.Err(400, "bad_request", msg, field, cause) }
		for _, c := range []struct {
			method, path string
			body         any
			status       int
			want         string
		}{
			{"POST", "/visit_events", map[string]any{"events": []map[string]string{
				{"id": "n1", "item_id": "MLA1", "date": "2026-11-20T01:00:00Z"}, {"id": "n2", "item_id": "MLA404", "date": "2026-11-20T01:00:00Z"}}},
				404, apptest.Err(404, "not_found", "item MLA404 not found")},
			{"POST", "/visit_events", map[string]any{"events": []map[string]string{{"id": "n1", "item_id": "MLA1", "date": "later"}}},
				400, bad(`events[0].date: date "later" is not an ISO 8601 date-time such as 2026-11-20T00:00:00Z or 2026-11-20T00:00:00-03:00`,
					"events[0].date", `date "later" is not an ISO 8601 date-time such as 2026-11-20T00:00:00Z or 2026-11-20T00:00:00-03:00`)},
			{"POST", "/visit_events", map[string]any{"events": []map[string]string{{"item_id": "MLA1", "date": "2026-11-20"}}},
				400, bad("events[0].id: id is required: a non-empty string", "events[0].id", "id is required: a non-empty string")},
			{"POST", "/visit_events", map[string]any{"events": []map[string]string{{"id": "n1", "item_id": "X", "date": "2026-11-20"}}},
				400, bad(`events[0].item_id: item_id "X" cannot be decoded: a site id followed by digits, e.g. MLA1100`, "events[0].item_id", `item_id "X" cannot be decoded: a site id followed by digits, e.g. MLA1100`)},
			{"POST", "/visit_events", map[string]any{"events": []any{5}},
				400, bad("events[0] must be an object with string id, item_id and date", "events[0]", "must be an object of strings")},
			{"POST", "/visit_events", map[string]any{},
				400, bad("events is required: an array of visits", "events", "events is required")},
			{"POST", "/visit_events", map[string]any{"events": make([]map[string]string, visits.MaxBatch+1)},
				400, bad("events holds 1001 events; at most 1000 are allowed per call", "events", "at most 1000 events per call")},
			{"PUT", "/visit_events/a", map[string]string{"id": "b", "item_id": "MLA1", "date": "2026-11-20"},
				400, bad(`id "b" in the body differs from the id "a" of the path`, "id", "id differs from the path")},
			{"GET", "/visit_events/none", nil, 404, apptest.Err(404, "not_found", `visit event "none" not found`)},
		} {
			a.Sandbox(c.method, c.path, c.body).Is(t, c.status, c.want)
		}
		if n := mla1Total(t, a); n != 5 {
			t.Errorf("MLA1 visits after refused batches = %d, want 5", n)
		}
		// A reset forgets every visit.
		a.Sandbox("DELETE", "", nil).HasStatus(t, 204)
		a.Sandbox("GET", "/visit_events/v3", nil).Is(t, 404, apptest.Err(404, "not_found", `visit event "v3" not found`))
	})
}

// A request is one Redis round trip whatever its window or ids; an item
// found once is marked known, and its reads ask no database.
func TestVisitsOneRedisRoundTrip(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		rc := &testenv.RoundTrips{}
		a.Deps.Redis.AddHook(rc)
		queries := &queryCount{}
		a.Deps.DB.AddQueryHook(queries)
		ids := make([]string, visits.MaxIDs)
		for i := range ids {
			ids[i] = fmt.Sprint("MLA", i%3+1)
		}
		items := []string{
			"/items/visits?date_from=2026-06-23T12:30:00Z&date_to=2026-11-20T12:30:00Z&ids=" + strings.Join(ids, ","),
			"/items/MLA1/visits/time_window?unit=day&last=150",
			"/items/MLA2/visits/time_window?unit=hour&last=3600",
		}
		users := []string{
			"/users/7/items_visits?date_from=2026-06-23T12:30:00Z&date_to=2026-11-20T12:30:00Z",
			"/users/7/items_visits/time_window?unit=hour&last=3600",
		}
		for _, path := range append(items, users...) {
			a.Do("GET", path, nil, seller7...).HasStatus(t, 200) // marks the items known
			rc.Reset()
			queries.n.Store(0)
			a.Do("GET", path, nil, seller7...).HasStatus(t, 200)
			if rc.Single.Load() != 0 || rc.Pipelines.Load() != 1 {
				t.Errorf("%s: %d single commands and %d pipelines, want one pipeline", path, rc.Single.Load(), rc.Pipelines.Load())
			}
			if n := queries.n.Load(); n != 0 && !strings.HasPrefix(path, "/users/") {
				t.Errorf("%s: %d database queries, want none", path, n)
			}
		}
		events := make([]map[string]string, visits.MaxBatch)
		for i := range events {
			events[i] = map[string]string{"id": fmt.Sprint("rt-", i), "item_id": ids[i%len(ids)], "date": "2026-11-20T10:00:00Z"}
		}
		rc.Reset()
		a.Sandbox("POST", "/visit_events", map[string]any{"events": events}).Is(t, 200, `{"accepted":1000,"duplicates":0}`)
		if rc.Single.Load() != 1 || rc.Pipelines.Load() != 0 {
			t.Errorf("a batch of 1000 visits: %d single commands and %d pipelines, want one script call", rc.Single.Load(), rc.Pipelines.Load())
		}
	})
}

// queryCount is a bun hook counting the queries sent to the database.
type queryCount struct{ n atomic.Int64 }

func (q *queryCount) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	q.n.Add(1)
	return ctx
}

func (*queryCount) AfterQuery(context.Context, *bun.QueryEvent) {}
