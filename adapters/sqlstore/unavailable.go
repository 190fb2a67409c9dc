package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/feria/feria/core/kernel"
)

// ErrUnavailable is what every store returns while the database cannot be
// reached: the API answers 503 and a retry may work. It wraps the driver's
// error, which is logged, never shown.
var ErrUnavailable = kernel.E(kernel.Unavailable, "service_unavailable", "the database is unavailable, retry later")

// unavailable translates an error leaving the PostgreSQL driver: a failure
// of the connection (refused, reset, cut mid-answer, the server shutting
// down or starting up) becomes ErrUnavailable; anything else (a constraint,
// a syntax error) is returned as it is; a lost race is ErrBusy. driver.ErrBadConn is kept as it is:
// database/sql retries the call on another connection when it sees it.
func unavailable(err error) error {
	if err == nil || errors.Is(err, driver.ErrBadConn) || errors.Is(err, ErrUnavailable) {
		return err
	}
	if isConnectionError(err) {
		return ErrUnavailable.Wrap(err)
	}
	// A lost race (a deadlock, a serialization failure) is a 503 too where no
	// transaction runs it again (Tx.RunInTx does): a retry passes.
	if conflict(err) != "" {
		return ErrBusy.Wrap(err)
	}
	return err
}

func isConnectionError(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		code := pg.Code
		// Class 08: connection exception; 57P01..57P05: the server is shutting
		// down, crashed or not yet accepting; 53300: too many connections.
		return strings.HasPrefix(code, "08") || strings.HasPrefix(code, "57P") || code == "53300"
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, sql.ErrConnDone) || pgconn.Timeout(err)
}

// connector opens PostgreSQL connections whose every error passes through
// unavailable: the one place where a database outage becomes a 503, for
// every store of every module, inside transactions and out.
type connector struct{ driver.Connector }

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		// Nothing was sent: whatever kept the connection from opening (refused,
		// timed out, the server starting up or shutting down) is an outage.
		return nil, ErrUnavailable.Wrap(err)
	}
	return &conn{cn: cn.(*stdlib.Conn)}, nil
}

// conn is a pgx connection with its errors translated. It implements the
// same optional interfaces as stdlib.Conn, no more. runs counts the runs
// of each replanned read prepared on it (EachReplanned).
type conn struct {
	cn   *stdlib.Conn
	runs map[string]int
}

var (
	_ driver.Conn               = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
)

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.cn.PrepareContext(ctx, query)
	if err != nil {
		return nil, unavailable(err)
	}
	return stmt{s.(stmtContext)}, nil
}

func (c *conn) Close() error { return c.cn.Close() }

func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	t, err := c.cn.BeginTx(ctx, opts)
	if err != nil {
		return nil, unavailable(err)
	}
	return tx{t}, nil
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.cn.ExecContext(ctx, query, args)
	return r, unavailable(err)
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.cn.QueryContext(ctx, query, args)
	if err != nil {
		return nil, unavailable(err)
	}
	return rows{r}, nil
}

func (c *conn) Ping(ctx context.Context) error { return unavailable(c.cn.Ping(ctx)) }

// CheckNamedValue lets every argument through to pgx, as stdlib.Conn does:
// pgx encodes them, and Query passes its exec mode as one.
func (c *conn) CheckNamedValue(v *driver.NamedValue) error { return c.cn.CheckNamedValue(v) }

// ResetSession runs before a pooled connection is reused. One the server
// closed while it sat idle (a restart terminates every backend with
// SQLSTATE 57P01) is reported as driver.ErrBadConn, so that database/sql
// discards it and retries on a fresh connection instead of failing the
// caller's statement: without it, a restart answered one 500 per pooled
// connection.
func (c *conn) ResetSession(ctx context.Context) error {
	if err := c.cn.ResetSession(ctx); err != nil {
		return err
	}
	if !alive(ctx, c.cn) {
		c.cn.Close()
		return driver.ErrBadConn
	}
	return nil
}

type stmtContext interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

type stmt struct{ stmtContext }

func (s stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	r, err := s.stmtContext.ExecContext(ctx, args)
	return r, unavailable(err)
}

func (s stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	r, err := s.stmtContext.QueryContext(ctx, args)
	if err != nil {
		return nil, unavailable(err)
	}
	return rows{r}, nil
}

type tx struct{ driver.Tx }

func (t tx) Commit() error   { return unavailable(t.Tx.Commit()) }
func (t tx) Rollback() error { return unavailable(t.Tx.Rollback()) }

type rows struct{ driver.Rows }

func (r rows) Next(dest []driver.Value) error {
	err := r.Rows.Next(dest)
	if err == io.EOF { // the end of the rows, not of the connection
		return err
	}
	return unavailable(err)
}
