package testenv

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
)

// Migrating a schema takes PostgreSQL about a second (forty tables, their
// indexes and triggers), far more than most tests that use it. So a test
// process keeps the schemas its tests are done with, emptied, and gives them
// to its next tests: a test still starts on a migrated schema that no other
// test is using and that holds no row. A schema whose structure a test
// changed (a trigger it added, say) is dropped instead.
//
// The process holds a session lock on each schema it keeps, on one
// connection of its own; when it ends, however it ends, the lock goes with
// the connection, and the next test process (or make test at its end) drops
// the schemas whose lock is free.
var pgPool struct {
	mu   sync.Mutex
	base string
	hold *sql.Conn // the connection holding the locks
	// super: the server lets the tests' connections set
	// deadlock_timeout (a superuser's setting).
	super bool
	free  []pooled
}

type pooled struct {
	schema, url, shape string
}

// poolPrefix starts the name of every kept schema.
const poolPrefix = "u_pool_"

// lockOf is the session lock of a kept schema.
func lockOf(schema string) string {
	return fmt.Sprintf("hashtextextended('testenv:pool:%s', 0)", schema)
}

// takeSchema returns the URL of a migrated, empty schema of the test's own.
func takeSchema(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t)
	pgPool.mu.Lock()
	var p pooled
	if n := len(pgPool.free); n > 0 && pgPool.base == base {
		p, pgPool.free = pgPool.free[n-1], pgPool.free[:n-1]
	}
	pgPool.mu.Unlock()
	if p.schema == "" {
		p = newPooled(t, base)
	}
	t.Cleanup(func() { giveBack(base, p) })
	return p.url
}

// newPooled creates and migrates a schema, locked for this process.
func newPooled(t testing.TB, base string) pooled {
	t.Helper()
	c := ctx(t)
	hold := holder(t, base)
	schema := fmt.Sprintf("%s%d_%d", poolPrefix, os.Getpid(), time.Now().UnixNano()%1_000_000_000_000)
	if _, err := hold.ExecContext(c, "SELECT pg_advisory_lock("+lockOf(schema)+")"); err != nil {
		t.Fatalf("testenv: lock schema: %v", err)
	}
	if _, err := hold.ExecContext(c, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("testenv: create schema: %v", err)
	}
	u := schemaURL(base, schema)
	pgPool.mu.Lock()
	super := pgPool.super
	pgPool.mu.Unlock()
	if super {
		u = quickDeadlocks(u)
	}
	db, err := sqlstore.OpenPostgres(c, u)
	if err != nil {
		t.Fatalf("testenv: postgres: %v", err)
	}
	defer db.Close()
	migrate(t, db)
	shape, err := shapeOf(c, db)
	if err != nil {
		t.Fatalf("testenv: schema %s: %v", schema, err)
	}
	return pooled{schema: schema, url: u, shape: shape}
}

// holder returns the connection holding the process's locks, opened (and
// the schemas of ended processes dropped) on first use.
func holder(t testing.TB, base string) *sql.Conn {
	t.Helper()
	pgPool.mu.Lock()
	defer pgPool.mu.Unlock()
	if pgPool.hold != nil && pgPool.base == base {
		return pgPool.hold
	}
	c := ctx(t)
	admin, err := sqlstore.OpenPostgres(c, base)
	if err != nil {
		t.Fatalf("testenv: postgres at %s: %v."+howTo, base, err, "TEST_DATABASE_URL", base)
	}
	hold, err := admin.DB.Conn(context.Background())
	if err != nil {
		t.Fatalf("testenv: postgres: %v", err)
	}
	if err := sweep(c, hold); err != nil {
		t.Logf("testenv: dropping the schemas of ended test processes: %v", err)
	}
	var super bool
	if err := hold.QueryRowContext(c, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&super); err != nil {
		t.Logf("testenv: postgres: %v", err)
	}
	pgPool.hold, pgPool.base, pgPool.free, pgPool.super = hold, base, nil, super
	return hold
}

// quickDeadlocks is u with a deadlock_timeout of 50 ms: a transaction
// waiting on a lock looks for a deadlock after that long instead of the
// server's default second. The tests that race writers lose many races by
// deadlock on purpose (the transaction is run again); what they assert is
// the same, only each lost race is found sooner.
func quickDeadlocks(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := p.Query()
	if !q.Has("deadlock_timeout") {
		q.Set("deadlock_timeout", "50ms")
	}
	p.RawQuery = q.Encode()
	return p.String()
}

// giveBack empties a schema a test is done with and keeps it, or drops it
// when it cannot be brought back to what the migrations made.
func giveBack(base string, p pooled) {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := empty(c, p); err == nil {
		pgPool.mu.Lock()
		if pgPool.base == base {
			pgPool.free = append(pgPool.free, p)
			pgPool.mu.Unlock()
			return
		}
		pgPool.mu.Unlock()
	}
	pgPool.mu.Lock()
	defer pgPool.mu.Unlock()
	if pgPool.hold != nil {
		pgPool.hold.ExecContext(c, "DROP SCHEMA IF EXISTS "+p.schema+" CASCADE")      //nolint:errcheck // best effort; swept later
		pgPool.hold.ExecContext(c, "SELECT pg_advisory_unlock("+lockOf(p.schema)+")") //nolint:errcheck // ends with the process
	}
}

// empty deletes every row a test left (but the migrations' own records)
// and restarts the sequences, after checking that the structure is the
// migrations'.
func empty(c context.Context, p pooled) error {
	db, err := sqlstore.OpenPostgres(c, p.url)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	// A connection a test left in a transaction must not hold this up.
	if _, err := db.ExecContext(c, "SET lock_timeout = '2s'"); err != nil {
		return err
	}
	if shape, err := shapeOf(c, db); err != nil || shape != p.shape {
		return fmt.Errorf("schema changed: %v", err)
	}
	if err := dropWorlds(c, db, p.schema); err != nil {
		return err
	}
	var tables []string
	if err := db.NewRaw(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename NOT LIKE 'bun\_migration%'`).
		Scan(c, &tables); err != nil {
		return err
	}
	if len(tables) > 0 {
		probe := make([]string, len(tables))
		for i, tb := range tables {
			probe[i] = fmt.Sprintf("SELECT '%[1]s' WHERE EXISTS (SELECT 1 FROM %[1]s)", tb)
		}
		var full []string
		if err := db.NewRaw(strings.Join(probe, " UNION ALL ")).Scan(c, &full); err != nil {
			return err
		}
		if len(full) > 0 {
			if err := deleteRows(c, db, full); err != nil {
				return err
			}
		}
	}
	// Sequences a test used on rows it deleted itself.
	_, err = db.ExecContext(c, `SELECT setval(format('%I', sequencename), 1, false) FROM pg_sequences
		WHERE schemaname = current_schema() AND last_value IS NOT NULL`)
	return err
}

// dropWorlds drops the schemas of the worlds a test made in schema
// (sqlstore.Schema: "<schema>_world_<name>"), which its rows do not hold:
// the next test's world of the same name starts empty, as the world of a
// new schema does.
func dropWorlds(c context.Context, db *bun.DB, schema string) error {
	var worlds []string
	if err := db.NewRaw(`SELECT nspname FROM pg_namespace WHERE starts_with(nspname, ?)`, schema+"_world_").Scan(c, &worlds); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	for _, w := range worlds {
		if _, err := db.ExecContext(c, "DROP SCHEMA IF EXISTS "+w+" CASCADE"); err != nil {
			return err
		}
	}
	return nil
}

// deleteRows deletes the rows of tables, in one transaction where the
// foreign keys are not checked (session_replication_role, for a
// superuser: every row of the tables goes, so none is left dangling),
// else by TRUNCATE, which empties every table that references them too
// and is many times slower.
func deleteRows(c context.Context, db *bun.DB, tables []string) error {
	tx, err := db.BeginTx(c, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	if _, err := tx.ExecContext(c, "SET LOCAL session_replication_role = replica"); err == nil {
		for _, tb := range tables {
			if _, err := tx.ExecContext(c, "DELETE FROM "+tb); err != nil {
				return err
			}
		}
		return tx.Commit()
	}
	tx.Rollback() //nolint:errcheck // the transaction failed
	_, err = db.ExecContext(c, "TRUNCATE "+strings.Join(tables, ", ")+" CASCADE")
	return err
}

// shapeOf describes a schema's structure: its relations and columns,
// constraints, indexes, triggers and functions, and the migrations
// recorded.
func shapeOf(c context.Context, db *bun.DB) (string, error) {
	var shape string
	err := db.NewRaw(`SELECT md5(coalesce(string_agg(x, E'\n' ORDER BY x), '')) FROM (
		SELECT 'r ' || c.relname || ' ' || c.relkind::text || ' ' || coalesce((SELECT string_agg(a.attname || ' ' ||
			format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ',' ORDER BY a.attnum)
			FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '') AS x
			FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace
		UNION ALL SELECT 'k ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
			FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
		UNION ALL SELECT 'i ' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
			WHERE c.relnamespace = current_schema()::regnamespace
		UNION ALL SELECT 't ' || t.tgname || ' ' || t.tgenabled::text || ' ' || pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
			WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
		UNION ALL SELECT 'p ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc) FROM pg_proc p
			WHERE p.pronamespace = current_schema()::regnamespace
		UNION ALL SELECT 'm ' || count(*) FROM bun_migrations
	) s`).Scan(c, &shape)
	return shape, err
}

// sweep drops the kept schemas of test processes that ended (their lock is
// free).
func sweep(c context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(c, `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'u\_pool\_%'`)
	if err != nil {
		return err
	}
	var schemas []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		schemas = append(schemas, s)
	}
	rows.Close()
	for _, s := range schemas {
		// A world's schema (sqlstore.Schema: "<schema>_world_<name>") is
		// its kept schema's, and held by that schema's lock.
		owner, _, _ := strings.Cut(s, "_world_")
		var free bool
		if err := conn.QueryRowContext(c, "SELECT pg_try_advisory_lock("+lockOf(owner)+")").Scan(&free); err != nil {
			return err
		}
		if !free {
			continue
		}
		_, err := conn.ExecContext(c, "DROP SCHEMA IF EXISTS "+s+" CASCADE")
		conn.ExecContext(c, "SELECT pg_advisory_unlock("+lockOf(owner)+")") //nolint:errcheck // ends with the process
		if err != nil {
			return err
		}
	}
	return nil
}
