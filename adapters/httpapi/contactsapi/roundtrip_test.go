package contactsapi_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/test/apptest"
	"github.com/feria/feria/test/testenv"
)

// A whole request is one Redis round trip whatever its window: the service
// never loops over buckets, days or ids. Once an item or user has been
// found in the database (the first read marks it known in Redis), its reads
// are Redis only: no database query.
func TestOneRedisRoundTripPerRequest(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		rc := &testenv.RoundTrips{}
		a.Deps.Redis.AddHook(rc)
		queries := &queryCount{}
		a.Deps.DB.AddQueryHook(queries)
		ids := make([]string, contacts.MaxIDs)
		for i := range ids {
			ids[i] = []string{"MLA1", "MLA2", "MLA3"}[i%3]
		}
		for _, path := range []string{
			"/items/contacts/phone_views/time_window?unit=day&last=30&ids=MLA1,MLA2,MLA3",
			"/items/MLA1/contacts/questions/time_window?unit=day&last=366&ids=" + strings.Join(ids, ","),
			"/users/7/contacts/msgapp/time_window?unit=hour&last=744",
			"/items/MLA1/contacts/phone_views?date_from=2025-11-20T12:30:00Z&date_to=2026-11-21T12:30:00Z",
			"/users/7/contacts/questions?date_from=2025-11-20T12:30:00Z&date_to=2026-11-21T12:30:00Z",
		} {
			// The first read asks the database and marks the subjects
			// known (a second Redis round trip, once).
			queries.n.Store(0)
			a.Do("GET", path, nil).HasStatus(t, 200)
			if strings.HasPrefix(path, "/items/contacts/") && queries.n.Load() == 0 { // the first path: nothing marked yet
				t.Errorf("%s: the first read of unmarked items asked no database", path)
			}
			rc.Reset()
			queries.n.Store(0)
			a.Do("GET", path, nil).HasStatus(t, 200)
			if rc.Single.Load() != 0 || rc.Pipelines.Load() != 1 {
				t.Errorf("%s: %d single commands and %d pipelines, want one pipeline", path, rc.Single.Load(), rc.Pipelines.Load())
			}
			if n := queries.n.Load(); n != 0 {
				t.Errorf("%s: %d database queries, want none", path, n)
			}
		}
		events := make([]map[string]string, 1000)
		for i := range events {
			events[i] = map[string]string{"id": fmt.Sprint("rt-", i), "item_id": ids[i%50], "type": "msgapp", "date": "2026-11-20T10:00:00Z"}
		}
		rc.Single.Store(0)
		rc.Pipelines.Store(0)
		a.Sandbox("POST", "/contact_events", map[string]any{"events": events}).Is(t, 200, `{"accepted":1000,"duplicates":0}`)
		if rc.Single.Load() != 1 || rc.Pipelines.Load() != 0 {
			t.Errorf("a batch of 1000 events: %d single commands and %d pipelines, want one script call", rc.Single.Load(), rc.Pipelines.Load())
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
