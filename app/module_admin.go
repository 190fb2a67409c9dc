package app

import (
	"github.com/gofiber/fiber/v2"
	"github.com/hibiken/asynq"

	"github.com/feria/feria/adapters/httpapi/adminapi"
)

// The operators' dashboard of the job queues (asynqmon at /admin/jobs,
// basic auth admin:ADMIN_KEY; off without ADMIN_KEY).
func init() {
	register(Module{
		Name: "admin",
		Routes: func(app *fiber.App, d *Deps) error {
			o := d.Redis.Options()
			adminapi.Routes(app, d.Config.AdminKey, asynq.RedisClientOpt{Addr: o.Addr, Username: o.Username,
				Password: o.Password, DB: o.DB, TLSConfig: o.TLSConfig})
			return nil
		},
	})
}
