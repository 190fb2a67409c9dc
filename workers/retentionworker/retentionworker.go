// Package retentionworker holds the periodic job that keeps storage from
// growing forever: it removes, by the service clock, the rows each store
// keeps only for a while (outboxport.TaskPrune).
package retentionworker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/outboxport"
)

// Store is one store to prune: its rows finished more than Keep ago go.
type Store struct {
	Name   string
	Keep   time.Duration
	Pruner outboxport.Pruner
}

// Pruner is the handler of outboxport.TaskPrune.
type Pruner struct {
	Stores []Store
	// Clock is the service clock: the sandbox's frozen instant moves what
	// "ago" means, as it does for everything the rows' times were set by.
	Clock kernel.Clock
	Log   *slog.Logger
}

// Register adds the handler to a server's mux.
func Register(handle func(string, asynq.Handler), p Pruner) { handle(outboxport.TaskPrune, p) }

// ProcessTask implements asynq.Handler: every store is pruned even when one
// fails; the first failure fails the job (asynq runs it again).
func (p Pruner) ProcessTask(ctx context.Context, _ *asynq.Task) error {
	now := p.Clock.Now()
	var first error
	for _, s := range p.Stores {
		n, err := s.Pruner.Prune(ctx, now.Add(-s.Keep))
		if err != nil {
			first = cmpOr(first, fmt.Errorf("retentionworker: %s: %w", s.Name, err))
			continue
		}
		if n > 0 {
			p.Log.InfoContext(ctx, "pruned", slog.String("store", s.Name), slog.Int("rows", n), slog.Duration("kept", s.Keep))
		}
	}
	return first
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
