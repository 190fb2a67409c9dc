package compatsvc

import (
	"context"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

// Cards counts the compatibilities with a RED reputation and the suggestions
// of an item.
func (s *Service) Cards(ctx context.Context, domainID, itemID, productID string, filters []string) ([]compatport.Card, error) {
	if itemID == "" {
		return nil, compat.ErrIncomplete.WithCause("item_id", "item_id is required")
	}
	if len(filters) == 0 {
		return nil, compat.ErrBadFilters.WithCause("filters", "filters are required")
	}
	for _, f := range filters {
		if f != compat.FilterReputation && f != compat.FilterSuggested {
			return nil, compat.ErrBadFilters.WithCause("filters", "unknown filter "+f)
		}
	}
	if productID != "" && !compat.ValidProductID(productID) {
		return nil, compat.ErrBadFormat.WithCause("product_id", "product id "+productID+" is badly formatted")
	}
	if !compat.ValidDomainID(domainID) {
		return nil, compat.ErrBadFormat.WithCause("domain_id", "domain_id must be <site_id>-<DOMAIN_NAME>")
	}
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return nil, err
	}
	if _, err := s.domain(ctx, domainID); err != nil {
		return nil, err
	}
	out := make([]compatport.Card, 0, len(filters))
	for _, f := range filters {
		switch f {
		case compat.FilterReputation:
			cs, err := s.store.Compatibilities(ctx, it.ID)
			if err != nil {
				return nil, internal(err)
			}
			es, err := s.entries(ctx, cs)
			if err != nil {
				return nil, err
			}
			red := 0
			for _, e := range es {
				if e.Reputation.Level == compat.LevelRed {
					red++
				}
			}
			out = append(out, compatport.Card{Title: "Compatibilities with claims",
				Subtitle: "Vehicles buyers reported as not fitting this item", Filter: f, Quantity: red})
		case compat.FilterSuggested:
			sg, err := s.store.Suggestions(ctx, it)
			if err != nil {
				return nil, internal(err)
			}
			out = append(out, compatport.Card{Title: "Suggested compatibilities",
				Subtitle: "Vehicles that similar items fit and this item lacks", Filter: f, Quantity: len(sg)})
		}
	}
	return out, nil
}
