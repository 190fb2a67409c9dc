package compatsvc

import (
	"context"

	"github.com/feria/feria/core/compat"
)

// MaxSummaryItems bounds a summary request (docs/decisions.md).
const MaxSummaryItems = 100

// Summary counts compatibilities, claims, notes and restrictions per item.
func (s *Service) Summary(ctx context.Context, domainID string, itemIDs []string) ([]compat.Summary, error) {
	if domainID != "" && !compat.ValidDomainID(domainID) {
		return nil, compat.ErrBadFormat.WithCause("domain_id", "domain_id must be <site_id>-<DOMAIN_NAME>")
	}
	if len(itemIDs) == 0 {
		return nil, compat.ErrIncomplete.WithCause("items", "items are required")
	}
	if len(itemIDs) > MaxSummaryItems {
		return nil, compat.ErrTooManyItems.WithCause("items", "at most 100 items")
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
