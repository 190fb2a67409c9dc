// Package fiscalworker holds the job handlers of the fiscal module: both
// task types tell the buyer of a pack something, through fiscalport.Jobs.
package fiscalworker

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/ports/fiscalport"
)

// Register adds the handlers to a server's mux.
func Register(handle func(string, asynq.Handler), jobs fiscalport.Jobs) {
	h := Handler{Jobs: jobs}
	handle(fiscalport.TaskDocumentUploaded, h)
	handle(fiscalport.TaskBillingRequested, h)
	handle(fiscalport.TaskSweepOrphans, Sweeper{Jobs: jobs, Now: time.Now})
}

// Sweeper runs the periodic janitor of files without a document. Now is
// the wall clock: stored files carry real modification times, whatever the
// sandbox clock says.
type Sweeper struct {
	Jobs fiscalport.Jobs
	Now  func() time.Time
}

// ProcessTask implements asynq.Handler.
func (s Sweeper) ProcessTask(ctx context.Context, t *asynq.Task) error {
	var p fiscalport.Sweep
	if len(t.Payload()) > 0 {
		if err := json.Unmarshal(t.Payload(), &p); err != nil || p.GraceSeconds < 0 {
			return fmt.Errorf("fiscalworker: %s payload: %v: %w", t.Type(), err, asynq.SkipRetry)
		}
	}
	grace := fiscalport.OrphanGrace
	if p.GraceSeconds > 0 {
		grace = time.Duration(p.GraceSeconds) * time.Second
	}
	_, err := s.Jobs.SweepOrphans(ctx, s.Now().Add(-grace))
	return err
}

// Handler decodes a notice and hands it to the module. A payload that does
// not decode will never decode: it is archived at once (SkipRetry) instead
// of being retried; any other failure is retried with asynq's backoff.
type Handler struct{ Jobs fiscalport.Jobs }

// ProcessTask implements asynq.Handler.
func (h Handler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	var n fiscalport.Notice
	if err := json.Unmarshal(t.Payload(), &n); err != nil {
		return fmt.Errorf("fiscalworker: %s payload: %v: %w", t.Type(), err, asynq.SkipRetry)
	}
	if n.ID == "" || n.PackID <= 0 || n.BuyerID <= 0 || n.Kind == "" {
		return fmt.Errorf("fiscalworker: %s payload lacks id, kind, pack or buyer: %w", t.Type(), asynq.SkipRetry)
	}
	return h.Jobs.NotifyBuyer(ctx, n)
}
