package salesdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/feria/feria/adapters/sqlstore/salesdb"
	"github.com/feria/feria/ports/salesport/salesporttest"
	"github.com/feria/feria/test/testenv"
)

func TestOrders(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			salesporttest.TestOrders(t, func(t *testing.T) salesporttest.Env {
				db := open(t)
				return salesporttest.Env{Orders: salesdb.New(db), Notes: salesdb.NewNotes(db), AddUser: func(ctx context.Context, id int64) {
					if _, err := db.ExecContext(ctx, "INSERT INTO users (id, nickname, site_id, user_type, tags, messaging_allowed, date_created) VALUES (?, 'U', 'MLA', 'normal', '[]', TRUE, ?)", id, time.Now()); err != nil {
						t.Fatal(err)
					}
				}}
			})
		})
	}
}
