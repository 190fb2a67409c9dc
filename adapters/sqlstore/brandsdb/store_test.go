package brandsdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/feria/feria/adapters/sqlstore/brandsdb"
	"github.com/feria/feria/ports/brandsport/brandsporttest"
	"github.com/feria/feria/test/testenv"
)

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			brandsporttest.TestStore(t, func(t *testing.T) brandsporttest.Env {
				db := open(t)
				return brandsporttest.Env{Store: brandsdb.New(db), AddUser: func(ctx context.Context, id int64) {
					if _, err := db.ExecContext(ctx, "INSERT INTO users (id, nickname, site_id, user_type, tags, messaging_allowed, date_created) VALUES (?, 'U', 'MLA', 'brand', '[]', TRUE, ?)", id, time.Now()); err != nil {
						t.Fatal(err)
					}
				}}
			})
		})
	}
}
