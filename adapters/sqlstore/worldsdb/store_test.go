package worldsdb_test

import (
	"testing"

	"github.com/feria/feria/adapters/sqlstore/worldsdb"
	"github.com/feria/feria/ports/worldsport/worldsporttest"
	"github.com/feria/feria/test/testenv"
)

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			worldsporttest.TestRegistry(t, worldsdb.New(open(t)))
		})
	}
}
