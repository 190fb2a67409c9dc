package compatsvc

import (
	"context"

	"github.com/feria/feria/core/compat"
)

// ReportException reports that no vehicle of the catalog fits the item.
func (s *Service) ReportException(ctx context.Context, itemID string, comment *string) error {
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return err
	}
	return s.inItem(ctx, it.ID, func(ctx context.Context) error {
		st, cs, err := s.state(ctx, it.ID)
		if err != nil {
			return err
		}
		switch {
		case !it.Active():
			return compat.ErrItemInactive.Withf("item %s is %s", it.ID, it.Status)
		case len(cs) > 0 || st.Universal:
			return compat.ErrExceptionCompat
		case it.Category == nil || !it.Category.Required:
			return compat.ErrExceptionNoCat
		case st.HasException:
			return compat.ErrExceptionTwice
		}
		if err := compat.CheckComment(comment); err != nil {
			return err
		}
		now := s.clock.Now()
		st.ItemID, st.HasException, st.ExceptionComment, st.ExceptionDate = it.ID, true, *comment, &now
		if st.UniversalDomainIDs == nil {
			st.UniversalDomainIDs = []string{}
		}
		return internal0(s.store.PutState(ctx, st))
	})
}

// Exception reads whether an exception stands: only while the item has no
// compatibility.
func (s *Service) Exception(ctx context.Context, itemID string) (bool, error) {
	if _, err := s.owned(ctx, itemID); err != nil {
		return false, err
	}
	st, cs, err := s.state(ctx, itemID)
	if err != nil {
		return false, err
	}
	return st.HasException && len(cs) == 0 && !st.Universal, nil
}
