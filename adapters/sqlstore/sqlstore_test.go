package sqlstore_test

import (
	"context"
	"errors"
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/migrations"
	"github.com/feria/feria/test/testenv"
)

// The same migrations, transactions and error translation on both databases.
func TestDatabases(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := open(t)
			ctx := context.Background()

			applied, err := migrations.Up(ctx, db)
			if err != nil || len(applied) != 0 {
				t.Fatalf("second Up = %v, %v; want nothing applied", applied, err)
			}

			tx := sqlstore.Tx{DB: db}
			boom := errors.New("boom")
			err = tx.RunInTx(ctx, func(ctx context.Context) error {
				if _, err := sqlstore.IDB(ctx, db).NewRaw("INSERT INTO settings (key, value) VALUES ('a', '1')").Exec(ctx); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatalf("RunInTx = %v", err)
			}
			var n int
			if err := db.NewRaw("SELECT count(*) FROM settings").Scan(ctx, &n); err != nil || n != 0 {
				t.Fatalf("rolled-back insert left %d rows (%v)", n, err)
			}

			insert := func() error {
				_, err := db.NewRaw("INSERT INTO settings (key, value) VALUES ('k', 'v')").Exec(ctx)
				return err
			}
			if err := insert(); err != nil {
				t.Fatal(err)
			}
			if err := insert(); !sqlstore.IsUniqueViolation(err) {
				t.Fatalf("duplicate key: %v; want a unique violation", err)
			}
			var v string
			err = db.NewRaw("SELECT value FROM settings WHERE key = 'missing'").Scan(ctx, &v)
			if !sqlstore.IsNoRows(err) {
				t.Fatalf("missing row: %v; want no rows", err)
			}
		})
	}
}

// TestTimeScansBothDrivers: the timestamp scanner of the hand-scanned hot
// reads reads what each database answers for the same stored instant.
func TestTimeScansBothDrivers(t *testing.T) {
	want := time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC)
	for _, src := range []any{want.In(time.FixedZone("ART", -3*3600)), "2026-01-02 03:04:05.123456+00:00",
		[]byte("2026-01-02 00:04:05.123456-03:00"), "2026-01-02T03:04:05.123456Z"} {
		var got sqlstore.Time
		if err := got.Scan(src); err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Fatalf("Scan(%v) = %v, %v", src, got.Time, err)
		}
	}
	var zero sqlstore.Time
	if err := zero.Scan(nil); err != nil || !zero.IsZero() {
		t.Fatalf("Scan(nil) = %v, %v", zero.Time, err)
	}
	for _, bad := range []any{"yesterday", 42} {
		if err := zero.Scan(bad); err == nil {
			t.Fatalf("Scan(%v) accepted", bad)
		}
	}
}

// DATABASE_URL's pool_max_conns sizes the pool and is not sent to the
// server (PostgreSQL refuses a setting it does not know); without it the
// pool is pgxpool's default; a size that is not a count is refused.
func TestPostgresPoolSize(t *testing.T) {
	ctx := context.Background()
	// with is the test server's URL with pool_max_conns set to size (left
	// out when size is nil).
	with := func(size *string) string {
		u, err := url.Parse(testenv.PostgresURL(t))
		if err != nil {
			t.Fatal(err)
		}
		if size != nil {
			q := u.Query()
			q.Set("pool_max_conns", *size)
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	three, twelve := "3", "12"
	for _, c := range []struct {
		size *string
		want int
	}{{nil, max(4, runtime.NumCPU())}, {&three, 3}, {&twelve, 12}} {
		db, err := sqlstore.OpenPostgres(ctx, with(c.size))
		if err != nil {
			t.Fatalf("%s: %v", with(c.size), err)
		}
		var one int
		err = db.NewRaw("SELECT 1").Scan(ctx, &one)
		got := db.DB.Stats().MaxOpenConnections
		db.Close()
		if err != nil || got != c.want {
			t.Fatalf("%s: SELECT 1 = %v; pool of %d, want %d", with(c.size), err, got, c.want)
		}
	}
	for _, bad := range []string{"0", "-2", "many", ""} {
		_, err := sqlstore.OpenPostgres(ctx, with(&bad))
		want := `postgres: pool_max_conns: want a whole number of connections, 1 or more, got "` + bad + `"`
		if err == nil || err.Error() != want {
			t.Fatalf("pool_max_conns=%s: %v, want %s", bad, err, want)
		}
	}
}
