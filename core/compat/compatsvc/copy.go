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

// CopyLater checks a copy and queues it on the bulk queue.
func (s *Service) CopyLater(ctx context.Context, itemID string, req compat.CopyRequest) error {
	it, src, err := s.copyCheck(ctx, itemID, req)
	if err != nil {
		return err
	}
	return s.inItem(ctx, it.ID, func(ctx context.Context) error {
		if err := s.notUniversal(ctx, it.ID); err != nil {
			return err
		}
		j := compatport.CopyJob{ID: "copy-" + kernel.NewUUID(), ItemID: it.ID, SourceID: src.ID, Extended: req.ExtendedInformation}
		payload, _ := json.Marshal(j)
		return internal0(s.outbox.Add(ctx, outboxport.Message{ID: j.ID, Type: compatport.TaskCopy, Payload: payload, CreatedAt: s.clock.Now()}))
	})
}

// copyCheck is shared by the queued copy (POST) and the synchronous one
// (PUT): the caller must sell both the target and the source item.
func (s *Service) copyCheck(ctx context.Context, itemID string, req compat.CopyRequest) (compat.Item, compat.Item, error) {
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return it, it, err
	}
	if req.ItemID == "" {
		return it, it, compat.ErrIncomplete.WithCause("item_to_copy.item_id", "item_id is required")
	}
	src, err := s.owned(ctx, req.ItemID)
	if err != nil {
		return it, src, err
	}
	return it, src, nil
}

// Copy is the copy job: idempotent through its id, so that a retried job
// (a worker that crashed after committing) copies nothing twice.
func (s *Service) Copy(ctx context.Context, j compatport.CopyJob) error {
	return s.inItem(ctx, j.ItemID, func(ctx context.Context) error {
		first, err := s.store.MarkJobDone(ctx, j.ID, s.clock.Now())
		if err != nil || !first {
			return err
		}
		it, err := s.store.Item(ctx, j.ItemID)
		if errors.Is(err, compatport.ErrNotFound) {
			return nil // the item is gone: nothing to copy onto
		}
		if err != nil {
			return err
		}
		st, err := s.store.State(ctx, it.ID)
		if err != nil || st.Universal {
			return err
		}
		_, err = s.copyInto(ctx, it, j.SourceID, j.Extended)
		return err
	})
}

// copyInto copies the source's compatibilities onto it: all of them onto an
// item without any, only vehicles not yet present otherwise (the same thing,
// since a vehicle is on an item at most once). Vehicles whose domain the
// target's domain is not compatible with are skipped; notes and restrictions
// travel only with extended and where the target's category allows them.
func (s *Service) copyInto(ctx context.Context, it compat.Item, sourceID string, extended bool) ([]compat.Compatibility, error) {
	src, err := s.store.Compatibilities(ctx, sourceID)
	if err != nil {
		return nil, internal(err)
	}
	own, err := s.store.Domain(ctx, it.DomainID)
	if err != nil && !errors.Is(err, compatport.ErrNotFound) {
		return nil, internal(err)
	}
	now := s.clock.Now()
	var cs []compat.Compatibility
	for _, c := range src {
		link, ok := own.Link(c.DomainID)
		if !ok {
			continue
		}
		cs = append(cs, compat.Copied(it, c, link, extended, kernel.NewUUID(), now))
	}
	added, err := s.store.AddCompatibilities(ctx, cs)
	if err != nil {
		return nil, internal(err)
	}
	return added, s.moderate(ctx, it, added)
}
