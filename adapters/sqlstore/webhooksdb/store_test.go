package webhooksdb_test

import (
	"testing"

	"github.com/feria/feria/adapters/sqlstore/webhooksdb"
	"github.com/feria/feria/ports/webhooksport"
	"github.com/feria/feria/ports/webhooksport/webhooksporttest"
	"github.com/feria/feria/test/testenv"
)

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			webhooksporttest.TestStore(t, func(t testing.TB) webhooksport.Store { return webhooksdb.New(open(t)) })
		})
	}
}
