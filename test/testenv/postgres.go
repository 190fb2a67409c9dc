package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ory/dockertest/v3"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/migrations"
)

var postgres service

// PostgresURL is the address of the test PostgreSQL server.
func PostgresURL(t testing.TB) string {
	return postgres.get(t, "TEST_DATABASE_URL", os.Getenv("TEST_DATABASE_URL"), "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable",
		func(pool *dockertest.Pool) (string, error) {
			res, err := pool.Run("postgres", "15", []string{"POSTGRES_HOST_AUTH_METHOD=trust"})
			if err != nil {
				return "", err
			}
			res.Expire(600) //nolint:errcheck // best effort
			u := fmt.Sprintf("postgres://postgres@localhost:%s/postgres?sslmode=disable", res.GetPort("5432/tcp"))
			return u, pool.Retry(func() error {
				db, err := sqlstore.OpenPostgres(ctx(t), u)
				if err == nil {
					db.Close()
				}
				return err
			})
		})
}

// Postgres returns a migrated database in a schema of its own, without a
// row (PostgresSchemaURL).
func Postgres(t testing.TB) *bun.DB {
	t.Helper()
	db, err := sqlstore.OpenPostgres(ctx(t), PostgresSchemaURL(t))
	if err != nil {
		t.Fatalf("testenv: postgres: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// SQLite returns a migrated database in a file of the test's temp dir.
func SQLite(t testing.TB) *bun.DB {
	t.Helper()
	db, err := sqlstore.OpenSQLite(ctx(t), filepath.Join(t.TempDir(), "feria.db"))
	if err != nil {
		t.Fatalf("testenv: sqlite: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	migrate(t, db)
	return db
}

// Databases names every database adapter, for contract suites that must run
// against each of them.
func Databases() map[string]func(testing.TB) *bun.DB {
	return map[string]func(testing.TB) *bun.DB{"postgres": Postgres, "sqlite": SQLite}
}

func migrate(t testing.TB, db *bun.DB) {
	t.Helper()
	if _, err := migrations.Up(ctx(t), db); err != nil {
		t.Fatalf("testenv: migrate: %v", err)
	}
}
