package compatsvc

import (
	"context"

	"github.com/feria/feria/core/compat"
)

// DeleteOne deletes one compatibility.
func (s *Service) DeleteOne(ctx context.Context, itemID, compatID string) ([]string, error) {
	if _, err := s.owned(ctx, itemID); err != nil {
		return nil, err
	}
	var deleted []string
	err := s.inItem(ctx, itemID, func(ctx context.Context) error {
		var err error
		if deleted, err = s.deleteIDs(ctx, itemID, []string{compatID}); err != nil {
			return err
		}
		if len(deleted) == 0 {
			return compat.ErrCompatibilityNotFound.Withf("compatibility %s not found", compatID)
		}
		return nil
	})
	return deleted, err
}

// Delete deletes all of an item's compatibilities (and its universal state),
// or those of families.
func (s *Service) Delete(ctx context.Context, itemID string, families []compat.Selector) ([]string, error) {
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return nil, err
	}
	n := compat.Nodes{}
	for _, f := range families {
		n.Families = append(n.Families, compat.FamilyEntry{Selector: f})
	}
	if err := compat.CheckNodes(n, ""); err != nil {
		return nil, err
	}
	var deleted []string
	err = s.inItem(ctx, it.ID, func(ctx context.Context) error {
		if len(families) == 0 {
			cs, err := s.store.Compatibilities(ctx, it.ID)
			if err != nil {
				return internal(err)
			}
			ids := make([]string, len(cs))
			for i, c := range cs {
				ids[i] = c.ID
			}
			deleted = []string{}
			if len(ids) > 0 {
				if deleted, err = s.deleteIDs(ctx, it.ID, ids); err != nil {
					return err
				}
			}
			return s.clearUniversal(ctx, it.ID)
		}
		ts, err := s.resolve(ctx, it, n, compat.OpDelete, map[string]bool{})
		if err != nil {
			return err
		}
		deleted, err = s.deleteProducts(ctx, it, ts)
		return err
	})
	return deleted, err
}

// deleteProducts deletes the item's compatibilities with the targets.
func (s *Service) deleteProducts(ctx context.Context, it compat.Item, ts []compat.Target) ([]string, error) {
	cs, err := s.store.Compatibilities(ctx, it.ID)
	if err != nil {
		return nil, internal(err)
	}
	want := map[string]bool{}
	for _, t := range ts {
		want[t.Product.ID] = true
	}
	ids := []string{}
	for _, c := range cs {
		if want[c.ProductID] {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) == 0 {
		return ids, nil
	}
	return s.deleteIDs(ctx, it.ID, ids)
}

// deleteIDs deletes compatibilities by id and flags the snapshots that
// confirmed them, so an order's snapshot tells the vehicle is gone.
func (s *Service) deleteIDs(ctx context.Context, itemID string, ids []string) ([]string, error) {
	deleted, err := s.store.DeleteCompatibilities(ctx, itemID, ids)
	if err != nil {
		return nil, internal(err)
	}
	if err := s.store.MarkSnapshotsDeleted(ctx, deleted, s.clock.Now()); err != nil {
		return nil, internal(err)
	}
	if deleted == nil {
		deleted = []string{}
	}
	return deleted, nil
}
