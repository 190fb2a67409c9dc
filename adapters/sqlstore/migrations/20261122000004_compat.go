package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// Compatibilities between part items and vehicle products, and the per-item
// state beside them (universal, exception). Item reads compute the
// HAS_COMPATIBILITIES attribute and the compatibility tags from these tables.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE compatibilities (
				id TEXT PRIMARY KEY,
				item_id TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
				domain_id TEXT NOT NULL,
				product_id TEXT NOT NULL REFERENCES products (id),
				source TEXT NOT NULL,
				creation_source TEXT NOT NULL,
				note TEXT NOT NULL,
				note_status TEXT NOT NULL,
				restrictions JSONB NOT NULL,
				date_created TIMESTAMPTZ NOT NULL,
				last_updated TIMESTAMPTZ NOT NULL
			)`,
			// One compatibility per vehicle per item: the invariant copies and
			// re-sent creates rely on.
			`CREATE UNIQUE INDEX compatibilities_item_product ON compatibilities (item_id, product_id)`,
			`CREATE INDEX compatibilities_product ON compatibilities (product_id)`,
			`CREATE TABLE item_compat_state (
				item_id TEXT PRIMARY KEY REFERENCES items (id) ON DELETE CASCADE,
				universal BOOLEAN NOT NULL,
				universal_domain_ids JSONB NOT NULL,
				has_exception BOOLEAN NOT NULL,
				exception_comment TEXT NOT NULL,
				exception_date TIMESTAMPTZ
			)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE item_compat_state`, `DROP TABLE compatibilities`)
	})
}
