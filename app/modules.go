package app

import (
	"context"
	"log/slog"

	"github.com/gofiber/fiber/v2"
	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/adapters/jobqueue"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/clockdb"
	"github.com/feria/feria/ports/accountport"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/workers"
)

// Deps is what every module's wiring may use. It is built once per process by
// Wire; modules take the adapters they need and build their own services.
type Deps struct {
	Config   Config
	Log      *slog.Logger
	DB       *bun.DB
	Tx       sqlstore.Tx
	Redis    *redis.Client
	Blobs    blobport.Store
	Clock    *clockdb.Clock
	Accounts accountport.Service
	Auth     httpapi.Auth
	Registry *prometheus.Registry
	Jobs     *workers.Metrics // counts of jobs this process handled
	Queue    *asynq.Client    // enqueue side of asynq (the relay and direct enqueues)
	Inspect  *asynq.Inspector // the sandbox reset and metrics read queues through it
	Relay    *jobqueue.Relay
}

// Module is one area of feria as the process sees it. Each module wires
// itself in a file of its own (module_<name>.go), by hand, and adds itself to
// modules from that file's init; the order of the list is the order of the
// sandbox fixtures.
type Module struct {
	Name string
	// Routes mounts the module's public routes.
	Routes func(app *fiber.App, d *Deps) error
	// Sandbox returns the module's sandbox collections.
	Sandbox func(d *Deps) []sandboxapi.Collection
	// Jobs registers the module's job handlers on the worker server.
	Jobs func(s *workers.Server, d *Deps) error
	// Reset removes what the module keeps outside the database (counters,
	// files) on DELETE /sandbox.
	Reset func(ctx context.Context, d *Deps) error
}

var modules []Module

func register(m Module) { modules = append(modules, m) }
