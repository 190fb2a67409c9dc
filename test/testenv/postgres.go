package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
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

// SQLite returns a migrated database in a file of the test's temp dir: a
// copy of the process's migrated file (sqliteTemplate), which migrate then
// finds current.
func SQLite(t testing.TB) *bun.DB {
	t.Helper()
	sqliteTemplate.once.Do(func() { sqliteTemplate.file, sqliteTemplate.err = migratedSQLite() })
	if sqliteTemplate.err != nil {
		t.Fatalf("testenv: sqlite: %v", sqliteTemplate.err)
	}
	path := filepath.Join(t.TempDir(), "feria.db")
	if err := os.WriteFile(path, sqliteTemplate.file, 0o644); err != nil {
		t.Fatalf("testenv: sqlite: %v", err)
	}
	db, err := sqlstore.OpenSQLite(ctx(t), path)
	if err != nil {
		t.Fatalf("testenv: sqlite: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	migrate(t, db)
	return db
}

// sqliteTemplate is a freshly migrated SQLite database file, made once a
// test process: running every migration again for each test's database was
// most of a small test's time under the race detector (SQLite's parser
// compiled from C is slow there), and the copy of a file costs nothing.
var sqliteTemplate struct {
	once sync.Once
	file []byte
	err  error
}

func migratedSQLite() ([]byte, error) {
	dir, err := os.MkdirTemp("", "feria-sqlite-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "feria.db")
	ctx := context.Background()
	db, err := sqlstore.OpenSQLite(ctx, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if _, err := migrations.Up(ctx, db); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	// Every page into the file itself, so that the file alone is the database.
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
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
