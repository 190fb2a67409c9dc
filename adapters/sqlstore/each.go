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
// under load (a pack's fiscal documents): on PostgreSQL its statement is
// prepared anew on a connection every ReplanEvery runs there. A statement
// prepared once keeps the generic plan it settled on while the table was
// small, a sequential scan, until an ANALYZE of the table replaces it:
// under a load of writes that can be minutes, and behind the many tables
// of a thousand worlds longer, every read walking the whole table (1 ms
// over 10,000 documents, against 0.03 through the index). A fresh
// statement is planned against the table's size on disk, whatever its
// statistics say, so a stale plan serves at most ReplanEvery reads of a
// connection; planning every run instead, in the same round trip, halved
// what PostgreSQL serves of the read (pgbench: 10.1k against 22.8k a
// second). In a transaction, and on SQLite, it is Each planned at every
// run.
func EachReplanned(ctx context.Context, db bun.IDB, dest []any, fn func() error, query string, args ...any) error {
	return each(ctx, db, pgx.QueryExecModeCacheDescribe, dest, fn, query, args)
}

// ReplanEvery is how many runs of a replanned read a connection serves
// from one prepared statement: a new one costs two round trips and a
// plan, once in so many reads.
const ReplanEvery = 1000

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
		pc := cn.cn.Conn()
		if mode == pgx.QueryExecModeCacheDescribe {
			if err := cn.renew(ctx, query); err != nil {
				return unavailable(err)
			}
		}
		rows, err := pc.Query(ctx, query, append([]any{mode}, args...)...)
		if err != nil {
			cn.forget(query)
			return unavailable(err)
		}
		defer rows.Close()
		err = scanEach(rows, dest, fn)
		rows.Close() // pgx reports a failure of the rows' end on Close
		if err == nil {
			err = rows.Err()
		}
		if err != nil {
			cn.forget(query)
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

// renew prepares query on the connection, named by its text (pgx then runs
// it by name, whatever the mode), when it is not prepared there or has
// served ReplanEvery runs: the old statement is released first.
func (c *conn) renew(ctx context.Context, query string) error {
	pc := c.cn.Conn()
	n, ok := c.runs[query]
	if ok && n < ReplanEvery {
		c.runs[query] = n + 1
		return nil
	}
	if ok {
		delete(c.runs, query)
		if err := pc.Deallocate(ctx, query); err != nil {
			return err
		}
	}
	if _, err := pc.Prepare(ctx, query, query); err != nil {
		return err
	}
	if c.runs == nil {
		c.runs = map[string]int{}
	}
	c.runs[query] = 1
	return nil
}

// forget has a failed read prepared anew at its next run: whatever failed
// (the statement gone from the server, a schema that changed under it)
// is not met again by name.
func (c *conn) forget(query string) {
	if _, ok := c.runs[query]; ok {
		c.runs[query] = ReplanEvery
	}
}
