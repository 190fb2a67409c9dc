// Package catalogport declares what the catalog module offers (Service) and
// what it needs from storage (Store): categories, domains, products, items.
package catalogport

import (
	"context"
	"errors"

	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/paging"
)

// ErrNotFound is returned by stores for a missing row.
var ErrNotFound = errors.New("not found")

// Service is what HTTP, the sandbox and other modules call.
type Service interface {
	// PutCategory validates and upserts a category (sandbox).
	PutCategory(ctx context.Context, c catalog.Category) (catalog.Category, error)
	Category(ctx context.Context, id string) (catalog.Category, error)
	// Categories returns the categories among ids in one read, in any
	// order; unknown ids are left out.
	Categories(ctx context.Context, ids []string) ([]catalog.Category, error)
	PutDomain(ctx context.Context, d catalog.Domain) (catalog.Domain, error)
	Domain(ctx context.Context, id string) (catalog.Domain, error)
	// PutProduct validates and upserts a product; its domain must exist.
	PutProduct(ctx context.Context, p catalog.Product) (catalog.Product, error)
	Product(ctx context.Context, id string) (catalog.Product, error)
	// PutItem validates and upserts an item; its seller and category must
	// exist. It answers the item as the public API shows it.
	PutItem(ctx context.Context, it catalog.Item) (catalog.ItemView, error)
	// Item is the stored item (without computed tags).
	Item(ctx context.Context, id string) (catalog.Item, error)
	// Parcels returns what shipping reads of the items among ids, in one
	// read, in any order; unknown ids are left out.
	Parcels(ctx context.Context, ids []string) ([]catalog.Parcel, error)
	// ItemView is the item resource of the public API.
	ItemView(ctx context.Context, id string) (catalog.ItemView, error)
	// SearchItems lists the ids of a seller's items; the caller in ctx must
	// be that seller.
	SearchItems(ctx context.Context, q catalog.ItemQuery, page paging.Request) (SearchResult, error)
	// ScanItems is the scan form of SearchItems (search_type=scan): the
	// block of at most limit ids after the scroll_id ("" starts the scan;
	// a scroll_id carries its query, which replaces q's filters), and the
	// scroll_id of the next block ("" once a block comes back empty).
	ScanItems(ctx context.Context, q catalog.ItemQuery, scrollID string, limit int) (ScanResult, error)
	// SearchSite lists a page of the active items of a site whose titles
	// hold every word of the query; anybody may search.
	SearchSite(ctx context.Context, q catalog.SiteQuery, page paging.Request) (SiteResult, error)
}

// OfficialStores tells which official stores (brands) a seller is bound to,
// so that an item's official_store_id can be checked as area D says.
type OfficialStores interface {
	// OfficialStoreIDs lists, by id, the official stores of site siteID
	// that userID is bound to.
	OfficialStoreIDs(ctx context.Context, userID int64, siteID string) ([]int64, error)
}

// ItemWatch is told, inside a write's transaction, that an item's public
// resource may have changed (its compatibilities, its local delivery), so
// that the notifications compare what GET /items/{id} shows (the catalog
// service implements it).
type ItemWatch interface {
	ItemTouched(ctx context.Context, itemID string) error
}

// SearchResult is one page of a seller's item ids.
type SearchResult struct {
	IDs  []string
	Page paging.Page
}

// ScanResult is one block of a scan of a seller's items.
type ScanResult struct {
	IDs      []string
	Total    int
	Limit    int
	ScrollID string
}

// SiteResult is one page of the site search.
type SiteResult struct {
	Items []catalog.Item
	Page  paging.Page
}

// Store persists the catalog.
type Store interface {
	// UpsertCategory stores a category; an existing one keeps date_created.
	UpsertCategory(ctx context.Context, c catalog.Category) error
	Category(ctx context.Context, id string) (catalog.Category, error)
	// Categories returns the stored categories among ids, in any order.
	Categories(ctx context.Context, ids []string) ([]catalog.Category, error)
	UpsertDomain(ctx context.Context, d catalog.Domain) error
	Domain(ctx context.Context, id string) (catalog.Domain, error)
	// UpsertProduct stores a product and replaces its attribute index.
	UpsertProduct(ctx context.Context, p catalog.Product) error
	Product(ctx context.Context, id string) (catalog.Product, error)
	// UpsertItem stores an item (part_number from its PART_NUMBER
	// attribute); an existing one keeps date_created.
	UpsertItem(ctx context.Context, it catalog.Item) error
	Item(ctx context.Context, id string) (catalog.Item, error)
	// Parcels returns the parcels of the stored items among ids, in any
	// order, reading only the columns a parcel needs.
	Parcels(ctx context.Context, ids []string) ([]catalog.Parcel, error)
	// ItemWithFacts returns an item and the computed facts derived from
	// the compatibility tables and its category, in one read (the item
	// resource's).
	ItemWithFacts(ctx context.Context, id string) (catalog.Item, catalog.Facts, error)
	// SearchItems returns one page of matching item ids (ordered by id) and
	// the total number of matches.
	// q.After narrows the page (ids after it), not the total.
	SearchItems(ctx context.Context, q catalog.ItemQuery, page paging.Request) ([]string, int, error)
	// SearchSite returns one page of the site's active items matching q
	// (ordered by id) and the total number of matches.
	SearchSite(ctx context.Context, q catalog.SiteQuery, page paging.Request) ([]catalog.Item, int, error)
}
