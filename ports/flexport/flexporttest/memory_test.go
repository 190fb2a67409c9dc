package flexporttest_test

import (
	"testing"

	"github.com/feria/feria/ports/flexport/flexporttest"
)

// The fake of the use-case tests keeps the contract of the SQL stores.
func TestMemory(t *testing.T) {
	flexporttest.TestStore(t, func(*testing.T) flexporttest.Env { return flexporttest.NewMemory().Env() })
}
