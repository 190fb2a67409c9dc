package migrations_test

import (
	"context"
	"slices"
	"testing"

	"github.com/feria/feria/adapters/sqlstore/migrations"
	"github.com/feria/feria/test/testenv"
)

// The messaging and notify tables were first created by the fiscal
// migration. A deployment migrated then holds them, rows and all, without
// the records of the migrations that create them now: those migrations run
// there, leave the tables and their rows as they were, and are recorded.
func TestMovedTablesOnAnEarlierDeployment(t *testing.T) {
	moved := []string{"20261128000100", "20261128000200"}
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			ctx := context.Background()
			for _, q := range []string{
				`INSERT INTO messages (id, pack_id, from_user_id, to_user_id, kind, text, date_created) VALUES ('m1', 1, 10, 20, 'k', 'x', '2026-11-20 12:00:00')`,
				`INSERT INTO notifications (id, user_id, kind, pack_id, title, text, date_created) VALUES ('n1', 20, 'k', 1, 't', 'x', '2026-11-20 12:00:00')`,
			} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			// The earlier deployment: the tables are there, the records
			// of their migrations are not.
			if _, err := db.NewDelete().Table("bun_migrations").Where("name IN (?, ?)", moved[0], moved[1]).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			applied, err := migrations.Up(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(applied)
			if !slices.Equal(applied, moved) {
				t.Errorf("applied %v, want %v", applied, moved)
			}
			for _, table := range []string{"messages", "notifications"} {
				var n int
				if err := db.NewRaw("SELECT count(*) FROM "+table).Scan(ctx, &n); err != nil || n != 1 {
					t.Errorf("%s holds %d rows (%v), want its 1", table, n, err)
				}
			}
		})
	}
}
