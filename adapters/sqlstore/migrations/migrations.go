// Package migrations holds feria's schema as bun migrations. Each module adds
// its own file; statements are written for PostgreSQL and translated for
// SQLite by Exec, so one migration runs on both databases.
package migrations

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/migrate"
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
	_, pg := db.Dialect().(*pgdialect.Dialect)
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

// Up applies every pending migration.
func Up(ctx context.Context, db *bun.DB) (applied []string, err error) {
	m := migrate.NewMigrator(db, All)
	if err := m.Init(ctx); err != nil {
		return nil, fmt.Errorf("migration init: %w", err)
	}
	if err := m.Lock(ctx); err != nil {
		return nil, fmt.Errorf("migration lock: %w", err)
	}
	defer m.Unlock(ctx) //nolint:errcheck // the lock row is removed on the next run otherwise
	group, err := m.Migrate(ctx)
	if err != nil {
		return nil, err
	}
	for _, mg := range group.Migrations {
		applied = append(applied, mg.Name)
	}
	return applied, nil
}
