package clockdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/feria/feria/adapters/sqlstore/clockdb"
	"github.com/feria/feria/test/testenv"
)

// A frozen instant is shared through the database: a second process (a
// second Clock on the same database) sees it after Reload.
func TestClock(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := open(t)
			api, worker := clockdb.New(db), clockdb.New(db)
			if _, frozen := api.Frozen(); frozen || time.Since(api.Now()) > time.Second {
				t.Fatal("a new clock must run in real time")
			}
			at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.FixedZone("ART", -3*3600))
			if err := api.Freeze(ctx, &at); err != nil {
				t.Fatal(err)
			}
			if !api.Now().Equal(at) || api.Now().Location() != time.UTC {
				t.Fatalf("frozen now = %v", api.Now())
			}
			if err := worker.Reload(ctx); err != nil {
				t.Fatal(err)
			}
			if !worker.Now().Equal(at) {
				t.Fatalf("other process sees %v", worker.Now())
			}
			if err := api.Freeze(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if err := worker.Reload(ctx); err != nil {
				t.Fatal(err)
			}
			if _, frozen := worker.Frozen(); frozen {
				t.Fatal("released clock still frozen in the other process")
			}
		})
	}
}

// Times are cut to the microseconds the databases keep, so that an answer
// written with Now reads back the same.
func TestClockPrecision(t *testing.T) {
	c := clockdb.New(testenv.SQLite(t))
	if now := c.Now(); now.Nanosecond()%1000 != 0 {
		t.Fatalf("now %v has nanoseconds", now)
	}
	at := time.Date(2026, 11, 20, 12, 0, 0, 123456789, time.UTC)
	if err := c.Freeze(context.Background(), &at); err != nil {
		t.Fatal(err)
	}
	if got := c.Now(); got.Nanosecond() != 123456000 {
		t.Fatalf("frozen now %v", got)
	}
}
