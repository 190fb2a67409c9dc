package app

import (
	"context"
	"log/slog"

	"github.com/gofiber/fiber/v2"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/ports/blobport"
)

// Instance is a wired feria on backends the caller opened: what end-to-end
// and HTTP tests drive.
type Instance struct {
	Deps *Deps
	HTTP *fiber.App
	b    *backends
}

// NewInstance wires feria on already-open backends. The database must be
// migrated.
func NewInstance(cfg Config, log *slog.Logger, db *bun.DB, rdb redis.UniversalClient, blobs blobport.Store) (*Instance, error) {
	b := &backends{db: db, redis: rdb, blobs: blobs}
	d, err := wire(cfg, log, b)
	if err != nil {
		return nil, err
	}
	return &Instance{Deps: d, HTTP: NewHTTP(d), b: b}, nil
}

// RunWorkers processes jobs and relays the outbox until ctx ends.
func (in *Instance) RunWorkers(ctx context.Context) error {
	srv, err := newWorkers(in.Deps, in.b, 4)
	if err != nil {
		return err
	}
	go in.Deps.Relay.Run(ctx)
	return srv.Run(ctx)
}

// ProcessTask runs one task now, in the caller's goroutine, through the
// handler the module map registers for its type: tests run a job by hand
// (twice, as a retried job runs after a worker crash).
func (in *Instance) ProcessTask(ctx context.Context, t *asynq.Task) error {
	mux := asynq.NewServeMux()
	for _, m := range in.Deps.Modules {
		if m.Jobs != nil {
			m.Jobs(mux.Handle)
		}
	}
	return mux.ProcessTask(ctx, t)
}

// Close releases the queue clients; the backends stay the caller's.
func (in *Instance) Close() {
	in.Deps.Queue.Close()
	in.Deps.Inspect.Close()
	in.Deps.close()
}
