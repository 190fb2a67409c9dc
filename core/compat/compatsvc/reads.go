package compatsvc

import (
	"context"
	"errors"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

// entries adds reputation to compatibilities.
func (s *Service) entries(ctx context.Context, cs []compat.Compatibility) ([]compatport.Entry, error) {
	cl, err := s.claimed(ctx, cs)
	if err != nil {
		return nil, err
	}
	out := make([]compatport.Entry, len(cl))
	for i := range cl {
		out[i] = compatport.Entry{Compatibility: cl[i].Compatibility, Reputation: compat.ReputationOf(cl[i].Claims)}
	}
	return out, nil
}

// claimed adds their claims' counts to compatibilities.
func (s *Service) claimed(ctx context.Context, cs []compat.Compatibility) ([]compatport.Claimed, error) {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	claims, err := s.store.Claims(ctx, ids)
	if err != nil {
		return nil, internal(err)
	}
	out := make([]compatport.Claimed, len(cs))
	for i, c := range cs {
		out[i] = compatport.Claimed{Compatibility: c, Claims: claims[c.ID]}
	}
	return out, nil
}

// List lists an item's compatibilities: the item, its state and its
// compatibilities with their claims are one read of the store (a hot
// path), checked as owned checks.
func (s *Service) List(ctx context.Context, itemID string) (compatport.List, error) {
	var l compatport.List
	if err := validItemID(itemID); err != nil {
		return l, err
	}
	got, err := s.store.Listing(ctx, itemID)
	if err != nil {
		return l, itemErr(itemID, err)
	}
	if err := sells(ctx, itemID, got.SellerID); err != nil {
		return l, err
	}
	l.Entries, l.Derived = got.Compatibilities, got.Derived
	if got.UniversalDomainIDs != nil {
		l.UniversalDomains = append([]string{}, got.UniversalDomainIDs...)
	}
	return l, nil
}

// one reads a compatibility of an item the caller sells: 404 when the id is
// not the item's.
func (s *Service) one(ctx context.Context, itemID, compatID string) (compat.Compatibility, error) {
	if _, err := s.owned(ctx, itemID); err != nil {
		return compat.Compatibility{}, err
	}
	c, err := s.store.Compatibility(ctx, itemID, compatID)
	if errors.Is(err, compatport.ErrNotFound) {
		return c, compat.ErrCompatibilityNotFound.Withf("compatibility %s not found", compatID)
	}
	return c, internal0(err)
}

// Get reads one compatibility.
func (s *Service) Get(ctx context.Context, itemID, compatID string) (compatport.Entry, error) {
	c, err := s.one(ctx, itemID, compatID)
	if err != nil {
		return compatport.Entry{}, err
	}
	es, err := s.entries(ctx, []compat.Compatibility{c})
	if err != nil {
		return compatport.Entry{}, err
	}
	return es[0], nil
}

// Note reads the note of one compatibility.
func (s *Service) Note(ctx context.Context, itemID, compatID string) (string, error) {
	c, err := s.one(ctx, itemID, compatID)
	return c.Note, err
}

// ExtendedCheck tells whether the item's category allows notes and
// restrictions.
func (s *Service) ExtendedCheck(ctx context.Context, itemID string) (bool, bool, error) {
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return false, false, err
	}
	return it.Category.NotesAllowed(), it.Category.RestrictionsAllowed(), nil
}
