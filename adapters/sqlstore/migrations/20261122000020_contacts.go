package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// Buyers' questions on items, in the seller's inbox. Their counts live in
// Redis (contact statistics); this table is the inbox itself.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE questions (
				id BIGSERIAL PRIMARY KEY,
				item_id TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
				seller_id BIGINT NOT NULL REFERENCES users (id),
				from_id BIGINT NOT NULL REFERENCES users (id),
				text TEXT NOT NULL,
				status TEXT NOT NULL,
				date_created TIMESTAMPTZ NOT NULL
			)`,
			// The seller's inbox of one item, newest first.
			`CREATE INDEX questions_seller_item ON questions (seller_id, item_id, id)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE questions`)
	})
}
