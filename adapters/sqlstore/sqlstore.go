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
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"

	"github.com/feria/feria/core/kernel"
)

// OpenPostgres connects to PostgreSQL at dsn through pgx. Every error of the
// connection (unavailable.go) is ErrUnavailable, and idle connections the
// server closed are discarded before reuse.
//
// bun writes its arguments into the SQL text, so that each of its queries is
// a text of its own: those run unprepared (the simple protocol, one round
// trip, as pgdriver did), since preparing them would prepare a statement per id.
// The hot reads pass real arguments through Query and QueryRow instead,
// which pgx prepares once per connection and keeps in its statement cache
// (planning was three quarters of an item read).
func OpenPostgres(ctx context.Context, dsn string) (*bun.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	conns, err := poolSize(cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return openPostgres(ctx, cfg, conns)
}

func openPostgres(ctx context.Context, cfg *pgx.ConnConfig, conns int) (*bun.DB, error) {
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	// ResetSession's socket peek (alive) replaces pgx's ping of a connection
	// idle for a second: the same check without a round trip.
	noPing := stdlib.OptionShouldPing(func(context.Context, stdlib.ShouldPingParams) bool { return false })
	sqldb := sql.OpenDB(connector{stdlib.GetConnector(*cfg, noPing)})
	sqldb.SetMaxOpenConns(conns)
	sqldb.SetMaxIdleConns(conns)
	db := bun.NewDB(sqldb, pgdialect.New())
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return db, nil
}

// poolSize is the connections a process keeps to PostgreSQL: DATABASE_URL's
// pool_max_conns, or pgxpool's default, the greater of 4 and the process's
// cores. More connections than the database has cores to run them only
// queue inside PostgreSQL, its backends preempting one another: with 20 on
// two cores, bursts ran up to 20 backends at once and the item read's p99
// at half load was 30-190 ms, against 6-18 ms with 4 at the same saturated
// rate. The parameter is taken out of the settings pgx would
// send to the server, which knows no such setting.
func poolSize(cfg *pgx.ConnConfig) (int, error) {
	raw, ok := cfg.RuntimeParams["pool_max_conns"]
	if !ok {
		return max(4, runtime.NumCPU()), nil
	}
	delete(cfg.RuntimeParams, "pool_max_conns")
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("pool_max_conns: want a whole number of connections, 1 or more, got %q", raw)
	}
	return n, nil
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

// Outside returns the *bun.DB that db is when ctx carries no transaction:
// what is read through it is committed. The hot reads' fast paths (pgx's
// own rows, the compatdb caches) take it; inside a transaction they fall
// back to the ordinary read.
func Outside(ctx context.Context, db bun.IDB) (*bun.DB, bool) {
	d, ok := IDB(ctx, db).(*bun.DB)
	return d, ok
}

// Tx runs units of work in one database transaction: core's kernel.Tx.
// Log, when set, receives a line for every transaction run again (retry.go);
// nil is slog.Default().
type Tx struct {
	DB  bun.IDB
	Log *slog.Logger
}

var _ kernel.Tx = Tx{}

// RunInTx runs fn in a transaction carried by the context it receives; a
// nested call joins the outer one. The outermost call runs fn again, in a
// new transaction, when it lost a race with other writers (a deadlock, a
// serialization failure, SQLite's lock): fn must then be safe to run twice,
// which a unit of work that writes only through the transaction is, its
// first run rolled back. Past the bound the error is ErrBusy (a 503).
func (t Tx) RunInTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return fn(ctx)
	}
	log := t.Log
	if log == nil {
		log = slog.Default()
	}
	var hooks *commitHooks
	err := retrying(ctx, log, func() error {
		hooks = &commitHooks{} // a rolled-back attempt's are dropped
		return t.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return fn(context.WithValue(context.WithValue(ctx, txKey{}, tx), hooksKey{}, hooks))
		})
	})
	if err == nil {
		hooks.run()
	}
	// database/sql retries a bad connection outside a transaction only;
	// inside one it hands driver.ErrBadConn (or ErrConnDone) to the caller.
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		return ErrUnavailable.Wrap(err)
	}
	return err
}

type hooksKey struct{}

// commitHooks are what runs once a transaction committed.
type commitHooks struct {
	mu  sync.Mutex
	fns []func()
}

func (h *commitHooks) run() {
	h.mu.Lock()
	fns := h.fns
	h.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// AfterCommit runs fn once the transaction ctx carries (Tx.RunInTx) has
// committed, or now when ctx carries none: what tells others of a change
// (a cache dropped in every process) must not run before the change can
// be read, lest another reader keep the old rows. A rolled-back
// transaction never runs it.
func AfterCommit(ctx context.Context, fn func()) {
	h, ok := ctx.Value(hooksKey{}).(*commitHooks)
	if !ok {
		fn()
		return
	}
	h.mu.Lock()
	h.fns = append(h.fns, fn)
	h.mu.Unlock()
}

// IsNoRows reports whether err means "no such row".
func IsNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// IsUniqueViolation reports whether err is a unique-constraint violation on
// either database.
func IsUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505"
	}
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// IsPostgres reports whether db talks to PostgreSQL.
func IsPostgres(db bun.IDB) bool {
	_, ok := db.Dialect().(*pgdialect.Dialect)
	return ok
}

// querier is what Query needs of a *sql.DB, *sql.Tx or *sql.Conn.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// prepared holds the arguments of a hot read on db: on PostgreSQL they are
// led by pgx's mode, the statement cache (prepared once per connection and
// planned from its cached plan afterwards) or, for a replanned read, the
// described statement (planned for its arguments at every run).
func prepared(ctx context.Context, db bun.IDB, mode pgx.QueryExecMode, args []any) (querier, []any) {
	var q querier
	switch d := IDB(ctx, db).(type) {
	case *bun.DB:
		q = d.DB
	case bun.Tx:
		q = d.Tx
	case bun.Conn:
		q = d.Conn
	default:
		panic(fmt.Sprintf("sqlstore: no database/sql handle under %T", d))
	}
	if IsPostgres(db) {
		args = append([]any{mode}, args...)
	}
	return q, args
}

// Query runs a hand-written read with real arguments ($1, $2... on both
// databases), in the transaction ctx carries if any: the hot reads' path,
// prepared once per connection on PostgreSQL (OpenPostgres). Its errors are
// the driver's, translated like every other (unavailable.go).
func Query(ctx context.Context, db bun.IDB, query string, args ...any) (*sql.Rows, error) {
	q, args := prepared(ctx, db, pgx.QueryExecModeCacheStatement, args)
	return q.QueryContext(ctx, query, args...)
}

// QueryRow is Query for one row.
func QueryRow(ctx context.Context, db bun.IDB, query string, args ...any) *sql.Row {
	q, args := prepared(ctx, db, pgx.QueryExecModeCacheStatement, args)
	return q.QueryRowContext(ctx, query, args...)
}

// One runs a hot read (Query) and scans its first row into dest with bun's
// scanner (a model, or a struct of bun-tagged fields): sql.ErrNoRows when
// there is none.
func One(ctx context.Context, db bun.IDB, dest any, query string, args ...any) error {
	rows, err := Query(ctx, db, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := db.NewSelect().DB().ScanRow(ctx, rows, dest); err != nil {
		return err
	}
	return rows.Close()
}

// All runs a hot read (Query) and scans every row into dest, a pointer to
// a slice, with bun's scanner.
func All(ctx context.Context, db bun.IDB, dest any, query string, args ...any) error {
	rows, err := Query(ctx, db, query, args...)
	if err != nil {
		return err
	}
	return db.NewSelect().DB().ScanRows(ctx, rows, dest)
}
