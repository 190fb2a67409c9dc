package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/feria/feria/ports/sandboxport"
)

// Tables is the database as the sandbox reset sees it: every table of the
// schema but bun's migration bookkeeping and the registry of worlds (the
// instance's, not the default world's data).
type Tables struct{ db bun.IDB }

var _ sandboxport.Resetter = Tables{}

// NewTables returns the tables of db.
func NewTables(db bun.IDB) Tables { return Tables{db: db} }

// dataTables lists the tables of db's schema that hold data: every one
// but bun's migration bookkeeping and the registry of worlds.
func dataTables(ctx context.Context, db bun.IDB) ([]string, error) {
	var tables []string
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
	if IsPostgres(db) {
		q = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
	}
	if err := db.NewRaw(q).Scan(ctx, &tables); err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	keep := tables[:0]
	for _, name := range tables {
		if !strings.HasPrefix(name, "bun_migration") && name != "worlds" {
			keep = append(keep, name)
		}
	}
	return keep, nil
}

// Reset empties every table in one transaction. Hand-written SQL: listing
// and truncating tables has no bun model.
func (t Tables) Reset(ctx context.Context) error {
	keep, err := dataTables(ctx, t.db)
	if err != nil {
		return fmt.Errorf("sandbox reset: %w", err)
	}
	if len(keep) == 0 {
		return nil
	}
	return t.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if IsPostgres(t.db) {
			_, err := tx.ExecContext(ctx, "TRUNCATE "+strings.Join(keep, ", ")+" CASCADE")
			return err
		}
		if _, err := tx.ExecContext(ctx, "PRAGMA defer_foreign_keys = ON"); err != nil {
			return err
		}
		for _, name := range keep {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+name); err != nil {
				return err
			}
		}
		return nil
	})
}
