package compatsvc

import (
	"context"
	"fmt"

	"github.com/feria/feria/core/compat"
)

// Summary counts compatibilities, claims, notes and restrictions per item.
func (s *Service) Summary(ctx context.Context, domainID string, itemIDs []string) ([]compat.Summary, error) {
	if domainID != "" && !compat.ValidDomainID(domainID) {
		return nil, compat.ErrBadFormat.WithCause("domain_id", "domain_id must be <site_id>-<DOMAIN_NAME>")
	}
	if len(itemIDs) == 0 {
		return nil, compat.ErrIncomplete.WithCause("items", "items are required")
	}
	if len(itemIDs) > compat.MaxSummaryItems {
		return nil, compat.ErrTooManyItems.WithCause("items", fmt.Sprintf("at most %d items", compat.MaxSummaryItems))
	}
	titles := make(map[string]string, len(itemIDs))
	for _, id := range itemIDs {
		it, err := s.owned(ctx, id)
		if err != nil {
			return nil, err
		}
		titles[id] = it.Title
	}
	counts, err := s.store.Counts(ctx, domainID, itemIDs)
	if err != nil {
		return nil, internal(err)
	}
	out := make([]compat.Summary, 0, len(itemIDs))
	for _, id := range itemIDs {
		c := counts[id]
		c.ItemID, c.ItemTitle = id, titles[id]
		out = append(out, c)
	}
	return out, nil
}
