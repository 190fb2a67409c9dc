package brandsporttest_test

import (
	"testing"

	"github.com/feria/feria/ports/brandsport/brandsporttest"
)

// The fake of the use-case tests keeps the contract of the SQL stores.
func TestMemory(t *testing.T) {
	brandsporttest.TestStore(t, func(*testing.T) brandsporttest.Env { return brandsporttest.NewMemory().Env() })
}
