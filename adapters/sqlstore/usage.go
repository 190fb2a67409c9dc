package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// Usage measures what db's schema holds (a world's quota): its rows and
// their bytes, in every table the sandbox reset empties, so that an empty
// or reset database holds none of either. The bytes are the rows' as the
// database stores them, indexes aside: PostgreSQL's pg_column_size of each
// row, SQLite's payload of its tables' pages (dbstat). Hand-written SQL: a
// measure of every table has no bun model. It reads every row, which the
// quota bounds, so callers keep its answer a while.
func Usage(ctx context.Context, db bun.IDB) (rows, bytes int64, err error) {
	tables, err := dataTables(ctx, db)
	if err != nil || len(tables) == 0 {
		return 0, 0, err
	}
	parts := make([]string, len(tables))
	if IsPostgres(db) {
		for i, t := range tables {
			parts[i] = `SELECT count(*) AS n, coalesce(sum(pg_column_size(x.*)), 0) AS b FROM "` + t + `" x`
		}
		err = db.NewRaw("SELECT coalesce(sum(n), 0)::bigint, coalesce(sum(b), 0)::bigint FROM ("+
			strings.Join(parts, " UNION ALL ")+") s").Scan(ctx, &rows, &bytes)
	} else {
		names := make([]string, len(tables))
		for i, t := range tables {
			parts[i] = `(SELECT count(*) FROM "` + t + `")`
			names[i] = "'" + t + "'"
		}
		err = db.NewRaw("SELECT "+strings.Join(parts, " + ")+
			", (SELECT coalesce(sum(payload), 0) FROM dbstat WHERE name IN ("+strings.Join(names, ", ")+"))").Scan(ctx, &rows, &bytes)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("usage: %w", err)
	}
	return rows, bytes, nil
}
