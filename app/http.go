package app

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/kernel"
)

// MaxBodySize caps every request body; fiber refuses a larger one before
// reading it whole. Fiscal uploads (two files of at most 1 MB plus the
// multipart framing) are the largest legitimate bodies.
const MaxBodySize = 4 << 20

// NewHTTP builds the fiber app with every module's routes.
func NewHTTP(d *Deps) (*fiber.App, error) {
	onError := httpapi.ErrorHandler(d.Log)
	app := fiber.New(fiber.Config{
		AppName:               "feria",
		BodyLimit:             MaxBodySize,
		ErrorHandler:          onError,
		DisableStartupMessage: true,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          60 * time.Second,
		IdleTimeout:           120 * time.Second,
	})
	app.Use(httpapi.RequestIDs())
	app.Use(httpapi.AccessLog(d.Log, httpapi.NewMetrics(d.Registry), onError))
	app.Use(httpapi.Recover(d.Log))

	app.Get("/health/live", func(c *fiber.Ctx) error { return c.JSON(fiber.Map{"status": "ok"}) })
	app.Get("/health/ready", ready(d))
	app.Get("/metrics", adaptor.HTTPHandler(promhttp.HandlerFor(d.Registry, promhttp.HandlerOpts{})))

	if d.Config.SandboxKey != "" {
		mountSandbox(app, d)
	}
	for _, m := range modules {
		if m.Routes != nil {
			if err := m.Routes(app, d); err != nil {
				return nil, err
			}
		}
	}
	app.Use(httpapi.NotFound)
	return app, nil
}

// ready checks every backing service and names the ones that are down.
func ready(d *Deps) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
		defer cancel()
		checks := []struct {
			name string
			ping func(context.Context) error
		}{
			{"database", d.DB.PingContext},
			{"redis", func(ctx context.Context) error { return d.Redis.Ping(ctx).Err() }},
			{"blobs", d.Blobs.Ping},
		}
		status := fiber.Map{}
		var down *kernel.Error
		for _, ch := range checks {
			if err := ch.ping(ctx); err != nil {
				status[ch.name] = "down"
				if down == nil {
					down = kernel.E(kernel.Unavailable, "service_unavailable", "not ready: "+ch.name+" is down")
				}
				down = down.WithCause(ch.name, ch.name+" is down: "+err.Error())
				continue
			}
			status[ch.name] = "ok"
		}
		if down != nil {
			return down
		}
		return c.JSON(fiber.Map{"status": "ok", "checks": status})
	}
}
