package compatsvc

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/compatport"
	"github.com/feria/feria/ports/outboxport"
)

// moderate queues the moderation of the notes of cs, in the caller's tx.
func (s *Service) moderate(ctx context.Context, it compat.Item, cs []compat.Compatibility) error {
	for _, c := range cs {
		if c.NoteStatus != compat.NotePending {
			continue
		}
		payload, _ := json.Marshal(compatport.NoteJob{CompatibilityID: c.ID, ItemID: it.ID, Note: c.Note})
		if err := s.outbox.Add(ctx, outboxport.Message{ID: "note-" + kernel.NewUUID(), Type: compatport.TaskModerateNote,
			Payload: payload, CreatedAt: s.clock.Now()}); err != nil {
			return internal(err)
		}
	}
	return nil
}

// ModerateNote is the moderation job: it checks a PENDING note against the
// messaging rules and moves it to APPROVED or REJECTED. A note changed since
// the job was queued is left to its own job.
func (s *Service) ModerateNote(ctx context.Context, j compatport.NoteJob) error {
	it, err := s.store.Item(ctx, j.ItemID)
	if errors.Is(err, compatport.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	c, err := s.store.Compatibility(ctx, j.ItemID, j.CompatibilityID)
	if errors.Is(err, compatport.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if c.Note != j.Note || c.NoteStatus != compat.NotePending {
		return nil
	}
	status := compat.NoteApproved
	if err := s.notes.CheckNote(ctx, it.SiteID, j.Note); err != nil {
		switch kernel.KindOf(err) {
		case kernel.NotAcceptable, kernel.Invalid:
			status = compat.NoteRejected
		default:
			return err // a fault of the checker: retry
		}
	}
	_, err = s.store.SetNoteStatus(ctx, c.ID, j.Note, status, s.clock.Now())
	return err
}
