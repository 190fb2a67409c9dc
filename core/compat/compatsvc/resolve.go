package compatsvc

import (
	"context"
	"errors"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/compatport"
)

// resolve turns nodes into vehicle products: it reads what the rules of
// core/compat need and applies them in the order of the contract's errors.
// counted carries the products already named by other nodes of the same
// request (the 200 limit is per request).
func (s *Service) resolve(ctx context.Context, it compat.Item, n compat.Nodes, op compat.Op, counted map[string]bool) ([]compat.Target, error) {
	ids := compat.NamedProducts(n)
	if err := compat.CheckNamed(ids); err != nil {
		return nil, err
	}
	products, err := s.store.Products(ctx, ids)
	if err != nil {
		return nil, internal(err)
	}
	ts := compat.NewTargets(counted)
	if err := ts.AddNamed(n, products, it.SiteID); err != nil {
		return nil, err
	}
	if err := s.addFamilies(ctx, it, n.Families, ts); err != nil {
		return nil, err
	}
	if err := compat.CheckCounted(len(counted)); err != nil {
		return nil, err
	}
	domains := compat.Domains(ts.List, n.Families)
	if err := compat.CheckDomainCount(op, domains); err != nil {
		return nil, err
	}
	if op == compat.OpDelete {
		return ts.List, nil
	}
	own, err := s.store.Domain(ctx, it.DomainID)
	if err != nil && !errors.Is(err, compatport.ErrNotFound) {
		return nil, internal(err)
	}
	if err := compat.Link(it, own, domains, ts.List); err != nil {
		return nil, err
	}
	return ts.List, nil
}

// addFamilies adds the products of each family, reading no further family
// once the request is over the limit.
func (s *Service) addFamilies(ctx context.Context, it compat.Item, fs []compat.FamilyEntry, ts *compat.Targets) error {
	for _, f := range fs {
		d, err := s.domain(ctx, f.DomainID)
		if err != nil {
			return err
		}
		if err := compat.CheckFamilyDomain(f, d, it.SiteID); err != nil {
			return err
		}
		ps, err := s.store.FamilyProducts(ctx, f.Selector, compat.MaxProducts+1)
		if err != nil {
			return internal(err)
		}
		if ts.AddFamily(f, ps) {
			return nil
		}
	}
	return nil
}

// build makes new compatibility rows of targets.
func (s *Service) build(it compat.Item, ts []compat.Target) []compat.Compatibility {
	now := s.clock.Now()
	out := make([]compat.Compatibility, 0, len(ts))
	for _, t := range ts {
		out = append(out, compat.New(it.ID, t, kernel.NewUUID(), now))
	}
	return out
}
