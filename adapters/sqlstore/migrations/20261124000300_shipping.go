package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// Shipping rate tables the sandbox puts, one row per site; a site without a
// row uses its default table (core/shipping), so the sandbox reset, which
// empties every table, returns every site to its default.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE shipping_rates (
				site_id TEXT PRIMARY KEY,
				currency_id TEXT NOT NULL,
				volumetric_divisor TEXT NOT NULL,
				weight_tiers JSONB NOT NULL,
				reputation_discounts JSONB NOT NULL
			)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE shipping_rates`)
	})
}
