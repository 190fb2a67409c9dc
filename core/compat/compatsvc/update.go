package compatsvc

import (
	"context"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

// Put applies a PUT: delete, then update, then create nodes, in one
// transaction; or a synchronous copy.
func (s *Service) Put(ctx context.Context, itemID string, req compat.PutRequest) (compatport.PutResult, error) {
	var res compatport.PutResult
	if req.CopyFrom != nil {
		it, src, err := s.copyCheck(ctx, itemID, *req.CopyFrom)
		if err != nil {
			return res, err
		}
		err = s.inItem(ctx, it.ID, func(ctx context.Context) error {
			if err := s.notUniversal(ctx, it.ID); err != nil {
				return err
			}
			added, err := s.copyInto(ctx, it, src.ID, req.CopyFrom.ExtendedInformation)
			if err != nil {
				return err
			}
			l, err := s.entries(ctx, added)
			res.Copied = &compatport.List{Entries: l}
			res.Created = len(added)
			return err
		})
		return res, err
	}
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return res, err
	}
	var create, update, del compat.Nodes
	if req.Create != nil {
		create = *req.Create
	}
	if req.Update != nil {
		update = *req.Update
	}
	if req.Delete != nil {
		del = *req.Delete
	}
	universal := req.Universal
	if create.Universal != nil {
		universal = create.Universal
	}
	if create.Empty() && update.Empty() && del.Empty() && universal == nil {
		return res, errArguments()
	}
	if universal != nil && *universal && !(create.Empty() && update.Empty()) {
		return res, errArguments()
	}
	for _, c := range []struct {
		n    compat.Nodes
		node string
	}{{create, "create."}, {update, "update."}, {del, "delete."}} {
		if err := compat.CheckNodes(c.n, c.node); err != nil {
			return res, err
		}
	}
	err = s.inItem(ctx, it.ID, func(ctx context.Context) error {
		counted := map[string]bool{}
		if !del.Empty() {
			ts, err := s.resolve(ctx, it, del, compat.OpDelete, counted)
			if err != nil {
				return err
			}
			if res.Deleted, err = s.deleteProducts(ctx, it, ts); err != nil {
				return err
			}
		}
		if universal != nil && !*universal {
			if err := s.clearUniversal(ctx, it.ID); err != nil {
				return err
			}
		}
		if !update.Empty() {
			if res.Updated, err = s.update(ctx, it, update, counted); err != nil {
				return err
			}
		}
		if universal != nil && *universal {
			res.Universal = true
			res.Created, err = s.setUniversal(ctx, it)
			return err
		}
		if !create.Empty() {
			res.Created, err = s.create(ctx, it, create, counted)
		}
		return err
	})
	return res, err
}

// update changes note and restrictions of existing compatibilities.
func (s *Service) update(ctx context.Context, it compat.Item, n compat.Nodes, counted map[string]bool) (int, error) {
	ts, err := s.resolve(ctx, it, n, compat.OpUpdate, counted)
	if err != nil {
		return 0, err
	}
	cs, err := s.store.Compatibilities(ctx, it.ID)
	if err != nil {
		return 0, internal(err)
	}
	byProduct := make(map[string]compat.Compatibility, len(cs))
	for _, c := range cs {
		byProduct[c.ProductID] = c
	}
	now := s.clock.Now()
	var changed []compat.Compatibility
	for _, t := range ts {
		c, ok := byProduct[t.product.ID]
		if !ok {
			if len(n.Families) > 0 && len(n.Products) == 0 && len(n.Groups) == 0 {
				continue // a family updates the item's vehicles it covers
			}
			return 0, compat.ErrCompatibilityNotFound.Withf("the item has no compatibility with product %s", t.product.ID)
		}
		if t.note != nil && *t.note != c.Note {
			c.Note, c.NoteStatus = *t.note, compat.NotePending
			if c.Note == "" {
				c.NoteStatus = compat.NoteNone
			}
		}
		if t.restr != nil {
			c.Restrictions = *t.restr
		}
		c.LastUpdated = now
		if err := s.store.UpdateCompatibility(ctx, c); err != nil {
			return 0, internal(err)
		}
		changed = append(changed, c)
	}
	return len(changed), s.moderate(ctx, it, changed)
}
