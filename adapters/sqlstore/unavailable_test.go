package sqlstore_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/test/testenv"
)

// through rewrites a PostgreSQL URL to go through addr.
func through(t *testing.T, raw, addr string) (string, string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	u.Host = addr
	return u.String(), target
}

// A database that goes away must answer 503, not 500, on every route.
// Every error of a lost connection, in a statement, a query's rows, a
// transaction or a new connection, is sqlstore.ErrUnavailable (503), for
// every store at once.
func TestOutageIsUnavailable(t *testing.T) {
	dsn, target := through(t, testenv.PostgresSchemaURL(t), "")
	p := testenv.NewProxy(t, target)
	dsn, _ = through(t, dsn, p.Addr())
	ctx := context.Background()
	db, err := sqlstore.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.NewRaw("SELECT count(*) FROM settings").Scan(ctx, &n); err != nil {
		t.Fatal(err)
	}
	// A transaction open when the server goes away.
	inTx := make(chan error)
	started := make(chan struct{})
	go func() {
		inTx <- sqlstore.Tx{DB: db}.RunInTx(ctx, func(ctx context.Context) error {
			if _, err := sqlstore.IDB(ctx, db).NewRaw("INSERT INTO settings (key, value) VALUES ('tx', '1')").Exec(ctx); err != nil {
				return err
			}
			close(started)
			time.Sleep(300 * time.Millisecond)
			_, err := sqlstore.IDB(ctx, db).NewRaw("INSERT INTO settings (key, value) VALUES ('tx2', '1')").Exec(ctx)
			return err
		})
	}()
	<-started
	p.Cut()
	checks := map[string]error{
		"transaction": <-inTx,
		"query":       db.NewRaw("SELECT count(*) FROM settings").Scan(ctx, &n),
		"exec":        func() error { _, err := db.NewRaw("DELETE FROM settings").Exec(ctx); return err }(),
		"ping":        db.PingContext(ctx),
		"new transaction": sqlstore.Tx{DB: db}.RunInTx(ctx, func(ctx context.Context) error {
			_, err := sqlstore.IDB(ctx, db).NewRaw("SELECT 1").Exec(ctx)
			return err
		}),
	}
	for name, err := range checks {
		if kernel.KindOf(err) != kernel.Unavailable || !errors.Is(err, sqlstore.ErrUnavailable) {
			t.Errorf("%s with the database gone: %v (kind %v); want sqlstore.ErrUnavailable", name, err, kernel.KindOf(err))
		}
	}
}

// After a restart the server has closed every pooled connection (SQLSTATE
// 57P01); none may be handed to a caller and fail it. Pooled connections
// the server closed are discarded before reuse: not one statement fails.
func TestTerminatedPoolConnectionsAreDiscarded(t *testing.T) {
	ctx := context.Background()
	u, err := url.Parse(testenv.PostgresSchemaURL(t))
	if err != nil {
		t.Fatal(err)
	}
	app := "feria_pool_" + strings.ReplaceAll(t.Name(), "/", "_")
	q := u.Query()
	q.Set("application_name", app)
	q.Set("pool_max_conns", "8")
	u.RawQuery = q.Encode()
	db, err := sqlstore.OpenPostgres(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const pooled = 8 // pool_max_conns
	// Fill the pool: pooled connections at once, then all idle.
	var wg sync.WaitGroup
	for i := 0; i < pooled; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := db.ExecContext(ctx, "SELECT pg_sleep(0.2)"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	admin, err := sqlstore.OpenPostgres(ctx, testenv.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var killed int
	if err := admin.NewRaw("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ?", app).Scan(ctx, &killed); err != nil {
		t.Fatal(err)
	}
	if killed < pooled {
		t.Fatalf("terminated %d backends; want the %d pooled ones", killed, pooled)
	}
	time.Sleep(100 * time.Millisecond) // the FATAL notices reach the client sockets
	failed := 0
	for i := 0; i < 2*pooled; i++ {
		var one int
		if err := db.NewRaw("SELECT 1").Scan(ctx, &one); err != nil {
			failed++
			t.Logf("statement %d: %v", i, err)
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d statements failed on connections the server had closed; want 0", failed, 2*pooled)
	}
}
