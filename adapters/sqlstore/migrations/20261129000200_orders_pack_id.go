package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// A pack's orders by id from one index. Every fiscal upload, list and
// download reads a pack's first order (WHERE pack = $1 ORDER BY id LIMIT
// 1): with an index of the pack alone, a plan made while the table had no
// statistics yet (a freshly loaded store, or a prepared statement's plan
// kept by its connection) walked the primary key and filtered, 3.6 ms over
// 25,000 orders where this index answers in 0.06.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE INDEX orders_pack_id ON orders (pack, id)`,
			`DROP INDEX orders_pack`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `CREATE INDEX orders_pack ON orders (pack)`, `DROP INDEX orders_pack_id`)
	})
}
