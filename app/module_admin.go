package app

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi/adminapi"
	"github.com/feria/feria/adapters/jobqueue"
	"github.com/feria/feria/workers/tasks"
)

// The operators' dashboard of the job queues (asynqmon at /admin/jobs,
// basic auth admin:ADMIN_KEY; off without ADMIN_KEY).
func init() {
	register(Module{
		Name: "admin",
		Routes: func(app *fiber.App, d *Deps) error {
			// asynq learns a queue's name from its first task; recording
			// feria's queues now lets the dashboard show them on a fresh
			// install. A failure only hides empty queues: logged, not fatal.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			names := make([]string, 0, len(tasks.Queues))
			for q := range tasks.Queues {
				names = append(names, q)
			}
			slices.Sort(names)
			if err := jobqueue.RegisterQueues(ctx, d.Redis, names...); err != nil {
				d.Log.Warn("job queues not registered; the dashboard lists them after their first job", slog.Any("err", err))
			}
			adminapi.Routes(app, d.Config.AdminKey, asynqRedis(d.Redis.Options()))
			return nil
		},
	})
}
