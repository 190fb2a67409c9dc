package migrations_test

import (
	"context"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/migrations"
	"github.com/feria/feria/test/testenv"
)

// Processes that start at once on an empty schema (two `feria serve` of one
// deployment) apply each migration once: one applies them all while the
// others wait on the advisory lock, then find nothing left. Each runs on a
// pool of its own, as a process does. Without the lock the second fails,
// on bun's lock row or on the tables being created beside it.
func TestConcurrentUp(t *testing.T) {
	url := testenv.PostgresEmptySchemaURL(t)
	ctx := context.Background()
	const processes = 4
	dbs := make([]*bun.DB, processes)
	for i := range dbs {
		db, err := sqlstore.OpenPostgres(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	applied := make([][]string, processes)
	errs := make([]error, processes)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			applied[i], errs[i] = migrations.Up(ctx, db)
		}()
	}
	close(start)
	wg.Wait()
	want := len(migrations.All.Sorted())
	seen := map[string]int{}
	for i := range dbs {
		if errs[i] != nil {
			t.Errorf("process %d: %v", i, errs[i])
		}
		for _, name := range applied[i] {
			seen[name]++
		}
	}
	if len(seen) != want {
		t.Errorf("%d migrations applied, want %d", len(seen), want)
	}
	for name, n := range seen {
		if n != 1 {
			t.Errorf("%s applied %d times", name, n)
		}
	}
	var rows int
	if err := dbs[0].NewRaw("SELECT count(*) FROM bun_migrations").Scan(ctx, &rows); err != nil || rows != want {
		t.Errorf("bun_migrations holds %d rows (%v), want %d", rows, err, want)
	}
	// A later start applies nothing and waits for nobody.
	if again, err := migrations.Up(ctx, dbs[1]); err != nil || len(again) != 0 {
		t.Errorf("a later Up: %v, %v; want nothing applied", again, err)
	}
}
