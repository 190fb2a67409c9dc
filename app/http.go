package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/adapters/httpapi/controlapi"
	"github.com/feria/feria/adapters/httpapi/docsapi"
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/adapters/httpapi/worldsapi"
	"github.com/feria/feria/adapters/jobqueue"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/worlds"
	"github.com/feria/feria/docs"
	"github.com/feria/feria/ports/sandboxport"
)

// MaxBodySize caps every request body; fiber refuses a larger one before
// reading it whole. A message's attachment (at most 25 MB, plus the
// multipart framing) is the largest legitimate body.
const MaxBodySize = messaging.MaxAttachmentSize + 1<<20

// contract is docs/openapi.yaml as served (YAML, JSON and the reference
// page), one per process, so that every app of a process (the tests build
// many) converts the document once: it is fixed at build time.
var contract = sync.OnceValue(func() *docsapi.Docs { return docsapi.New(docs.OpenAPI) })

// NewHTTP builds the fiber app with every module's routes, in the order of
// the module map.
// live answers the liveness probe. Its answer never changes: written as it
// is, not encoded each time (a probe can come every second, a load
// balancer's more often).
func live(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(liveAnswer)
}

var liveAnswer = []byte(`{"status":"ok"}`)

func NewHTTP(d *Deps) *fiber.App {
	onError := httpapi.ErrorHandler(d.Log)
	readTimeout := d.Config.HTTPReadTimeout
	if readTimeout == 0 {
		readTimeout = 30 * time.Second
	}
	app := fiber.New(fiber.Config{
		AppName: "feria",
		// fiber hands out strings that alias its request buffers, which the
		// next request on the connection overwrites; a method kept as a
		// metric label became "GETT" and broke /metrics for good.
		// Immutable copies every value fiber returns, so that nothing a
		// handler or middleware keeps can change under it.
		Immutable: true,
		BodyLimit: MaxBodySize,
		// fasthttp would parse every multipart body as it reads it, for any
		// route and before authentication, and then hand out the raw body
		// only by writing the parsed form out again. The one route that
		// takes files (fiscal uploads) parses its body itself, into pooled
		// buffers; anything else that asks for a form gets it parsed then.
		DisablePreParseMultipartForm: true,
		ErrorHandler:                 onError,
		DisableStartupMessage:        true,
		ReadTimeout:                  readTimeout,
		WriteTimeout:                 60 * time.Second,
		IdleTimeout:                  120 * time.Second,
	})
	var overQuota error
	if d.World != "" && d.Config.WorldQuota.PerMinute > 0 {
		overQuota = worlds.OverRequests(d.World, d.Config.WorldQuota.PerMinute)
	}
	controls := controlapi.New(controlapi.Config{Service: d.Controls, Auth: d.Auth, Log: d.Log, Operations: d.Operations,
		Registry: d.Registry, OnError: onError, Sandbox: d.Config.SandboxKey != "", OverQuota: overQuota})
	// A world's request is its world's from the first byte: none of the
	// default world's middlewares (ids, log, journal, controls) sees it.
	if d.worlds != nil {
		app.Use(d.worlds.serve)
	}
	if d.World != "" {
		app.Use(httpapi.WithBase(worlds.BasePath(d.World)))
	}
	app.Use(httpapi.RequestIDs())
	app.Use(httpapi.AccessLog(d.Log, httpapi.NewMetrics(d.Registry), onError))
	// The journal records every public answer, a recovered panic's 500
	// included; faults and rate limits answer before any route runs.
	if !d.Config.NoJournal {
		app.Use(controls.Journal())
	}
	app.Use(httpapi.Recover(d.Log))
	if !d.Config.NoGuard {
		app.Use(controls.Guard(app))
	}
	if d.quota != nil {
		app.Use(d.quota)
	}

	app.Get("/health/live", live)
	app.Get("/health/ready", ready(d))
	app.Get("/metrics", adaptor.HTTPHandler(promhttp.HandlerFor(d.Registry, promhttp.HandlerOpts{})))
	contract().Routes(app)

	if d.Config.SandboxKey != "" {
		mountSandbox(app, d)
		mountConsole(app, d)
	}
	for _, first := range []bool{true, false} {
		for _, m := range d.Modules {
			// The jobs dashboard is the instance's: it shows every world's queues.
			if m.Routes != nil && m.RoutesFirst == first && !(d.World != "" && m.Name == "admin") {
				m.Routes(app)
			}
		}
	}
	app.Use(httpapi.NotFound)
	return app
}

// mountSandbox serves /sandbox with every module's collections. A reset
// empties the database, then what lives beside it: the tokens each
// process holds, stored files, queued jobs and each module's own keys.
func mountSandbox(app *fiber.App, d *Deps) {
	// The queues are shared by every world: a reset removes its own world's
	// jobs, which their task ids name.
	resets := []sandboxport.Resetter{sqlstore.NewTables(d.DB), d.heldTokens, d.Blobs, jobqueue.NewQueued(d.Inspect).Of(d.World)}
	var extra []func(fiber.Router)
	for _, m := range d.Modules {
		if m.Reset != nil {
			resets = append(resets, m.Reset)
		}
		if m.SandboxRoutes != nil {
			extra = append(extra, m.SandboxRoutes)
		}
	}
	sandboxapi.Mount(app, sandboxapi.Config{
		Key: d.Config.SandboxKey, Collections: d.collections(), Resets: resets, Tx: d.Tx, Clock: d.Clock,
		Extra: func(r fiber.Router) {
			if d.Worlds != nil {
				worldsapi.Routes(r, d.Worlds)
			}
			for _, mount := range extra {
				mount(r)
			}
		},
	})
}

// collections are every module's sandbox collections, in fixtures order.
func (d *Deps) collections() []sandboxapi.Collection {
	var out []sandboxapi.Collection
	for _, m := range d.Modules {
		out = append(out, m.Collections...)
	}
	return out
}

// loadFixtures loads the fixtures file of FIXTURES_FILE as POST
// /sandbox/fixtures would, all or nothing, and logs what it loaded or the
// entry it refused.
func loadFixtures(ctx context.Context, d *Deps, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		d.Log.Error("fixtures not loaded", slog.String("file", path), slog.Any("err", err))
		return fmt.Errorf("FIXTURES_FILE: %w", err)
	}
	loaded, err := sandboxapi.Load(ctx, d.Tx, d.collections(), raw)
	if err != nil {
		attrs := []any{slog.String("file", path), slog.String("reason", kernel.MessageOf(err))}
		var e *kernel.Error
		if errors.As(err, &e) && len(e.Causes) > 0 {
			attrs = append(attrs, slog.String("entry", e.Causes[0].Code))
		}
		if k := kernel.KindOf(err); k == kernel.Internal || k == kernel.Unavailable {
			attrs = append(attrs, slog.Any("err", err))
		}
		d.Log.Error("fixtures refused; nothing of the file was loaded", attrs...)
		return fmt.Errorf("FIXTURES_FILE: %s refused: %s", path, kernel.MessageOf(err))
	}
	d.Log.Info("fixtures loaded", slog.String("file", path), slog.Any("loaded", loaded))
	return nil
}

// ready checks every backing service and names the ones that are down, one
// cause each; the drivers' errors are logged, never answered.
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
				// The driver's text may name hosts and users: logged, not shown.
				d.Log.WarnContext(ctx, "not ready", slog.String("backend", ch.name), slog.Any("err", err))
				down = down.WithCause(ch.name, ch.name+" is down")
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
