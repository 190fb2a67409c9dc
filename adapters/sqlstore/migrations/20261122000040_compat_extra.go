package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// What the compatibilities module keeps beside the shared compat schema: the
// order snapshots (with the index reputation counts read through), the ids of
// copy jobs already applied (so a retried copy copies nothing twice), and
// covering indexes (and the partial index of parents) that keep a family
// count over 100,000 products index-only.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE compat_snapshots (
				order_id BIGINT PRIMARY KEY,
				item_id TEXT NOT NULL,
				seller_id BIGINT NOT NULL,
				product_id TEXT NOT NULL,
				user_selection JSONB,
				status TEXT NOT NULL,
				compatibility_id TEXT NOT NULL,
				note TEXT NOT NULL,
				restrictions JSONB NOT NULL,
				compatibility_deleted BOOLEAN NOT NULL,
				date_created TIMESTAMPTZ NOT NULL,
				date_updated TIMESTAMPTZ NOT NULL
			)`,
			`CREATE INDEX compat_snapshots_compat ON compat_snapshots (compatibility_id, status)`,
			`CREATE TABLE compat_jobs (
				id TEXT PRIMARY KEY,
				done_at TIMESTAMPTZ NOT NULL
			)`,
			`CREATE INDEX product_attributes_family_id ON product_attributes (domain_id, attribute_id, value_id, product_id)`,
			`CREATE INDEX product_attributes_family_name ON product_attributes (domain_id, attribute_id, value_name, product_id)`,
			`CREATE INDEX products_children ON products (id) WHERE parent_id IS NOT NULL`,
			// The parents of a domain: what a family count subtracts.
			`CREATE INDEX products_parents ON products (domain_id, id) WHERE parent_id IS NULL`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP INDEX products_parents`, `DROP INDEX products_children`, `DROP INDEX product_attributes_family_name`,
			`DROP INDEX product_attributes_family_id`, `DROP TABLE compat_jobs`, `DROP TABLE compat_snapshots`)
	})
}
