package notifydb_test

import (
	"testing"

	"github.com/feria/feria/adapters/sqlstore/notifydb"
	"github.com/feria/feria/ports/notifyport"
	"github.com/feria/feria/ports/notifyport/notifyporttest"
	"github.com/feria/feria/test/testenv"
)

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			notifyporttest.TestNotifications(t, func(t testing.TB) notifyport.Notifications { return notifydb.New(open(t)) })
		})
	}
}
