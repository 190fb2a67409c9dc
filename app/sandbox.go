package app

import (
	"context"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi/accountapi"
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/adapters/jobqueue"
)

// mountSandbox serves /sandbox with every module's collections. A reset
// empties the database, then what lives beside it: stored files, queued jobs
// and each module's own keys.
func mountSandbox(app *fiber.App, d *Deps) {
	var collections []sandboxapi.Collection
	resets := []func(context.Context) error{
		func(ctx context.Context) error { return d.Blobs.DeleteAll(ctx) },
		func(context.Context) error {
			if err := jobqueue.Purge(d.Inspect); err != nil {
				return fmt.Errorf("sandbox reset: %w", err)
			}
			return nil
		},
	}
	for _, m := range modules {
		if m.Sandbox != nil {
			collections = append(collections, m.Sandbox(d)...)
		}
		if m.Reset != nil {
			reset := m.Reset
			resets = append(resets, func(ctx context.Context) error { return reset(ctx, d) })
		}
	}
	sandboxapi.Mount(app, sandboxapi.Config{
		Key: d.Config.SandboxKey, Collections: collections, Resets: resets,
		DB: d.DB, Tx: d.Tx, Clock: d.Clock,
		Extra: func(r fiber.Router) { accountapi.SandboxRoutes(r, d.Accounts) },
	})
}
