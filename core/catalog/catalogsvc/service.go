// Package catalogsvc implements the catalog use cases: the sandbox's puts of
// categories, domains, products and items, and the public item reads.
package catalogsvc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/accountport"
	"github.com/feria/feria/ports/catalogport"
	"github.com/feria/feria/ports/webhooksport"
)

// Deps is what the service needs.
type Deps struct {
	Store catalogport.Store
	Users accountport.Service
	// OfficialStores are the official stores a seller is bound to (area
	// D), which PutItem checks an item's official_store_id against.
	OfficialStores catalogport.OfficialStores
	// Changes are the notifications to applications (topic items), told of
	// every item whose public resource a write may have changed.
	Changes webhooksport.Changes
	// Tx holds an item's row and its notification in one transaction.
	Tx    kernel.Tx
	Clock kernel.Clock
}

// Service implements catalogport.Service.
type Service struct {
	store   catalogport.Store
	users   accountport.Service
	stores  catalogport.OfficialStores
	changes webhooksport.Changes
	tx      kernel.Tx
	clock   kernel.Clock
}

var _ catalogport.Service = (*Service)(nil)

// New returns the catalog service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{store: d.Store, users: d.Users, stores: d.OfficialStores, changes: d.Changes, tx: d.Tx, clock: d.Clock}
}

// ItemTouched tells the notifications what GET /items/{id} shows now, in
// the caller's transaction; they notify only when it differs from what it
// showed before. Other modules whose writes change the resource (the
// compatibilities, local delivery) call it.
func (s *Service) ItemTouched(ctx context.Context, id string) error {
	v, err := s.ItemView(ctx, id)
	if err != nil {
		return err
	}
	return s.itemChanged(ctx, v)
}

func (s *Service) itemChanged(ctx context.Context, v catalog.ItemView) error {
	return s.changes.Changed(ctx, webhooks.Change{Topic: webhooks.TopicItems, Resource: "/items/" + v.ID, UserID: v.SellerID, State: v})
}

// Errors of the item search.
var (
	ErrNotSeller   = kernel.E(kernel.Permission, "forbidden", "the caller may only search its own items")
	ErrNoCaller    = kernel.E(kernel.Unauthenticated, "unauthorized", "access token required")
	ErrInvalidTags = kernel.E(kernel.Invalid, "bad_request", "invalid tags")
	ErrSite        = kernel.E(kernel.Invalid, "bad_request", "invalid site_id")
)

// missing turns a store's ErrNotFound into e, anything else passes.
func missing(err error, e *kernel.Error) error {
	if errors.Is(err, catalogport.ErrNotFound) {
		return e.Wrap(err)
	}
	return err
}

// PutCategory validates and stores a category; date_created is kept.
func (s *Service) PutCategory(ctx context.Context, c catalog.Category) (catalog.Category, error) {
	if c.AcceptedShippingMethods == nil {
		c.AcceptedShippingMethods = []int64{}
	}
	if c.ShippingPreferences.Logistics == nil {
		c.ShippingPreferences.Logistics = []catalog.Logistic{}
	}
	for i := range c.ShippingPreferences.Logistics {
		if c.ShippingPreferences.Logistics[i].Types == nil {
			c.ShippingPreferences.Logistics[i].Types = []string{}
		}
	}
	if err := catalog.ValidateCategory(c); err != nil {
		return c, err
	}
	now := s.clock.Now()
	c.DateCreated, c.LastModified = now, now
	if old, err := s.store.Category(ctx, c.ID); err == nil {
		c.DateCreated = old.DateCreated
		if kernel.Unchanged(old, c, func(c *catalog.Category) { c.DateCreated, c.LastModified = time.Time{}, time.Time{} }) {
			c.LastModified = old.LastModified
		}
	} else if !errors.Is(err, catalogport.ErrNotFound) {
		return c, err
	}
	if err := s.store.UpsertCategory(ctx, c); err != nil {
		return c, err
	}
	return s.Category(ctx, c.ID)
}

// Category returns a stored category.
func (s *Service) Category(ctx context.Context, id string) (catalog.Category, error) {
	c, err := s.store.Category(ctx, id)
	return c, missing(err, catalog.ErrCategoryNotFound)
}

// Categories returns the categories among ids in one read.
func (s *Service) Categories(ctx context.Context, ids []string) ([]catalog.Category, error) {
	return s.store.Categories(ctx, ids)
}

// PutDomain validates and stores a domain.
func (s *Service) PutDomain(ctx context.Context, d catalog.Domain) (catalog.Domain, error) {
	if d.Compatibilities == nil {
		d.Compatibilities = []catalog.DomainCompatibility{}
	}
	for i := range d.Compatibilities {
		c := &d.Compatibilities[i]
		if c.Restrictions == nil {
			c.Restrictions = []any{}
		}
		if c.Categories == nil {
			c.Categories = []catalog.DomainCategory{}
		}
		if c.RestrictionValues == nil {
			c.RestrictionValues = []catalog.RestrictionValue{}
		}
		for j := range c.RestrictionValues {
			if c.RestrictionValues[j].Values == nil {
				c.RestrictionValues[j].Values = []catalog.ValueEntry{}
			}
		}
	}
	if err := catalog.ValidateDomain(d); err != nil {
		return d, err
	}
	if err := s.store.UpsertDomain(ctx, d); err != nil {
		return d, err
	}
	return s.Domain(ctx, d.ID)
}

// Domain returns a stored domain.
func (s *Service) Domain(ctx context.Context, id string) (catalog.Domain, error) {
	d, err := s.store.Domain(ctx, id)
	return d, missing(err, catalog.ErrDomainNotFound)
}

// PutProduct validates and stores a product; its domain must exist.
func (s *Service) PutProduct(ctx context.Context, p catalog.Product) (catalog.Product, error) {
	if p.Attributes == nil {
		p.Attributes = []catalog.ProductAttribute{}
	}
	if err := catalog.ValidateProduct(p); err != nil {
		return p, err
	}
	if _, err := s.store.Domain(ctx, p.DomainID); err != nil {
		if errors.Is(err, catalogport.ErrNotFound) {
			return p, catalog.ErrInvalidProduct.Withf("domain %s does not exist", p.DomainID).
				WithCause("domain_id", fmt.Sprintf("domain %s does not exist", p.DomainID))
		}
		return p, err
	}
	if err := s.store.UpsertProduct(ctx, p); err != nil {
		return p, err
	}
	return s.Product(ctx, p.ID)
}

// Product returns a stored product.
func (s *Service) Product(ctx context.Context, id string) (catalog.Product, error) {
	p, err := s.store.Product(ctx, id)
	return p, missing(err, catalog.ErrProductNotFound)
}

// PutItem fills an item's defaults, validates it, checks its seller and
// category and stores it; computed tags and attributes are never stored.
func (s *Service) PutItem(ctx context.Context, it catalog.Item) (catalog.ItemView, error) {
	s.defaults(&it)
	if err := catalog.ValidateItem(it); err != nil {
		return catalog.ItemView{}, err
	}
	seller, err := s.users.User(ctx, it.SellerID)
	switch {
	case kernel.KindOf(err) == kernel.NotExist:
		msg := fmt.Sprintf("seller %d does not exist", it.SellerID)
		return catalog.ItemView{}, catalog.ErrInvalidItem.With(msg).WithCause("seller_id", msg)
	case err != nil:
		return catalog.ItemView{}, err
	case seller.SiteID != it.SiteID:
		msg := fmt.Sprintf("seller %d is a user of site %s, not %s", it.SellerID, seller.SiteID, it.SiteID)
		return catalog.ItemView{}, catalog.ErrInvalidItem.With(msg).WithCause("seller_id", msg)
	}
	cat, err := s.store.Category(ctx, it.CategoryID)
	if errors.Is(err, catalogport.ErrNotFound) {
		msg := fmt.Sprintf("category %s does not exist", it.CategoryID)
		return catalog.ItemView{}, catalog.ErrInvalidItem.With(msg).WithCause("category_id", msg)
	}
	if err != nil {
		return catalog.ItemView{}, err
	}
	if it.DomainID == "" {
		it.DomainID = cat.DomainID
	}
	if err := s.checkOfficialStore(ctx, it); err != nil {
		return catalog.ItemView{}, err
	}
	var v catalog.ItemView
	err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
		var err error
		v, err = s.storeItem(ctx, it)
		return err
	})
	return v, err
}

// storeItem stores a checked item, keeping its date_created (and its
// last_updated when nothing else changed), and tells the notifications
// what it shows now.
func (s *Service) storeItem(ctx context.Context, it catalog.Item) (catalog.ItemView, error) {
	now := s.clock.Now()
	it.DateCreated, it.LastUpdated = now, now
	if old, err := s.store.Item(ctx, it.ID); err == nil {
		it.DateCreated = old.DateCreated
		if kernel.Unchanged(old, it, func(it *catalog.Item) { it.DateCreated, it.LastUpdated = time.Time{}, time.Time{} }) {
			it.LastUpdated = old.LastUpdated
		}
	} else if !errors.Is(err, catalogport.ErrNotFound) {
		return catalog.ItemView{}, err
	}
	if err := s.store.UpsertItem(ctx, it); err != nil {
		return catalog.ItemView{}, err
	}
	v, err := s.ItemView(ctx, it.ID)
	if err != nil {
		return v, err
	}
	return v, s.itemChanged(ctx, v)
}

// checkOfficialStore applies area D to an item of a seller bound to official
// stores on the item's site: with several, official_store_id is required;
// a given one must be among them. A seller bound to none is not checked,
// because the sandbox loads brands after items (docs/decisions.md).
func (s *Service) checkOfficialStore(ctx context.Context, it catalog.Item) error {
	allowed, err := s.stores.OfficialStoreIDs(ctx, it.SellerID, it.SiteID)
	if err != nil || len(allowed) == 0 {
		return err
	}
	list := make([]string, len(allowed))
	for i, id := range allowed {
		list[i] = strconv.FormatInt(id, 10)
	}
	ids := strings.Join(list, ", ")
	switch {
	case it.OfficialStoreID == nil && len(allowed) > 1:
		msg := fmt.Sprintf("official_store_id is required for seller %d, bound to several official stores; allowed ids: %s", it.SellerID, ids)
		return catalog.ErrOfficialStoreRequired.With(msg).WithCause("item.official_store_id.invalid", msg)
	case it.OfficialStoreID != nil && !slices.Contains(allowed, *it.OfficialStoreID):
		return catalog.ErrOfficialStoreNotAllowed.WithCause("official_store_id",
			fmt.Sprintf("seller %d may not use official_store_id %d on site %s; allowed ids: %s", it.SellerID, *it.OfficialStoreID, it.SiteID, ids))
	}
	return nil
}

// defaults fills what an item body may leave out and drops what the service
// computes itself.
func (s *Service) defaults(it *catalog.Item) {
	if it.Status == "" {
		it.Status = "active"
	}
	if it.CurrencyID == "" {
		if site, ok := kernel.LookupSite(it.SiteID); ok {
			it.CurrencyID = site.Currency
		}
	}
	if it.Condition == "" {
		it.Condition = "new"
	}
	if it.ListingTypeID == "" {
		it.ListingTypeID = "gold_special"
	}
	tags := []string{}
	for _, t := range it.Tags {
		if !catalog.IsComputedTag(t) {
			tags = append(tags, t)
		}
	}
	it.Tags = tags
	attrs := []catalog.ItemAttribute{}
	for _, a := range it.Attributes {
		if a.ID == catalog.AttrHasCompatibilities {
			continue
		}
		if a.Values == nil {
			a.Values = []catalog.AttributeValue{}
		}
		attrs = append(attrs, a)
	}
	it.Attributes = attrs
	if it.DealIDs == nil {
		it.DealIDs = []string{}
	}
	sh := &it.Shipping
	if sh.Mode == "" {
		sh.Mode = "not_specified"
	}
	if sh.Methods == nil {
		sh.Methods = []any{}
	}
	if sh.Costs == nil {
		sh.Costs = []any{}
	}
	if sh.FreeMethods == nil {
		sh.FreeMethods = []catalog.FreeMethod{}
	}
	// A listing offering a free method offers free shipping: area C's
	// country-wide body names free_methods without the flag.
	if len(sh.FreeMethods) > 0 {
		sh.FreeShipping = true
	}
	if sh.Tags == nil {
		sh.Tags = []string{}
	}
}

// Item returns a stored item.
func (s *Service) Item(ctx context.Context, id string) (catalog.Item, error) {
	it, err := s.store.Item(ctx, id)
	return it, missing(err, catalog.ErrItemNotFound)
}

// Parcels returns what shipping reads of the items among ids, in one read.
func (s *Service) Parcels(ctx context.Context, ids []string) ([]catalog.Parcel, error) {
	return s.store.Parcels(ctx, ids)
}

// ItemView returns the item resource of the public API.
func (s *Service) ItemView(ctx context.Context, id string) (catalog.ItemView, error) {
	it, f, err := s.store.ItemWithFacts(ctx, id)
	if err != nil {
		return catalog.ItemView{}, missing(err, catalog.ErrItemNotFound)
	}
	return catalog.View(it, f), nil
}

// SearchItems lists a seller's item ids; only the seller may search them.
func (s *Service) SearchItems(ctx context.Context, q catalog.ItemQuery, page paging.Request) (catalogport.SearchResult, error) {
	if err := checkSearch(ctx, q); err != nil {
		return catalogport.SearchResult{}, err
	}
	ids, total, err := s.store.SearchItems(ctx, q, page)
	if err != nil {
		return catalogport.SearchResult{}, err
	}
	return catalogport.SearchResult{IDs: ids, Page: page.Of(total)}, nil
}

// ScanItems answers one block of a scan of a seller's items. The scroll_id
// of a block names the last id it answered, so the next block starts after
// it; an empty block has none, which ends every client's loop.
func (s *Service) ScanItems(ctx context.Context, q catalog.ItemQuery, scrollID string, limit int) (catalogport.ScanResult, error) {
	if scrollID != "" {
		sc, err := catalog.ParseScroll(scrollID, q.SellerID)
		if err != nil {
			return catalogport.ScanResult{}, err
		}
		q = sc.Query()
	}
	if limit < 1 {
		msg := fmt.Sprintf("limit must be between 1 and %d with search_type=scan, got %d", paging.MaxLimit, limit)
		return catalogport.ScanResult{}, paging.ErrInvalid.With(msg).WithCause("limit", msg)
	}
	if err := checkSearch(ctx, q); err != nil {
		return catalogport.ScanResult{}, err
	}
	ids, total, err := s.store.SearchItems(ctx, q, paging.Request{Limit: limit})
	if err != nil {
		return catalogport.ScanResult{}, err
	}
	r := catalogport.ScanResult{IDs: ids, Total: total, Limit: limit}
	if len(ids) > 0 {
		r.ScrollID = catalog.ScrollAfter(q, ids[len(ids)-1]).ID()
	}
	return r, nil
}

// checkSearch lets only the seller search its items, by computed tags.
func checkSearch(ctx context.Context, q catalog.ItemQuery) error {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return ErrNoCaller
	}
	if caller.UserID != q.SellerID {
		return ErrNotSeller.Withf("the caller (user %d) may only search its own items, not those of seller %d", caller.UserID, q.SellerID)
	}
	for _, t := range q.Tags {
		if !catalog.IsComputedTag(t) {
			msg := fmt.Sprintf("tags must be %s or %s, got %q", catalog.TagIncomplete, catalog.TagPending, t)
			return ErrInvalidTags.With(msg).WithCause("tags", msg)
		}
	}
	return nil
}

// SearchSite lists a page of the active items of a site whose titles hold
// every word of the query.
func (s *Service) SearchSite(ctx context.Context, q catalog.SiteQuery, page paging.Request) (catalogport.SiteResult, error) {
	var p kernel.Problems
	if !p.Site("site_id", q.SiteID) {
		return catalogport.SiteResult{}, p.Err(ErrSite)
	}
	items, total, err := s.store.SearchSite(ctx, q, page)
	if err != nil {
		return catalogport.SiteResult{}, err
	}
	return catalogport.SiteResult{Items: items, Page: page.Of(total)}, nil
}
