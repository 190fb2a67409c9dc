package shippingdb_test

import (
	"testing"

	"github.com/feria/feria/adapters/sqlstore/shippingdb"
	"github.com/feria/feria/ports/shippingport"
	"github.com/feria/feria/ports/shippingport/shippingporttest"
	"github.com/feria/feria/test/testenv"
)

// The rate store keeps the port's contract on PostgreSQL and on SQLite.
func TestRates(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			shippingporttest.TestRates(t, func(t *testing.T) shippingport.Rates { return shippingdb.New(open(t)) })
		})
	}
}
