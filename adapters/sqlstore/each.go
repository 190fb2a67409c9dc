package sqlstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"
)

// Each runs a hot read as Query does (prepared once per connection on
// PostgreSQL, in the transaction ctx carries if any) and, for each row,
// scans it into dest and calls fn: dest's pointers are reused from row to
// row, so fn copies what it keeps.
//
// On PostgreSQL outside a transaction the rows are pgx's own, scanned from
// the wire into dest: database/sql would first box every value into a
// driver.Value (two allocations per text column, one per timestamp; a
// 200-row list spent a fifth of its time there). In a
// transaction, and on SQLite, it is database/sql's Query and Scan. dest
// holds *string, *int64, *int, *bool or *Time.
func Each(ctx context.Context, db bun.IDB, dest []any, fn func() error, query string, args ...any) error {
	return each(ctx, db, pgx.QueryExecModeCacheStatement, dest, fn, query, args)
}

// EachReplanned is Each for a read of a table that starts empty and grows
// under load (a pack's fiscal documents): on PostgreSQL it is planned for
// its arguments at every run, in the same single round trip (pgx's
// described statement). A prepared statement would keep, on each
// connection, the generic plan it made while the table was small, a
// sequential scan, until an ANALYZE of the table replaces it: under a load
// of writes that can be minutes, and behind the many tables of a
// thousand worlds longer, every read walking the whole table (1 ms over
// 10,000 documents, against 0.03 through the index). Planning costs some
// 0.07 ms a read.
func EachReplanned(ctx context.Context, db bun.IDB, dest []any, fn func() error, query string, args ...any) error {
	return each(ctx, db, pgx.QueryExecModeCacheDescribe, dest, fn, query, args)
}

func each(ctx context.Context, db bun.IDB, mode pgx.QueryExecMode, dest []any, fn func() error, query string, args []any) error {
	if d, ok := Outside(ctx, db); ok && IsPostgres(db) {
		return eachPgx(ctx, d, mode, dest, fn, query, args)
	}
	q, args := prepared(ctx, db, mode, args)
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := scanEach(rows, dest, fn); err != nil {
		return err
	}
	return rows.Close()
}

// rowsOf is what Each needs of database/sql's rows and of pgx's.
type rowsOf interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

func scanEach(rows rowsOf, dest []any, fn func() error) error {
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if err := fn(); err != nil {
			return err
		}
	}
	return rows.Err()
}

func eachPgx(ctx context.Context, d *bun.DB, mode pgx.QueryExecMode, dest []any, fn func() error, query string, args []any) error {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(driverConn any) error {
		cn, ok := driverConn.(*conn)
		if !ok {
			return fmt.Errorf("sqlstore: a PostgreSQL connection of type %T", driverConn)
		}
		rows, err := cn.cn.Conn().Query(ctx, query, append([]any{mode}, args...)...)
		if err != nil {
			return unavailable(err)
		}
		defer rows.Close()
		err = scanEach(rows, dest, fn)
		rows.Close() // pgx reports a failure of the rows' end on Close
		if err == nil {
			err = rows.Err()
		}
		return unavailable(err)
	})
}

// ScanTimestamptz lets pgx scan a timestamp into a Time without a
// driver.Value between them.
func (t *Time) ScanTimestamptz(v pgtype.Timestamptz) error {
	t.Time = v.Time.UTC()
	return nil
}
