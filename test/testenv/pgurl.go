package testenv

import (
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/feria/feria/adapters/sqlstore"
)

// PostgresSchemaURL returns the DATABASE_URL of a migrated schema of the
// test's own (its search_path), emptied when the test ends for the next test
// of the process (pgpool.go): for tests that run feria as a separate process
// on the same database as the test.
func PostgresSchemaURL(t testing.TB) string {
	t.Helper()
	return takeSchema(t) // pgpool.go
}

// PostgresEmptySchemaURL is PostgresSchemaURL before any migration: for
// tests of the migrations themselves (several processes applying them at
// once).
func PostgresEmptySchemaURL(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t)
	admin, err := sqlstore.OpenPostgres(ctx(t), base)
	if err != nil {
		t.Fatalf("testenv: postgres at %s: %v."+howTo, base, err, "TEST_DATABASE_URL", base)
	}
	defer admin.Close()
	// Unique across the test processes of every run sharing the server.
	schema := fmt.Sprintf("u_%s_%d_%d", name(t), os.Getpid(), time.Now().UnixNano()%1_000_000_000)
	if _, err := admin.ExecContext(ctx(t), "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("testenv: create schema: %v", err)
	}
	t.Cleanup(func() {
		if admin, err := sqlstore.OpenPostgres(ctx(t), base); err == nil {
			admin.ExecContext(ctx(t), "DROP SCHEMA "+schema+" CASCADE") //nolint:errcheck // best effort
			admin.Close()
		}
	})
	return schemaURL(base, schema)
}

// schemaURL is base with schema as its search_path.
func schemaURL(base, schema string) string {
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema)
	// A commit returns without waiting for the disk's flush: what a test
	// reads back is the same (PostgreSQL applies the commit at once), only
	// a crash of this shared server could lose the last ones, and no test
	// crashes it (the fault tests stop servers of their own). A quarter of a
	// migration's time, and most of a small write's, was that wait.
	if !q.Has("synchronous_commit") {
		q.Set("synchronous_commit", "off")
	}
	u.RawQuery = q.Encode()
	return u.String()
}
