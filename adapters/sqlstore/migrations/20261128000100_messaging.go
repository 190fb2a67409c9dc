package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// The messages of packs' after-sale conversations, the messaging module's
// one table. Deployments migrated before this file existed already hold it
// (20261122000030_fiscal created it then): hence IF NOT EXISTS, which makes
// this migration a no-op there and the table's creation on a new database.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE IF NOT EXISTS messages (
				id TEXT PRIMARY KEY,
				pack_id BIGINT NOT NULL,
				from_user_id BIGINT NOT NULL,
				to_user_id BIGINT NOT NULL,
				kind TEXT NOT NULL,
				text TEXT NOT NULL,
				date_created TIMESTAMPTZ NOT NULL
			)`,
			`CREATE INDEX IF NOT EXISTS messages_pack ON messages (pack_id, date_created, id)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE messages`)
	})
}
