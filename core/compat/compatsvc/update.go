package compatsvc

import (
	"context"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

// Put applies a PUT: delete, then update, then create nodes, in one
// transaction; or a synchronous copy.
func (s *Service) Put(ctx context.Context, itemID string, req compat.PutRequest) (compatport.PutResult, error) {
	if req.CopyFrom != nil {
		return s.putCopy(ctx, itemID, *req.CopyFrom)
	}
	var res compatport.PutResult
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return res, err
	}
	p, err := compat.PlanPut(req)
	if err != nil {
		return res, err
	}
	err = s.inItem(ctx, it.ID, func(ctx context.Context) error {
		res, err = s.apply(ctx, it, p)
		return err
	})
	return res, err
}

// putCopy copies another item's compatibilities onto a non-universal item
// and answers the copied list.
func (s *Service) putCopy(ctx context.Context, itemID string, req compat.CopyRequest) (compatport.PutResult, error) {
	var res compatport.PutResult
	it, src, err := s.copyCheck(ctx, itemID, req)
	if err != nil {
		return res, err
	}
	err = s.inItem(ctx, it.ID, func(ctx context.Context) error {
		if err := s.notUniversal(ctx, it.ID); err != nil {
			return err
		}
		added, err := s.copyInto(ctx, it, src.ID, req.ExtendedInformation)
		if err != nil {
			return err
		}
		l, err := s.claimed(ctx, added)
		res.Copied = &compatport.List{Entries: l}
		res.Created = len(added)
		return err
	})
	return res, err
}

// apply runs a checked PUT inside the item's transaction: delete, universal
// false, update, then universal true or create. The three node sets share
// one count of products.
func (s *Service) apply(ctx context.Context, it compat.Item, p compat.Plan) (compatport.PutResult, error) {
	var res compatport.PutResult
	var err error
	counted := map[string]bool{}
	if !p.Delete.Empty() {
		ts, err := s.resolve(ctx, it, p.Delete, compat.OpDelete, counted)
		if err != nil {
			return res, err
		}
		if res.Deleted, err = s.deleteProducts(ctx, it, ts); err != nil {
			return res, err
		}
	}
	if p.Universal != nil && !*p.Universal {
		if err := s.clearUniversal(ctx, it.ID); err != nil {
			return res, err
		}
	}
	if !p.Update.Empty() {
		if res.Updated, err = s.update(ctx, it, p.Update, counted); err != nil {
			return res, err
		}
	}
	if p.Universal != nil && *p.Universal {
		res.Universal = true
		res.Created, err = s.setUniversal(ctx, it)
		return res, err
	}
	if !p.Create.Empty() {
		res.Created, err = s.create(ctx, it, p.Create, counted)
	}
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
		c, ok := byProduct[t.Product.ID]
		if !ok {
			if n.OnlyFamilies() {
				continue
			}
			return 0, compat.ErrCompatibilityNotFound.Withf("the item has no compatibility with product %s", t.Product.ID)
		}
		c = compat.Amend(c, t, now)
		if err := s.store.UpdateCompatibility(ctx, c); err != nil {
			return 0, internal(err)
		}
		changed = append(changed, c)
	}
	return len(changed), s.moderate(ctx, it, changed)
}
