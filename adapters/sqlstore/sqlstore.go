// Package sqlstore opens feria's relational database (PostgreSQL, or SQLite in
// the embedded mode) through bun, runs its migrations, and carries the current
// transaction in the context so that repositories of several modules can take
// part in one unit of work.
package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"
)

// OpenPostgres connects to PostgreSQL at dsn. Every error of the connection
// (unavailable.go) is ErrUnavailable, and idle connections the server closed
// are discarded before reuse.
func OpenPostgres(ctx context.Context, dsn string) (*bun.DB, error) {
	sqldb := sql.OpenDB(connector{pgdriver.NewConnector(pgdriver.WithDSN(dsn))})
	sqldb.SetMaxOpenConns(20)
	sqldb.SetMaxIdleConns(20)
	db := bun.NewDB(sqldb, pgdialect.New())
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return db, nil
}

// OpenSQLite opens (creating if needed) the SQLite database file at path.
func OpenSQLite(ctx context.Context, path string) (*bun.DB, error) {
	if path != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: %w", err)
		}
	}
	// WAL lets readers run beside the single writer; busy_timeout makes a
	// second writer wait instead of failing at once; foreign keys are off by
	// default in SQLite.
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_txlock=immediate"
	sqldb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	// One connection serialises writers inside the process, which is what
	// SQLite wants; it also keeps an in-memory database alive and shared.
	sqldb.SetMaxOpenConns(1)
	db := bun.NewDB(sqldb, sqlitedialect.New())
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	return db, nil
}

type txKey struct{}

// IDB returns the transaction carried by ctx, or db itself outside one, so
// that one repository method works inside and outside RunInTx.
func IDB(ctx context.Context, db bun.IDB) bun.IDB {
	if tx, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return tx
	}
	return db
}

// Tx runs units of work in one database transaction.
type Tx struct{ DB bun.IDB }

// RunInTx runs fn in a transaction carried by the context it receives; a
// nested call joins the outer transaction.
func (t Tx) RunInTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return fn(ctx)
	}
	err := t.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return fn(context.WithValue(ctx, txKey{}, tx))
	})
	// database/sql retries a bad connection outside a transaction only;
	// inside one it hands driver.ErrBadConn (or ErrConnDone) to the caller.
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		return ErrUnavailable.Wrap(err)
	}
	return err
}

// IsNoRows reports whether err means "no such row".
func IsNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// IsUniqueViolation reports whether err is a unique-constraint violation on
// either database.
func IsUniqueViolation(err error) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('C') == "23505"
	}
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// IsPostgres reports whether db talks to PostgreSQL.
func IsPostgres(db bun.IDB) bool {
	_, ok := db.Dialect().(*pgdialect.Dialect)
	return ok
}
