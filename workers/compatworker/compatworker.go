// Package compatworker holds the job handlers of the compatibilities module:
// copies of compatibilities between items and note moderation, both through
// compatport.Jobs.
package compatworker

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/ports/compatport"
)

// Register adds the handlers to a server's mux.
func Register(handle func(string, asynq.Handler), jobs compatport.Jobs) {
	handle(compatport.TaskCopy, Copy{Jobs: jobs})
	handle(compatport.TaskModerateNote, Moderate{Jobs: jobs})
}

// Copy runs a copy job. The job is idempotent (its id is recorded in the
// copying transaction), so a retry after a crash copies nothing twice. A
// payload that does not decode never will: it is archived (SkipRetry).
type Copy struct{ Jobs compatport.Jobs }

// ProcessTask implements asynq.Handler.
func (h Copy) ProcessTask(ctx context.Context, t *asynq.Task) error {
	var j compatport.CopyJob
	if err := json.Unmarshal(t.Payload(), &j); err != nil {
		return fmt.Errorf("compatworker: copy payload: %v: %w", err, asynq.SkipRetry)
	}
	if j.ID == "" || j.ItemID == "" || j.SourceID == "" {
		return fmt.Errorf("compatworker: copy payload lacks id or items: %w", asynq.SkipRetry)
	}
	return h.Jobs.Copy(ctx, j)
}

// Moderate runs a note moderation job.
type Moderate struct{ Jobs compatport.Jobs }

// ProcessTask implements asynq.Handler.
func (h Moderate) ProcessTask(ctx context.Context, t *asynq.Task) error {
	var j compatport.NoteJob
	if err := json.Unmarshal(t.Payload(), &j); err != nil {
		return fmt.Errorf("compatworker: note payload: %v: %w", err, asynq.SkipRetry)
	}
	if j.CompatibilityID == "" || j.ItemID == "" {
		return fmt.Errorf("compatworker: note payload lacks compatibility or item: %w", asynq.SkipRetry)
	}
	return h.Jobs.ModerateNote(ctx, j)
}
