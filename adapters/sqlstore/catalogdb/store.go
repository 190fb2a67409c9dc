// Package catalogdb stores categories, domains, products (with their
// attribute index) and items through bun, and derives the computed facts of
// items (compatibility tags) from the compatibility tables.
package catalogdb

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/catalogport"
)

// Store implements catalogport.Store on bun.
type Store struct {
	db bun.IDB
	// itemFactsSQL is ItemWithFacts' query in db's dialect, built once.
	itemFactsSQL string
}

var _ catalogport.Store = (*Store)(nil)

// New returns a store on db.
func New(db bun.IDB) *Store {
	s := &Store{db: db}
	s.itemFactsSQL = `SELECT ` + itemColumns + `,
		CASE WHEN EXISTS (SELECT 1 FROM compatibilities x WHERE x.item_id = i.id) THEN 1 ELSE 0 END AS has_compatibilities,
		CASE WHEN ` + universalSQL + ` THEN 1 ELSE 0 END AS universal,
		CASE WHEN ` + s.incomplete() + ` THEN 1 ELSE 0 END AS incomplete,
		CASE WHEN ` + pendingSQL + ` THEN 1 ELSE 0 END AS pending,
		CASE WHEN ` + selfServiceSQL + ` THEN 1 ELSE 0 END AS self_service
		FROM items AS i WHERE i.id = $1`
	return s
}

type categoryRow struct {
	bun.BaseModel `bun:"table:categories"`
	catalog.Category
}

type domainRow struct {
	bun.BaseModel `bun:"table:domains"`
	catalog.Domain
}

type productRow struct {
	bun.BaseModel `bun:"table:products"`
	catalog.Product
}

type productAttributeRow struct {
	bun.BaseModel `bun:"table:product_attributes"`

	ProductID   string `bun:"product_id,pk"`
	DomainID    string `bun:"domain_id"`
	AttributeID string `bun:"attribute_id,pk"`
	ValueID     string `bun:"value_id"`
	ValueName   string `bun:"value_name"`
}

type itemRow struct {
	bun.BaseModel `bun:"table:items"`

	ID                string  `bun:"id,pk"`
	SiteID            string  `bun:"site_id"`
	SellerID          int64   `bun:"seller_id"`
	Title             string  `bun:"title"`
	CategoryID        string  `bun:"category_id"`
	DomainID          string  `bun:"domain_id"`
	Status            string  `bun:"status"`
	Price             float64 `bun:"price"`
	CurrencyID        string  `bun:"currency_id"`
	AvailableQuantity int64   `bun:"available_quantity"`
	ListingTypeID     string  `bun:"listing_type_id"`
	Condition         string  `bun:"condition"`
	OfficialStoreID   *int64  `bun:"official_store_id"`
	CatalogProductID  *string `bun:"catalog_product_id"`
	PartNumber        *string `bun:"part_number"`
	// TitleWords is catalog.TitleWords of the title: what the site search
	// matches word prefixes against.
	TitleWords  string                  `bun:"title_words"`
	Attributes  []catalog.ItemAttribute `bun:"attributes"`
	Tags        []string                `bun:"tags"`
	Shipping    catalog.ItemShipping    `bun:"shipping"`
	Extra       catalog.ItemExtra       `bun:"extra"`
	DateCreated time.Time               `bun:"date_created"`
	LastUpdated time.Time               `bun:"last_updated"`
}

func (s *Store) idb(ctx context.Context) bun.IDB { return sqlstore.IDB(ctx, s.db) }

func notFound(what, id string, err error) error {
	if sqlstore.IsNoRows(err) {
		return fmt.Errorf("catalogdb: %s %s: %w", what, id, catalogport.ErrNotFound)
	}
	return fmt.Errorf("catalogdb: %s %s: %w", what, id, err)
}

// UpsertCategory stores a category; date_created is set only on insert.
func (s *Store) UpsertCategory(ctx context.Context, c catalog.Category) error {
	if c.AcceptedShippingMethods == nil {
		c.AcceptedShippingMethods = []int64{}
	}
	if c.ShippingPreferences.Logistics == nil {
		c.ShippingPreferences.Logistics = []catalog.Logistic{}
	}
	_, err := s.idb(ctx).NewInsert().Model(&categoryRow{Category: c}).
		On("CONFLICT (id) DO UPDATE").
		Set("site_id = EXCLUDED.site_id, name = EXCLUDED.name, domain_id = EXCLUDED.domain_id, shipping_preferences = EXCLUDED.shipping_preferences, accepted_shipping_methods = EXCLUDED.accepted_shipping_methods, compatibilities = EXCLUDED.compatibilities, last_modified = EXCLUDED.last_modified").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("catalogdb: upsert category %s: %w", c.ID, err)
	}
	return nil
}

// Category returns a category or catalogport.ErrNotFound.
func (s *Store) Category(ctx context.Context, id string) (catalog.Category, error) {
	var row categoryRow
	if err := s.idb(ctx).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx); err != nil {
		return catalog.Category{}, notFound("category", id, err)
	}
	return row.Category, nil
}

// Categories returns the stored categories among ids in one query.
func (s *Store) Categories(ctx context.Context, ids []string) ([]catalog.Category, error) {
	if len(ids) == 0 {
		return []catalog.Category{}, nil
	}
	var rows []categoryRow
	if err := s.idb(ctx).NewSelect().Model(&rows).Where("id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("catalogdb: categories %v: %w", ids, err)
	}
	out := make([]catalog.Category, len(rows))
	for i, r := range rows {
		out[i] = r.Category
	}
	return out, nil
}

// UpsertDomain stores a domain.
func (s *Store) UpsertDomain(ctx context.Context, d catalog.Domain) error {
	if d.Compatibilities == nil {
		d.Compatibilities = []catalog.DomainCompatibility{}
	}
	_, err := s.idb(ctx).NewInsert().Model(&domainRow{Domain: d}).
		On("CONFLICT (id) DO UPDATE").
		Set("site_id = EXCLUDED.site_id, main = EXCLUDED.main, compatibilities = EXCLUDED.compatibilities").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("catalogdb: upsert domain %s: %w", d.ID, err)
	}
	return nil
}

// Domain returns a domain or catalogport.ErrNotFound.
func (s *Store) Domain(ctx context.Context, id string) (catalog.Domain, error) {
	var row domainRow
	if err := s.idb(ctx).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx); err != nil {
		return catalog.Domain{}, notFound("domain", id, err)
	}
	return row.Domain, nil
}

// UpsertProduct stores a product and rebuilds its attribute index in the
// same transaction; value names are indexed lower-cased so that family
// selectors match them case-insensitively.
func (s *Store) UpsertProduct(ctx context.Context, p catalog.Product) error {
	if p.Attributes == nil {
		p.Attributes = []catalog.ProductAttribute{}
	}
	return sqlstore.Tx{DB: s.db}.RunInTx(ctx, func(ctx context.Context) error {
		db := s.idb(ctx)
		_, err := db.NewInsert().Model(&productRow{Product: p}).
			On("CONFLICT (id) DO UPDATE").
			Set("site_id = EXCLUDED.site_id, domain_id = EXCLUDED.domain_id, name = EXCLUDED.name, parent_id = EXCLUDED.parent_id, attributes = EXCLUDED.attributes").
			Exec(ctx)
		if err != nil {
			return fmt.Errorf("catalogdb: upsert product %s: %w", p.ID, err)
		}
		if _, err := db.NewDelete().Model((*productAttributeRow)(nil)).Where("product_id = ?", p.ID).Exec(ctx); err != nil {
			return fmt.Errorf("catalogdb: product %s attributes: %w", p.ID, err)
		}
		if len(p.Attributes) == 0 {
			return nil
		}
		rows := make([]productAttributeRow, len(p.Attributes))
		for i, a := range p.Attributes {
			rows[i] = productAttributeRow{ProductID: p.ID, DomainID: p.DomainID, AttributeID: a.ID,
				ValueID: a.ValueID, ValueName: strings.ToLower(a.ValueName)}
		}
		if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
			return fmt.Errorf("catalogdb: product %s attributes: %w", p.ID, err)
		}
		return nil
	})
}

// Product returns a product or catalogport.ErrNotFound.
func (s *Store) Product(ctx context.Context, id string) (catalog.Product, error) {
	var row productRow
	if err := s.idb(ctx).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx); err != nil {
		return catalog.Product{}, notFound("product", id, err)
	}
	return row.Product, nil
}

// UpsertItem stores an item; part_number follows its PART_NUMBER attribute
// and date_created is set only on insert.
func (s *Store) UpsertItem(ctx context.Context, it catalog.Item) error {
	row := itemRow{ID: it.ID, SiteID: it.SiteID, SellerID: it.SellerID, Title: it.Title, CategoryID: it.CategoryID,
		DomainID: it.DomainID, Status: it.Status, Price: it.Price, CurrencyID: it.CurrencyID,
		AvailableQuantity: it.AvailableQuantity, ListingTypeID: it.ListingTypeID, Condition: it.Condition,
		OfficialStoreID: it.OfficialStoreID, CatalogProductID: it.CatalogProductID, PartNumber: it.PartNumber(),
		TitleWords: catalog.TitleWords(it.Title), Attributes: it.Attributes, Tags: it.Tags, Shipping: it.Shipping, Extra: it.ItemExtra,
		DateCreated: it.DateCreated, LastUpdated: it.LastUpdated}
	if row.Attributes == nil {
		row.Attributes = []catalog.ItemAttribute{}
	}
	if row.Tags == nil {
		row.Tags = []string{}
	}
	_, err := s.idb(ctx).NewInsert().Model(&row).
		On("CONFLICT (id) DO UPDATE").
		Set("site_id = EXCLUDED.site_id, seller_id = EXCLUDED.seller_id, title = EXCLUDED.title, category_id = EXCLUDED.category_id, domain_id = EXCLUDED.domain_id, status = EXCLUDED.status, price = EXCLUDED.price, currency_id = EXCLUDED.currency_id, available_quantity = EXCLUDED.available_quantity, listing_type_id = EXCLUDED.listing_type_id, condition = EXCLUDED.condition, official_store_id = EXCLUDED.official_store_id, catalog_product_id = EXCLUDED.catalog_product_id, part_number = EXCLUDED.part_number, title_words = EXCLUDED.title_words, attributes = EXCLUDED.attributes, tags = EXCLUDED.tags, shipping = EXCLUDED.shipping, extra = EXCLUDED.extra, last_updated = EXCLUDED.last_updated").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("catalogdb: upsert item %s: %w", it.ID, err)
	}
	return nil
}

// itemSQL reads one item: a hot read (GET /items/{id} and every use case
// on an item), prepared once per connection (sqlstore.One).
const itemSQL = `SELECT ` + itemColumns + ` FROM items AS i WHERE i.id = $1`

// itemColumns are an item's columns, of items AS i.
const itemColumns = `i.id, i.site_id, i.seller_id, i.title, i.category_id, i.domain_id, i.status, i.price, i.currency_id,
	i.available_quantity, i.listing_type_id, i.condition, i.official_store_id, i.catalog_product_id, i.part_number,
	i.title_words, i.attributes, i.tags, i.shipping, i.extra, i.date_created, i.last_updated`

// Item returns an item or catalogport.ErrNotFound.
func (s *Store) Item(ctx context.Context, id string) (catalog.Item, error) {
	var row itemRow
	if err := sqlstore.One(ctx, s.db, &row, itemSQL, id); err != nil {
		return catalog.Item{}, notFound("item", id, err)
	}
	return row.item(), nil
}

// parcelRow is an item's parcel: five columns, the dimensions taken out of
// the shipping document by the database, so that pricing 50 items decodes
// no JSON (this is the multi-item cost's fast path).
type parcelRow struct {
	ID         string  `bun:"id"`
	SiteID     string  `bun:"site_id"`
	SellerID   int64   `bun:"seller_id"`
	CategoryID string  `bun:"category_id"`
	Dimensions *string `bun:"dimensions"`
}

// Parcels returns the parcels of the stored items among ids in one query.
func (s *Store) Parcels(ctx context.Context, ids []string) ([]catalog.Parcel, error) {
	if len(ids) == 0 {
		return []catalog.Parcel{}, nil
	}
	dims := `json_extract(shipping, '$.dimensions')`
	if sqlstore.IsPostgres(s.db) {
		dims = `shipping->>'dimensions'`
	}
	var rows []parcelRow
	err := s.idb(ctx).NewSelect().TableExpr("items").Column("id", "site_id", "seller_id", "category_id").
		ColumnExpr(dims+" AS dimensions").Where("id IN (?)", bun.In(ids)).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("catalogdb: parcels %v: %w", ids, err)
	}
	out := make([]catalog.Parcel, len(rows))
	for i, r := range rows {
		out[i] = catalog.Parcel{ItemID: r.ID, SiteID: r.SiteID, SellerID: r.SellerID, CategoryID: r.CategoryID, Dimensions: r.Dimensions}
	}
	return out, nil
}

func (row itemRow) item() catalog.Item {
	return catalog.Item{ID: row.ID, SiteID: row.SiteID, SellerID: row.SellerID, Title: row.Title,
		CategoryID: row.CategoryID, DomainID: row.DomainID, Status: row.Status, Price: row.Price,
		CurrencyID: row.CurrencyID, AvailableQuantity: row.AvailableQuantity, ListingTypeID: row.ListingTypeID,
		Condition: row.Condition, OfficialStoreID: row.OfficialStoreID, CatalogProductID: row.CatalogProductID,
		Attributes: row.Attributes, Tags: row.Tags, Shipping: row.Shipping, ItemExtra: row.Extra,
		DateCreated: row.DateCreated, LastUpdated: row.LastUpdated}
}

// The computed facts of an item i, as SQL over the compatibility tables
// and the flex module's table of items with local delivery (its own to
// write; read here so that GET /items/{id} is one statement).
const (
	selfServiceSQL = `EXISTS (SELECT 1 FROM flex_items f WHERE f.item_id = i.id)`
	universalSQL   = `EXISTS (SELECT 1 FROM item_compat_state u WHERE u.item_id = i.id AND u.universal)`
	// incomplete: the category requires compatibilities and the item has
	// none, no exception and is not universal.
	incompleteSQL = `EXISTS (SELECT 1 FROM categories c WHERE c.id = i.category_id AND %s)
		AND NOT EXISTS (SELECT 1 FROM compatibilities x WHERE x.item_id = i.id)
		AND NOT EXISTS (SELECT 1 FROM item_compat_state e WHERE e.item_id = i.id AND (e.has_exception OR e.universal))`
	// pending: another active item with the same catalog product or part
	// number has a vehicle this (not universal) item lacks. One EXISTS per
	// key, each an equality the key's partial index answers (an item
	// without the key finds nothing at once): with the two keys in one OR
	// the planner scanned every item on each read.
	pendingSQL = `NOT ` + universalSQL + `
		AND (` + lacksVehicleOf + `o.catalog_product_id = i.catalog_product_id` + lacksVehicleEnd + `
			OR ` + lacksVehicleOf + `o.part_number = i.part_number` + lacksVehicleEnd + `)`
	lacksVehicleOf  = `EXISTS (SELECT 1 FROM items o JOIN compatibilities oc ON oc.item_id = o.id WHERE `
	lacksVehicleEnd = ` AND o.id <> i.id AND o.status = 'active'
			AND NOT EXISTS (SELECT 1 FROM compatibilities mc WHERE mc.item_id = i.id AND mc.product_id = oc.product_id))`
)

func (s *Store) incomplete() string {
	required := `json_extract(c.compatibilities, '$.required') = 1`
	if sqlstore.IsPostgres(s.db) {
		required = `(c.compatibilities->>'required') = 'true'`
	}
	return fmt.Sprintf(incompleteSQL, required)
}

// ItemWithFacts reads the item and derives whether it has compatibilities
// and its computed tags in the same statement: GET /items/{id}'s one round
// trip.
func (s *Store) ItemWithFacts(ctx context.Context, id string) (catalog.Item, catalog.Facts, error) {
	var out struct {
		itemRow
		HasCompatibilities int `bun:"has_compatibilities"`
		Universal          int `bun:"universal"`
		Incomplete         int `bun:"incomplete"`
		Pending            int `bun:"pending"`
		SelfService        int `bun:"self_service"`
	}
	// A hot read, prepared once per connection: its six subqueries took
	// three times longer to plan than to run.
	if err := sqlstore.One(ctx, s.db, &out, s.itemFactsSQL, id); err != nil {
		return catalog.Item{}, catalog.Facts{}, notFound("item facts", id, err)
	}
	return out.item(), catalog.Facts{HasCompatibilities: out.HasCompatibilities == 1, Universal: out.Universal == 1,
		Incomplete: out.Incomplete == 1, Pending: out.Pending == 1, SelfService: out.SelfService == 1}, nil
}

// SearchItems returns a page of a seller's matching item ids and the total.
func (s *Store) SearchItems(ctx context.Context, q catalog.ItemQuery, page paging.Request) ([]string, int, error) {
	sel := s.idb(ctx).NewSelect().TableExpr("items AS i").Where("i.seller_id = ?", q.SellerID)
	if q.Status != "" {
		sel = sel.Where("i.status = ?", q.Status)
	}
	for _, t := range q.Tags {
		switch t {
		case catalog.TagIncomplete:
			sel = sel.Where(s.incomplete())
		case catalog.TagPending:
			sel = sel.Where(pendingSQL)
		default:
			return nil, 0, fmt.Errorf("catalogdb: search: unknown tag %q", t)
		}
	}
	n, err := sel.Clone().ColumnExpr("i.id").Count(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("catalogdb: search count: %w", err)
	}
	total := int(n)
	ids := []string{}
	if page.Limit == 0 || page.Offset >= total {
		return ids, total, nil
	}
	if q.After != "" {
		sel = sel.Where("i.id > ?", q.After)
	}
	err = sel.ColumnExpr("i.id").OrderExpr("i.id").Limit(int64(page.Limit)).Offset(int64(page.Offset)).Scan(ctx, &ids)
	if err != nil {
		return nil, 0, fmt.Errorf("catalogdb: search: %w", err)
	}
	return ids, total, nil
}

// SearchSite returns a page of the site's active items whose title_words
// hold every word as a word prefix, and the total. The words are letters and
// digits only (catalog.SearchWords), so they carry no pattern character.
func (s *Store) SearchSite(ctx context.Context, q catalog.SiteQuery, page paging.Request) ([]catalog.Item, int, error) {
	var rows []itemRow
	sel := s.idb(ctx).NewSelect().Model(&rows).
		Where("site_id = ?", q.SiteID).Where("status = ?", "active")
	if q.SellerID != 0 {
		sel = sel.Where("seller_id = ?", q.SellerID)
	}
	if q.CategoryID != "" {
		sel = sel.Where("category_id = ?", q.CategoryID)
	}
	for _, w := range q.Words {
		sel = sel.Where("title_words LIKE ?", "% "+w+"%")
	}
	n, err := sel.Clone().Count(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("catalogdb: site search count: %w", err)
	}
	total := int(n)
	items := []catalog.Item{}
	if page.Limit == 0 || page.Offset >= total {
		return items, total, nil
	}
	if err := sel.Order("id").Limit(int64(page.Limit)).Offset(int64(page.Offset)).Scan(ctx); err != nil {
		return nil, 0, fmt.Errorf("catalogdb: site search: %w", err)
	}
	for _, r := range rows {
		items = append(items, r.item())
	}
	return items, total, nil
}
