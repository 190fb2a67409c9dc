package appsporttest_test

import (
	"context"
	"testing"

	"github.com/feria/feria/ports/appsport/appsporttest"
)

func TestMemory(t *testing.T) {
	appsporttest.TestStore(t, func(testing.TB) appsporttest.Env {
		return appsporttest.Env{Store: appsporttest.NewMemory(), AddUser: func(context.Context, int64) {}}
	})
}
