package compatsvc

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/compatport"
)

// target is one vehicle product a request resolved to.
type target struct {
	product  compat.Product
	creation string
	note     *string
	restr    *[]compat.Restriction
	link     compat.DomainLink
}

// resolve turns nodes into vehicle products, applying the rules of the
// contract in the order of its errors. counted carries the products already
// named by other nodes of the same request (the 200 limit is per request).
func (s *Service) resolve(ctx context.Context, it compat.Item, n compat.Nodes, op compat.Op, counted map[string]bool) ([]target, error) {
	var out []target
	seen := map[string]bool{}
	add := func(t target) {
		if seen[t.product.ID] {
			return
		}
		seen[t.product.ID] = true
		counted[t.product.ID] = true
		out = append(out, t)
	}
	var ids []string
	for _, p := range n.Products {
		ids = append(ids, p.ID)
	}
	for _, g := range n.Groups {
		ids = append(ids, g.IDs...)
	}
	if len(ids) > compat.MaxProducts {
		return nil, compat.ErrTooManyProducts.WithCause("products", fmt.Sprintf("%d products specified; at most %d", len(ids), compat.MaxProducts))
	}
	products, err := s.store.Products(ctx, ids)
	if err != nil {
		return nil, internal(err)
	}
	check := func(id string) (compat.Product, error) {
		p, ok := products[id]
		if !ok {
			return p, compat.ErrProductNotFound.Withf("product %s not found", id).WithCause("products", "product "+id+" does not exist")
		}
		if p.SiteID != it.SiteID {
			return p, compat.ErrOtherSite.WithCause("products", "product "+id+" is not of site "+it.SiteID)
		}
		if p.ParentID == nil {
			return p, compat.ErrNotChildren.WithCause("products", "product "+id+" is a parent product")
		}
		return p, nil
	}
	for _, e := range n.Products {
		p, err := check(e.ID)
		if err != nil {
			return nil, err
		}
		add(target{product: p, creation: e.CreationSource, note: e.Note, restr: e.Restrictions})
	}
	for _, g := range n.Groups {
		for _, id := range g.IDs {
			p, err := check(id)
			if err != nil {
				return nil, err
			}
			add(target{product: p, creation: g.CreationSource, note: g.Note, restr: g.Restrictions})
		}
	}
	for _, f := range n.Families {
		d, err := s.domain(ctx, f.DomainID)
		if err != nil {
			return nil, err
		}
		if d.SiteID != it.SiteID {
			return nil, compat.ErrOtherSite.WithCause("products_families.domain_id", "domain "+f.DomainID+" is not of site "+it.SiteID)
		}
		ps, err := s.store.FamilyProducts(ctx, f.Selector, compat.MaxProducts+1)
		if err != nil {
			return nil, internal(err)
		}
		for _, p := range ps {
			add(target{product: p, creation: f.CreationSource, note: f.Note, restr: f.Restrictions})
		}
		if len(counted) > compat.MaxProducts {
			break
		}
	}
	if len(counted) > compat.MaxProducts {
		return nil, compat.ErrTooManyProducts.WithCause("products", fmt.Sprintf("more than %d products in the request, families included", compat.MaxProducts))
	}
	domains := map[string]bool{}
	for _, t := range out {
		domains[t.product.DomainID] = true
	}
	for _, f := range n.Families {
		domains[f.DomainID] = true
	}
	if op != compat.OpUpdate && len(domains) > compat.MaxDomains {
		return nil, compat.ErrTooManyDomains.WithCause("domains", fmt.Sprintf("%d product domains; at most %d", len(domains), compat.MaxDomains))
	}
	if op == compat.OpDelete {
		return out, nil
	}
	own, err := s.store.Domain(ctx, it.DomainID)
	if err != nil && !errors.Is(err, compatport.ErrNotFound) {
		return nil, internal(err)
	}
	names := make([]string, 0, len(domains))
	for d := range domains {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		if _, ok := own.Link(d); !ok {
			return nil, compat.ErrDomainMismatch.WithCause("domain_id", "item domain "+it.DomainID+" is not compatible with "+d)
		}
	}
	for i := range out {
		t := &out[i]
		t.link, _ = own.Link(t.product.DomainID)
		if t.note != nil && *t.note != "" && !it.Category.NotesAllowed() {
			return nil, compat.ErrNoteNotAllowed.WithCause("note", "category "+it.CategoryID+" does not allow notes")
		}
		if t.restr != nil && len(*t.restr) > 0 {
			if !it.Category.RestrictionsAllowed() {
				return nil, compat.ErrRestrNotAllowed.WithCause("restrictions", "category "+it.CategoryID+" does not allow restrictions")
			}
			rs, err := compat.CheckRestrictions(*t.restr, t.link)
			if err != nil {
				return nil, err
			}
			t.restr = &rs
		}
	}
	return out, nil
}

// build makes new compatibility rows of targets.
func (s *Service) build(it compat.Item, ts []target) []compat.Compatibility {
	now := s.clock.Now()
	out := make([]compat.Compatibility, 0, len(ts))
	for _, t := range ts {
		c := compat.Compatibility{ID: kernel.NewUUID(), ItemID: it.ID, DomainID: t.product.DomainID, ProductID: t.product.ID,
			ProductName: t.product.Name, Source: compat.SourceSeller, CreationSource: t.creation,
			NoteStatus: compat.NoteNone, Restrictions: []compat.Restriction{}, DateCreated: now, LastUpdated: now}
		if c.CreationSource == "" {
			c.CreationSource = compat.CreationManual
		}
		if t.note != nil && *t.note != "" {
			c.Note, c.NoteStatus = *t.note, compat.NotePending
		}
		if t.restr != nil {
			c.Restrictions = *t.restr
		}
		out = append(out, c)
	}
	return out
}
