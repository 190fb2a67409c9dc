package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// The sellers' private notes on their orders (the sales module), and the
// index of the orders search: a seller's or a buyer's orders by date.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE order_notes (
				id TEXT PRIMARY KEY,
				order_id BIGINT NOT NULL REFERENCES orders (id),
				note TEXT NOT NULL,
				date_created TIMESTAMPTZ NOT NULL,
				date_last_updated TIMESTAMPTZ NOT NULL
			)`,
			`CREATE INDEX order_notes_order ON order_notes (order_id, date_created)`,
			`CREATE INDEX orders_seller ON orders (seller_id, date_created, id)`,
			`CREATE INDEX orders_buyer ON orders (buyer_id, date_created, id)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE order_notes`, `DROP INDEX orders_seller`, `DROP INDEX orders_buyer`)
	})
}
