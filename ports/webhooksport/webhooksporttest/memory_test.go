package webhooksporttest_test

import (
	"testing"

	"github.com/feria/feria/ports/webhooksport"
	"github.com/feria/feria/ports/webhooksport/webhooksporttest"
)

func TestMemory(t *testing.T) {
	webhooksporttest.TestStore(t, func(testing.TB) webhooksport.Store { return webhooksporttest.NewMemory() })
}
