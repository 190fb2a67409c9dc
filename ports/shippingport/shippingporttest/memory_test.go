package shippingporttest_test

import (
	"testing"

	"github.com/feria/feria/ports/shippingport"
	"github.com/feria/feria/ports/shippingport/shippingporttest"
)

// The fake of the use-case tests keeps the contract of the SQL stores.
func TestMemory(t *testing.T) {
	shippingporttest.TestRates(t, func(*testing.T) shippingport.Rates { return shippingporttest.NewMemory() })
}
