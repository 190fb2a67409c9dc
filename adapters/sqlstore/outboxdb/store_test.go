package outboxdb_test

import (
	"testing"

	"github.com/feria/feria/adapters/sqlstore/outboxdb"
	"github.com/feria/feria/ports/outboxport/outboxporttest"
	"github.com/feria/feria/test/testenv"
)

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			outboxporttest.TestStore(t, func(t testing.TB) outboxporttest.Store { return outboxdb.New(open(t)) })
		})
	}
}
