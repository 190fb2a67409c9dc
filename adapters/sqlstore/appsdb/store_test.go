package appsdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/feria/feria/adapters/sqlstore/appsdb"
	"github.com/feria/feria/ports/appsport/appsporttest"
	"github.com/feria/feria/test/testenv"
)

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			appsporttest.TestStore(t, func(t testing.TB) appsporttest.Env {
				db := open(t)
				return appsporttest.Env{Store: appsdb.New(db), AddUser: func(ctx context.Context, id int64) {
					if _, err := db.ExecContext(ctx, "INSERT INTO users (id, nickname, site_id, user_type, tags, messaging_allowed, date_created) VALUES (?, 'U', 'MLA', 'normal', '[]', TRUE, ?)", id, time.Now()); err != nil {
						t.Fatal(err)
					}
				}}
			})
		})
	}
}
