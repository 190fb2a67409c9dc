package compatporttest_test

import (
	"testing"

	"github.com/feria/feria/ports/compatport/compatporttest"
)

// TestMemory runs the store contract against the in-memory fake, so that
// the use-case tests built on it stand on a store that behaves as the SQL
// ones do.
func TestMemory(t *testing.T) {
	compatporttest.TestStore(t, func(testing.TB) compatporttest.Env { return compatporttest.NewMemory().Env() })
}
