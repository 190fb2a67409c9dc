package catalogporttest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/catalogport"
)

// Memory is an in-memory catalogport.Store for use-case unit tests. It keeps
// the compatibility tables the facts are derived from (item → products,
// universal and exception flags) so tests can set them directly, and it
// passes TestStore like the SQL stores do.
type Memory struct {
	mu         sync.Mutex
	categories map[string]catalog.Category
	domains    map[string]catalog.Domain
	products   map[string]catalog.Product
	items      map[string]catalog.Item
	compat     map[string]map[string]bool // item id → product ids
	universal  map[string]bool
	exception  map[string]bool
	flex       map[string]bool // items with local delivery
}

var _ catalogport.Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{categories: map[string]catalog.Category{}, domains: map[string]catalog.Domain{},
		products: map[string]catalog.Product{}, items: map[string]catalog.Item{},
		compat: map[string]map[string]bool{}, universal: map[string]bool{}, exception: map[string]bool{}, flex: map[string]bool{}}
}

// Env is the contract suite's view of the store; users need no table here.
func (m *Memory) Env() Env {
	return Env{Store: m, AddUser: func(context.Context, int64) {},
		AddCompatibility: m.AddCompatibility, SetCompatState: m.SetCompatState, EnableFlex: m.EnableFlex,
		ProductIndex: m.ProductIndex, PartNumber: m.PartNumber}
}

// AddCompatibility declares item compatible with product.
func (m *Memory) AddCompatibility(_ context.Context, itemID, productID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.compat[itemID] == nil {
		m.compat[itemID] = map[string]bool{}
	}
	m.compat[itemID][productID] = true
}

// SetCompatState sets the item's universal and exception flags.
func (m *Memory) SetCompatState(_ context.Context, itemID string, universal, exception bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.universal[itemID], m.exception[itemID] = universal, exception
}

// EnableFlex records local delivery as enabled on the item.
func (m *Memory) EnableFlex(_ context.Context, itemID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.flex[itemID] = true
}

// ProductIndex returns the attribute index of a product as the SQL stores
// keep it: "ATTRIBUTE|value_id|lower-cased value_name", sorted.
func (m *Memory) ProductIndex(_ context.Context, productID string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, a := range m.products[productID].Attributes {
		out = append(out, a.ID+"|"+a.ValueID+"|"+strings.ToLower(a.ValueName))
	}
	sort.Strings(out)
	return out
}

// PartNumber returns the part number of a stored item.
func (m *Memory) PartNumber(_ context.Context, itemID string) *string {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.items[itemID]
	if !ok {
		return nil
	}
	return it.PartNumber()
}

// UpsertCategory stores a category; an existing one keeps date_created.
func (m *Memory) UpsertCategory(_ context.Context, c catalog.Category) error {
	return put(&m.mu, m.categories, c.ID, c, func(old catalog.Category, c *catalog.Category) { c.DateCreated = old.DateCreated })
}

// Category returns a stored category.
func (m *Memory) Category(_ context.Context, id string) (catalog.Category, error) {
	return get(&m.mu, m.categories, id)
}

// Categories returns the stored categories among ids.
func (m *Memory) Categories(_ context.Context, ids []string) ([]catalog.Category, error) {
	return getAll(&m.mu, m.categories, ids), nil
}

// UpsertDomain stores a domain.
func (m *Memory) UpsertDomain(_ context.Context, d catalog.Domain) error {
	return put(&m.mu, m.domains, d.ID, d, nil)
}

// Domain returns a stored domain.
func (m *Memory) Domain(_ context.Context, id string) (catalog.Domain, error) {
	return get(&m.mu, m.domains, id)
}

// UpsertProduct stores a product.
func (m *Memory) UpsertProduct(_ context.Context, p catalog.Product) error {
	return put(&m.mu, m.products, p.ID, p, nil)
}

// Product returns a stored product.
func (m *Memory) Product(_ context.Context, id string) (catalog.Product, error) {
	return get(&m.mu, m.products, id)
}

// UpsertItem stores an item; an existing one keeps date_created.
func (m *Memory) UpsertItem(_ context.Context, it catalog.Item) error {
	return put(&m.mu, m.items, it.ID, it, func(old catalog.Item, it *catalog.Item) { it.DateCreated = old.DateCreated })
}

// Item returns a stored item.
func (m *Memory) Item(_ context.Context, id string) (catalog.Item, error) {
	return get(&m.mu, m.items, id)
}

// Parcels returns the parcels of the stored items among ids.
func (m *Memory) Parcels(_ context.Context, ids []string) ([]catalog.Parcel, error) {
	out := []catalog.Parcel{}
	for _, it := range getAll(&m.mu, m.items, ids) {
		out = append(out, catalog.Parcel{ItemID: it.ID, SiteID: it.SiteID, SellerID: it.SellerID, CategoryID: it.CategoryID,
			Dimensions: it.Shipping.Dimensions})
	}
	return out, nil
}

// ItemWithFacts derives the facts with the rules of docs/decisions.md.
func (m *Memory) ItemWithFacts(_ context.Context, id string) (catalog.Item, catalog.Facts, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.items[id]
	if !ok {
		return catalog.Item{}, catalog.Facts{}, fmt.Errorf("item facts %s: %w", id, catalogport.ErrNotFound)
	}
	f := m.facts(it)
	f.SelfService = m.flex[id]
	return it, f, nil
}

func (m *Memory) facts(it catalog.Item) catalog.Facts {
	f := catalog.Facts{HasCompatibilities: len(m.compat[it.ID]) > 0, Universal: m.universal[it.ID]}
	cat, ok := m.categories[it.CategoryID]
	required := ok && cat.Compatibilities != nil && cat.Compatibilities.Required
	f.Incomplete = required && !f.HasCompatibilities && !m.exception[it.ID] && !f.Universal
	if f.Universal {
		return f
	}
	pn := it.PartNumber()
	for _, o := range m.items {
		if o.ID == it.ID || o.Status != "active" {
			continue
		}
		samePN := pn != nil && o.PartNumber() != nil && *o.PartNumber() == *pn
		sameCP := it.CatalogProductID != nil && o.CatalogProductID != nil && *o.CatalogProductID == *it.CatalogProductID
		if !samePN && !sameCP {
			continue
		}
		for p := range m.compat[o.ID] {
			if !m.compat[it.ID][p] {
				f.Pending = true
			}
		}
	}
	return f
}

// SearchItems returns a page of a seller's matching item ids (by id) and the
// total.
func (m *Memory) SearchItems(_ context.Context, q catalog.ItemQuery, page paging.Request) ([]string, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var all []string
	for _, it := range m.items {
		if it.SellerID != q.SellerID || (q.Status != "" && it.Status != q.Status) {
			continue
		}
		f := m.facts(it)
		ok := true
		for _, t := range q.Tags {
			switch t {
			case catalog.TagIncomplete:
				ok = ok && f.Incomplete
			case catalog.TagPending:
				ok = ok && f.Pending
			default:
				return nil, 0, fmt.Errorf("memory: search: unknown tag %q", t)
			}
		}
		if ok {
			all = append(all, it.ID)
		}
	}
	slices.Sort(all)
	total := len(all)
	if q.After != "" {
		all = slices.DeleteFunc(all, func(id string) bool { return id <= q.After })
	}
	ids := []string{}
	if page.Limit > 0 && page.Offset < len(all) {
		ids = append(ids, all[page.Offset:min(len(all), page.Offset+page.Limit)]...)
	}
	return ids, total, nil
}

// SearchSite returns a page of the site's active items whose titles hold
// every word (as a word prefix), by id, and the total.
func (m *Memory) SearchSite(_ context.Context, q catalog.SiteQuery, page paging.Request) ([]catalog.Item, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var all []catalog.Item
	for _, it := range m.items {
		if it.SiteID != q.SiteID || it.Status != "active" || (q.SellerID != 0 && it.SellerID != q.SellerID) ||
			(q.CategoryID != "" && it.CategoryID != q.CategoryID) {
			continue
		}
		title := catalog.TitleWords(it.Title)
		ok := true
		for _, w := range q.Words {
			ok = ok && strings.Contains(title, " "+w)
		}
		if ok {
			all = append(all, it)
		}
	}
	slices.SortFunc(all, func(a, b catalog.Item) int { return strings.Compare(a.ID, b.ID) })
	out := []catalog.Item{}
	if page.Limit > 0 && page.Offset < len(all) {
		out = append(out, all[page.Offset:min(len(all), page.Offset+page.Limit)]...)
	}
	return out, len(all), nil
}

// put stores v under id; keep, when given, carries over what an existing
// row keeps (date_created).
func put[T any](mu *sync.Mutex, m map[string]T, id string, v T, keep func(old T, v *T)) error {
	mu.Lock()
	defer mu.Unlock()
	if old, ok := m[id]; ok && keep != nil {
		keep(old, &v)
	}
	m[id] = v
	return nil
}

// getAll returns the values of the ids present, each once.
func getAll[T any](mu *sync.Mutex, m map[string]T, ids []string) []T {
	mu.Lock()
	defer mu.Unlock()
	out := []T{}
	seen := map[string]bool{}
	for _, id := range ids {
		if v, ok := m[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, v)
		}
	}
	return out
}

func get[T any](mu *sync.Mutex, m map[string]T, id string) (T, error) {
	mu.Lock()
	defer mu.Unlock()
	v, ok := m[id]
	if !ok {
		return v, fmt.Errorf("%s: %w", id, catalogport.ErrNotFound)
	}
	return v, nil
}
