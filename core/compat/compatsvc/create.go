package compatsvc

import (
	"context"

	"github.com/feria/feria/core/compat"
)

// Create applies a POST of products, groups, families or universal.
func (s *Service) Create(ctx context.Context, itemID string, n compat.Nodes) (int, error) {
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return 0, err
	}
	universal, err := compat.CheckCreate(n)
	if err != nil {
		return 0, err
	}
	var count int
	err = s.inItem(ctx, it.ID, func(ctx context.Context) error {
		if universal {
			count, err = s.setUniversal(ctx, it)
			return err
		}
		count, err = s.create(ctx, it, n, map[string]bool{})
		return err
	})
	return count, err
}

// create adds the compatibilities of n to a non-universal item.
func (s *Service) create(ctx context.Context, it compat.Item, n compat.Nodes, counted map[string]bool) (int, error) {
	if err := s.notUniversal(ctx, it.ID); err != nil {
		return 0, err
	}
	if it.Category == nil {
		return 0, compat.ErrNoCategory.WithCause("category_id", "category "+it.CategoryID+" takes no compatibilities")
	}
	ts, err := s.resolve(ctx, it, n, compat.OpCreate, counted)
	if err != nil {
		return 0, err
	}
	added, err := s.store.AddCompatibilities(ctx, s.build(it, ts))
	if err != nil {
		return 0, internal(err)
	}
	return len(added), s.moderate(ctx, it, added)
}
