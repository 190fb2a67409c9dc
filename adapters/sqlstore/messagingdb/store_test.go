package messagingdb_test

import (
	"testing"

	"github.com/feria/feria/adapters/sqlstore/messagingdb"
	"github.com/feria/feria/ports/messagingport"
	"github.com/feria/feria/ports/messagingport/messagingporttest"
	"github.com/feria/feria/test/testenv"
)

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			messagingporttest.TestMessages(t, func(t testing.TB) messagingport.Messages { return messagingdb.New(open(t)) })
			messagingporttest.TestReadsAndAttachments(t, func(t testing.TB) messagingporttest.Store { return messagingdb.New(open(t)) })
		})
	}
}
