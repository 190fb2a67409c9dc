package compatdb_test

import (
	"testing"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/compatdb"
	"github.com/feria/feria/adapters/sqlstore/compatdb/compatdbtest"
	"github.com/feria/feria/ports/compatport/compatporttest"
	"github.com/feria/feria/test/testenv"
)

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			compatporttest.TestStore(t, func(t testing.TB) compatporttest.Env {
				db := open(t)
				return compatporttest.Env{Store: compatdb.New(db), Tx: sqlstore.Tx{DB: db}, Seed: compatdbtest.New(db)}
			})
		})
	}
}
