package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// The users' notification feeds, the notify module's one table.
// Deployments migrated before this file existed already hold it
// (20261122000030_fiscal created it then): hence IF NOT EXISTS, which makes
// this migration a no-op there and the table's creation on a new database.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE IF NOT EXISTS notifications (
				id TEXT PRIMARY KEY,
				user_id BIGINT NOT NULL,
				kind TEXT NOT NULL,
				pack_id BIGINT NOT NULL,
				title TEXT NOT NULL,
				text TEXT NOT NULL,
				date_created TIMESTAMPTZ NOT NULL,
				mailed_at TIMESTAMPTZ
			)`,
			`CREATE INDEX IF NOT EXISTS notifications_user ON notifications (user_id, date_created, id)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE notifications`)
	})
}
