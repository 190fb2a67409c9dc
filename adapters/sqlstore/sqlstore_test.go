package sqlstore_test

import (
	"context"
	"errors"
	"testing"

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
