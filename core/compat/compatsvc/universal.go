package compatsvc

import (
	"context"
	"errors"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

// setUniversal marks an item universal (the state table's universal rows).
func (s *Service) setUniversal(ctx context.Context, it compat.Item) (int, error) {
	if it.Category == nil {
		return 0, compat.ErrNoCategory.WithCause("category_id", "category "+it.CategoryID+" takes no compatibilities")
	}
	if !it.Category.UniversalAllowed() {
		return 0, compat.ErrNoUniversal.WithCause("category_id", "category "+it.CategoryID+" does not allow universal compatibilities")
	}
	st, cs, err := s.state(ctx, it.ID)
	if err != nil {
		return 0, err
	}
	if len(cs) > 0 {
		return 0, compat.ErrHasCompat
	}
	own, err := s.store.Domain(ctx, it.DomainID)
	if err != nil && !errors.Is(err, compatport.ErrNotFound) {
		return 0, internal(err)
	}
	st.ItemID, st.Universal, st.UniversalDomainIDs = it.ID, true, own.TopDomains()
	st.HasException, st.ExceptionComment, st.ExceptionDate = false, "", nil
	return 1, internal0(s.store.PutState(ctx, st))
}

// notUniversal refuses an item marked universal: compatibilities are added
// (created or copied) only to a plain item.
func (s *Service) notUniversal(ctx context.Context, itemID string) error {
	st, err := s.store.State(ctx, itemID)
	if err != nil {
		return internal(err)
	}
	if st.Universal {
		return compat.ErrIsUniversal
	}
	return nil
}

// clearUniversal turns a universal item back into a plain one; a no-op
// otherwise, so callers need not check first.
func (s *Service) clearUniversal(ctx context.Context, itemID string) error {
	st, err := s.store.State(ctx, itemID)
	if err != nil {
		return internal(err)
	}
	if !st.Universal {
		return nil
	}
	st.Universal, st.UniversalDomainIDs = false, []string{}
	return internal0(s.store.PutState(ctx, st))
}
