// Package shippingsvc implements the shipping use cases of area C: the modes
// and preferences a seller reads for a category, the free-shipping cost of a
// package, an item, many items or a listing not yet created, and the
// sandbox's rate tables.
package shippingsvc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/shipping"
	"github.com/feria/feria/ports/shippingport"
)

// Deps is what the service needs. Its one write (a rate table) is one
// store call, so it takes no transaction.
type Deps struct {
	Rates   shippingport.Rates
	Catalog shippingport.Catalog
	Users   shippingport.Users
}

// Service implements shippingport.Service.
type Service struct {
	rates   shippingport.Rates
	catalog shippingport.Catalog
	users   shippingport.Users
}

var _ shippingport.Service = (*Service)(nil)

// New returns the shipping service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{rates: d.Rates, catalog: d.Catalog, users: d.Users}
}

// badParam is a 400 naming the query or path parameter at fault.
func badParam(param, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return shipping.ErrBadQuery.With(msg).WithCause(param, msg)
}

// checkID checks an item or category id parameter: a site id and digits.
func checkID(param, id string) error {
	if id == "" {
		return badParam(param, "%s is required", param)
	}
	if kernel.SiteOf(id) == "" {
		return badParam(param, "%s must be a site id followed by digits, got %q", param, id)
	}
	return nil
}

// Modes are the shipping modes a user may use in a category of its site.
func (s *Service) Modes(ctx context.Context, userID int64, categoryID string) ([]shipping.Mode, error) {
	if err := checkID("category_id", categoryID); err != nil {
		return nil, err
	}
	u, err := s.user(ctx, userID)
	if err != nil {
		return nil, err
	}
	c, err := s.category(ctx, categoryID)
	if err != nil {
		return nil, err
	}
	if c.SiteID != u.SiteID {
		return nil, badParam("category_id", "category %s is of site %s; user %d sells on %s", c.ID, c.SiteID, u.ID, u.SiteID)
	}
	return shipping.Modes(u.SiteID, c), nil
}

// Preferences are a category's shipping preferences.
func (s *Service) Preferences(ctx context.Context, categoryID string) (shipping.Preferences, error) {
	if err := checkID("category_id", categoryID); err != nil {
		return shipping.Preferences{}, err
	}
	c, err := s.category(ctx, categoryID)
	if err != nil {
		return shipping.Preferences{}, err
	}
	return shipping.PreferencesOf(c), nil
}

// UserCost prices a package, an existing item or a listing not yet created
// for user userID as the seller, on the user's site.
func (s *Service) UserCost(ctx context.Context, userID int64, param func(string) string) (shipping.Quote, error) {
	q, err := shipping.ReadCostQuery(param)
	if err != nil {
		return shipping.Quote{}, err
	}
	u, err := s.user(ctx, userID)
	if err != nil {
		return shipping.Quote{}, err
	}
	var item *catalog.Parcel
	var cat catalog.Category
	switch q.Form {
	case shipping.ByItem:
		it, err := s.item(ctx, q.ItemID)
		if err != nil {
			return shipping.Quote{}, err
		}
		if it.SiteID != u.SiteID {
			return shipping.Quote{}, badParam("item_id", "item %s is of site %s; user %d sells on %s", it.ItemID, it.SiteID, u.ID, u.SiteID)
		}
		item = &it
		if shipping.NeedsCategory(q.Dimensions, item) {
			if cat, err = s.category(ctx, it.CategoryID); err != nil {
				return shipping.Quote{}, err
			}
		}
	case shipping.ByListing:
		if cat, err = s.category(ctx, q.Listing.CategoryID); err != nil {
			return shipping.Quote{}, err
		}
		if cat.SiteID != u.SiteID {
			return shipping.Quote{}, badParam("category_id", "category %s is of site %s; user %d sells on %s", cat.ID, cat.SiteID, u.ID, u.SiteID)
		}
		if site, _ := kernel.LookupSite(u.SiteID); q.Listing.CurrencyID != site.Currency {
			return shipping.Quote{}, badParam("currency_id", "currency_id must be %s, the currency of site %s, got %q",
				site.Currency, site.ID, q.Listing.CurrencyID)
		}
	}
	pkg, _, err := shipping.PackageOf(q.Dimensions, item, cat)
	if err != nil {
		return shipping.Quote{}, err
	}
	tables, err := s.tablesOf(ctx, []string{u.SiteID})
	if err != nil {
		return shipping.Quote{}, err
	}
	return tables[u.SiteID].Quote(pkg, u.Reputation)
}

// ItemCost prices an existing item for its seller.
func (s *Service) ItemCost(ctx context.Context, itemID, dimensions string) (shipping.Quote, error) {
	if err := checkID("item_id", itemID); err != nil {
		return shipping.Quote{}, err
	}
	if err := shipping.ReadDimensions(dimensions); err != nil {
		return shipping.Quote{}, err
	}
	it, err := s.item(ctx, itemID)
	if err != nil {
		return shipping.Quote{}, err
	}
	seller, err := s.user(ctx, it.SellerID)
	if err != nil {
		return shipping.Quote{}, err
	}
	var cat catalog.Category
	if shipping.NeedsCategory(dimensions, &it) {
		if cat, err = s.category(ctx, it.CategoryID); err != nil {
			return shipping.Quote{}, err
		}
	}
	pkg, _, err := shipping.PackageOf(dimensions, &it, cat)
	if err != nil {
		return shipping.Quote{}, err
	}
	tables, err := s.tablesOf(ctx, []string{it.SiteID})
	if err != nil {
		return shipping.Quote{}, err
	}
	return tables[it.SiteID].Quote(pkg, seller.Reputation)
}

// ItemsCost prices many items with four reads at most, whatever their
// number: the items' parcels, the categories of those without dimensions,
// the sellers, and the rate tables of their sites (each read once).
func (s *Service) ItemsCost(ctx context.Context, rawIDs, dimensions string) ([]shippingport.ItemQuote, error) {
	ids, err := shipping.ReadIDs(rawIDs)
	if err != nil {
		return nil, err
	}
	if err := shipping.ReadDimensions(dimensions); err != nil {
		return nil, err
	}
	items, err := s.parcels(ctx, ids)
	if err != nil {
		return nil, err
	}
	r, err := s.quoteReads(ctx, ids, items, dimensions)
	if err != nil {
		return nil, err
	}
	out := make([]shippingport.ItemQuote, 0, len(ids))
	for _, id := range ids {
		q, err := r.quote(id, dimensions)
		if err != nil {
			return nil, err
		}
		out = append(out, shippingport.ItemQuote{ItemID: id, Quote: q})
	}
	return out, nil
}

// parcels reads the parcels of ids by item, or names the items not found.
func (s *Service) parcels(ctx context.Context, ids []string) (map[string]catalog.Parcel, error) {
	list, err := s.catalog.Parcels(ctx, ids)
	if err != nil {
		return nil, err
	}
	items := make(map[string]catalog.Parcel, len(list))
	for _, it := range list {
		items[it.ItemID] = it
	}
	var unknown []string
	for _, id := range ids {
		if _, ok := items[id]; !ok {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) == 1 {
		return nil, catalog.ErrItemNotFound.Withf("item %s not found", unknown[0])
	}
	if len(unknown) > 1 {
		return nil, catalog.ErrItemNotFound.Withf("items %s not found", strings.Join(unknown, ", "))
	}
	return items, nil
}

// quotes is what pricing many items reads once: their parcels, the
// categories of those without dimensions, the sellers and the rate tables.
type quotes struct {
	items   map[string]catalog.Parcel
	cats    map[string]catalog.Category
	sellers map[int64]account.User
	tables  map[string]shipping.Table
}

// quoteReads reads the categories, sellers and rate tables the items need,
// each once.
func (s *Service) quoteReads(ctx context.Context, ids []string, items map[string]catalog.Parcel, dimensions string) (quotes, error) {
	r := quotes{items: items, cats: map[string]catalog.Category{}}
	var catIDs, sites []string
	var sellerIDs []int64
	for _, id := range ids {
		it := items[id]
		if shipping.NeedsCategory(dimensions, &it) && !slices.Contains(catIDs, it.CategoryID) {
			catIDs = append(catIDs, it.CategoryID)
		}
		if !slices.Contains(sellerIDs, it.SellerID) {
			sellerIDs = append(sellerIDs, it.SellerID)
		}
		if !slices.Contains(sites, it.SiteID) {
			sites = append(sites, it.SiteID)
		}
	}
	if len(catIDs) > 0 {
		list, err := s.catalog.Categories(ctx, catIDs)
		if err != nil {
			return r, err
		}
		for _, c := range list {
			r.cats[c.ID] = c
		}
	}
	users, err := s.users.Users(ctx, sellerIDs)
	if err != nil {
		return r, err
	}
	r.sellers = make(map[int64]account.User, len(users))
	for _, u := range users {
		r.sellers[u.ID] = u
	}
	r.tables, err = s.tablesOf(ctx, sites)
	return r, err
}

// quote prices the item id from what was read.
func (r quotes) quote(id, dimensions string) (shipping.Quote, error) {
	it := r.items[id]
	seller, ok := r.sellers[it.SellerID]
	if !ok {
		return shipping.Quote{}, account.ErrUserNotFound.Withf("user %d, the seller of item %s, not found", it.SellerID, id)
	}
	cat, ok := r.cats[it.CategoryID]
	if !ok && shipping.NeedsCategory(dimensions, &it) {
		return shipping.Quote{}, catalog.ErrCategoryNotFound.Withf("category %s of item %s not found", it.CategoryID, id)
	}
	pkg, _, err := shipping.PackageOf(dimensions, &it, cat)
	if err != nil {
		return shipping.Quote{}, ofItem(id, err)
	}
	q, err := r.tables[it.SiteID].Quote(pkg, seller.Reputation)
	if err != nil {
		return shipping.Quote{}, ofItem(id, err)
	}
	return q, nil
}

// ofItem says which item of a multi-item call an error is about.
func ofItem(id string, err error) error {
	var e *kernel.Error
	if !errors.As(err, &e) || e.Kind == kernel.Internal {
		return err
	}
	prefix := "item " + id + ": "
	if strings.HasPrefix(e.Message, "item "+id+" ") {
		prefix = ""
	}
	out := e.With(prefix + e.Message)
	out.Causes = make([]kernel.Cause, len(e.Causes))
	for i, c := range e.Causes {
		out.Causes[i] = kernel.Cause{Code: c.Code, Message: prefix + c.Message}
	}
	return out
}

// PutRates validates and stores a site's rate table.
func (s *Service) PutRates(ctx context.Context, r shipping.Rates) (shipping.Rates, error) {
	n, err := shipping.Normalize(r)
	if err != nil {
		return shipping.Rates{}, err
	}
	if err := s.rates.PutRates(ctx, n); err != nil {
		return shipping.Rates{}, err
	}
	return n, nil
}

// Rates is the table in force for a site.
func (s *Service) Rates(ctx context.Context, siteID string) (shipping.Rates, error) {
	if _, ok := kernel.LookupSite(siteID); !ok {
		msg := fmt.Sprintf("site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got %q", siteID)
		return shipping.Rates{}, shipping.ErrInvalidRates.With(msg).WithCause("site_id", msg)
	}
	rates, err := s.ratesOf(ctx, []string{siteID})
	if err != nil {
		return shipping.Rates{}, err
	}
	return rates[siteID], nil
}

// tablesOf reads the tables in force for sites to quote with.
func (s *Service) tablesOf(ctx context.Context, sites []string) (map[string]shipping.Table, error) {
	rates, err := s.ratesOf(ctx, sites)
	if err != nil {
		return nil, err
	}
	out := make(map[string]shipping.Table, len(rates))
	for site, r := range rates {
		if out[site], err = r.Table(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ratesOf are the tables in force for sites, in one read: the stored ones,
// and the defaults of the others.
func (s *Service) ratesOf(ctx context.Context, sites []string) (map[string]shipping.Rates, error) {
	stored, err := s.rates.RatesOf(ctx, sites)
	if err != nil {
		return nil, err
	}
	out := make(map[string]shipping.Rates, len(sites))
	for _, site := range sites {
		r, ok := stored[site]
		if !ok {
			if r, ok = shipping.Default(site); !ok {
				return nil, fmt.Errorf("shippingsvc: no rate table for site %q", site)
			}
		}
		out[site] = r
	}
	return out, nil
}

// user reads a user; an unknown one is a 404 naming it.
func (s *Service) user(ctx context.Context, id int64) (account.User, error) {
	u, err := s.users.User(ctx, id)
	if errors.Is(err, account.ErrUserNotFound) {
		return u, account.ErrUserNotFound.Withf("user %d not found", id)
	}
	return u, err
}

// category reads a category; an unknown one is a 404 naming it.
func (s *Service) category(ctx context.Context, id string) (catalog.Category, error) {
	c, err := s.catalog.Category(ctx, id)
	if errors.Is(err, catalog.ErrCategoryNotFound) {
		return c, catalog.ErrCategoryNotFound.Withf("category %s not found", id)
	}
	return c, err
}

// item reads an item's parcel; an unknown item is a 404 naming it.
func (s *Service) item(ctx context.Context, id string) (catalog.Parcel, error) {
	list, err := s.catalog.Parcels(ctx, []string{id})
	if err != nil {
		return catalog.Parcel{}, err
	}
	if len(list) == 0 {
		return catalog.Parcel{}, catalog.ErrItemNotFound.Withf("item %s not found", id)
	}
	return list[0], nil
}
