// Package migrations holds feria's schema as bun migrations. Each module adds
// its own file; statements are written for PostgreSQL and translated for
// SQLite by Exec, so one migration runs on both databases. bun records a
// migration by the number its file name starts with (the words after it are
// a comment it does not store): a file may be renamed after its number,
// never renumbered.
package migrations

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/feria/feria/adapters/sqlstore"
)

// All is the ordered set of feria's migrations.
var All = migrate.NewMigrations()

// sqliteTypes maps the PostgreSQL types used by the migrations to SQLite's.
var sqliteTypes = strings.NewReplacer(
	"JSONB", "TEXT",
	"TIMESTAMPTZ", "TIMESTAMP",
	"BIGSERIAL PRIMARY KEY", "INTEGER PRIMARY KEY AUTOINCREMENT",
	"DOUBLE PRECISION", "REAL",
)

// Exec runs PostgreSQL DDL statements, translated when db is SQLite.
func Exec(ctx context.Context, db *bun.DB, statements ...string) error {
	pg := sqlstore.IsPostgres(db)
	for _, s := range statements {
		if !pg {
			s = sqliteTypes.Replace(s)
		}
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("migration: %w\n%s", err, s)
		}
	}
	return nil
}

// Up applies every pending migration, once however many processes start at
// the same moment (two `feria serve` of one deployment do).
//
// On PostgreSQL it holds a session-level advisory lock, keyed by the
// schema, around bun's migrator: a second process waits for the first and
// then finds nothing left to apply. bun's own lock (a row it inserts) is
// not used there: a second process fails on it instead of waiting, and a
// process killed while holding it leaves the row behind, which stops every
// later start; the advisory lock ends with its session. SQLite is one
// process's file (the embedded mode), where bun's lock is enough.
func Up(ctx context.Context, db *bun.DB) (applied []string, err error) {
	if !sqlstore.IsPostgres(db) {
		return up(ctx, db, true)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("migration lock: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock("+lockKey+")"); err != nil {
		return nil, fmt.Errorf("migration lock: %w", err)
	}
	// Unlocked even when ctx has ended; a connection that broke has ended
	// its session, and the lock with it.
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock("+lockKey+")") //nolint:errcheck // see above
	return up(ctx, db, false)
}

// lockKey is the advisory lock of the migrations of the connection's
// schema: deployments (and tests) in other schemas of the same database do
// not wait for each other.
const lockKey = "hashtextextended('feria:migrations:' || coalesce(current_schema(), ''), 0)"

func up(ctx context.Context, db *bun.DB, lockRow bool) (applied []string, err error) {
	m := migrate.NewMigrator(db, All)
	if err := m.Init(ctx); err != nil {
		return nil, fmt.Errorf("migration init: %w", err)
	}
	if lockRow {
		if err := m.Lock(ctx); err != nil {
			return nil, fmt.Errorf("migration lock: %w", err)
		}
		defer m.Unlock(ctx) //nolint:errcheck // a failed unlock leaves the row; the next Lock reports it
	}
	group, err := m.Migrate(ctx)
	if err != nil {
		return nil, err
	}
	for _, mg := range group.Migrations {
		applied = append(applied, mg.Name)
	}
	return applied, nil
}
