package accountdb_test

import (
	"testing"

	"github.com/feria/feria/adapters/sqlstore/accountdb"
	"github.com/feria/feria/ports/accountport/accountporttest"
	"github.com/feria/feria/test/testenv"
)

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			accountporttest.TestStore(t, func(t testing.TB) accountporttest.Store { return accountdb.New(open(t)) })
		})
	}
}
