package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// The registry of worlds (core/worlds). It is read in the default world's
// database only; a world's own schema holds it empty, since every schema
// runs the same migrations.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE worlds (
				name TEXT PRIMARY KEY,
				sandbox_key TEXT NOT NULL,
				created_at TIMESTAMPTZ NOT NULL,
				last_used_at TIMESTAMPTZ NOT NULL
			)`,
			`CREATE INDEX worlds_last_used ON worlds (last_used_at)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE worlds`)
	})
}
