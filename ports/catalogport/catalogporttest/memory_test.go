package catalogporttest_test

import (
	"testing"

	"github.com/feria/feria/ports/catalogport/catalogporttest"
)

// The fake of the use-case tests keeps the contract of the SQL stores.
func TestMemory(t *testing.T) {
	catalogporttest.TestStore(t, func(*testing.T) catalogporttest.Env { return catalogporttest.NewMemory().Env() })
}
