package compatsvc

import (
	"context"
	"errors"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/compatport"
)

// Dump serves the cross-domain compatibility dump of a site.
func (s *Service) Dump(ctx context.Context, siteID string) ([]compat.Domain, error) {
	if _, ok := kernel.LookupSite(siteID); !ok {
		return nil, kernel.E(kernel.Invalid, "bad_request", "invalid site_id "+siteID).WithCause("site_id", "unknown site")
	}
	ds, err := s.store.Domains(ctx, siteID)
	if err != nil {
		return nil, internal(err)
	}
	return ds, nil
}

// CountFamily counts the child products of a family.
func (s *Service) CountFamily(ctx context.Context, sel compat.Selector) (int, error) {
	if err := compat.CheckSelector(sel, ""); err != nil {
		return 0, err
	}
	n, err := s.store.CountFamily(ctx, sel)
	if errors.Is(err, compatport.ErrNotFound) {
		return 0, compat.ErrDomainNotFound.Withf("domain %s not found", sel.DomainID)
	}
	return n, internal0(err)
}

// RestrictionValues serves the values restrictions may take between a
// vehicle (main) domain and a part (secondary) domain.
func (s *Service) RestrictionValues(ctx context.Context, mainID, secondaryID string) ([]compat.RestrictionValue, error) {
	if mainID == "" || secondaryID == "" {
		return nil, compat.ErrIncomplete.WithCause("main_domain_id", "main_domain_id and secondary_domain_id are required")
	}
	if !compat.ValidDomainID(mainID) || !compat.ValidDomainID(secondaryID) {
		return nil, compat.ErrBadFormat.WithCause("domain_id", "domain ids must be <site_id>-<DOMAIN_NAME>")
	}
	d, err := s.domain(ctx, secondaryID)
	if err != nil {
		return nil, err
	}
	if _, err := s.domain(ctx, mainID); err != nil {
		return nil, err
	}
	l, ok := d.Link(mainID)
	if !ok || l.RestrictionValues == nil {
		return []compat.RestrictionValue{}, nil
	}
	return l.RestrictionValues, nil
}
