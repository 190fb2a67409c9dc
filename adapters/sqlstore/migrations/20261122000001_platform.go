package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// The platform's own tables: the settings row of the sandbox clock, and the
// transactional outbox every module writes work-that-leaves-the-process to.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE settings (
				key TEXT PRIMARY KEY,
				value TEXT NOT NULL
			)`,
			`CREATE TABLE outbox (
				id TEXT PRIMARY KEY,
				task_type TEXT NOT NULL,
				payload TEXT NOT NULL,
				created_at TIMESTAMPTZ NOT NULL,
				relayed_at TIMESTAMPTZ
			)`,
			`CREATE INDEX outbox_pending ON outbox (created_at) WHERE relayed_at IS NULL`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE outbox`, `DROP TABLE settings`)
	})
}
