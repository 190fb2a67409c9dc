// Package webhooksworker holds the job handler of the webhooks module: one
// attempt of a notification to an integrator's application per job.
package webhooksworker

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/ports/webhooksport"
)

// Register adds the handler to a server's mux.
func Register(handle func(string, asynq.Handler), jobs webhooksport.Jobs) {
	handle(webhooksport.TaskDeliver, Handler{Jobs: jobs})
}

// Handler decodes the notification id and makes its next attempt. A payload
// that does not decode is archived at once (SkipRetry); a *Later answer
// (the next attempt's delay) goes back to asynq as is, which schedules the
// job again without counting a failure.
type Handler struct{ Jobs webhooksport.Jobs }

// ProcessTask implements asynq.Handler.
func (h Handler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	var p webhooksport.Task
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("webhooksworker: %s payload: %v: %w", t.Type(), err, asynq.SkipRetry)
	}
	if p.ID == "" {
		return fmt.Errorf("webhooksworker: %s payload lacks the notification id: %w", t.Type(), asynq.SkipRetry)
	}
	return h.Jobs.Deliver(ctx, p.ID)
}
