package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// The items a seller enabled local delivery ('flex') on. A row is the
// enablement: its primary key makes "already in flex" a conflict of the
// insert, not a read before the write.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE flex_items (
				item_id TEXT PRIMARY KEY REFERENCES items (id),
				enabled_at TIMESTAMPTZ NOT NULL
			)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE flex_items`)
	})
}
