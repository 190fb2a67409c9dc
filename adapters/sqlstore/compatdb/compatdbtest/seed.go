// Package compatdbtest seeds the rows of other modules that compatibilities
// read (users, categories, domains, products, items, orders) straight into a
// database, for the store's contract suite and its benchmarks.
package compatdbtest

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore/catalogdb"
	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport/compatporttest"
)

// Seeder implements compatporttest.Seeder on a bun database.
type Seeder struct {
	DB      bun.IDB
	Catalog *catalogdb.Store
}

var _ compatporttest.Seeder = Seeder{}

// New returns a seeder on db.
func New(db bun.IDB) Seeder { return Seeder{DB: db, Catalog: catalogdb.New(db)} }

var ctx = context.Background()

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// User inserts a user.
func (s Seeder) User(t testing.TB, id int64) {
	_, err := s.DB.NewRaw(`INSERT INTO users (id, nickname, site_id, user_type, tags, messaging_allowed, date_created)
		VALUES (?, 'U', 'MLA', 'normal', '[]', ?, ?) ON CONFLICT (id) DO NOTHING`, id, true, time.Now().UTC()).Exec(ctx)
	must(t, err)
}

// Category upserts a category with its compatibility settings.
func (s Seeder) Category(t testing.TB, id, siteID string, st *compat.CategorySettings) {
	c := catalog.Category{ID: id, SiteID: siteID, Name: id, DomainID: siteID + "-PARTS", DateCreated: time.Now().UTC(), LastModified: time.Now().UTC()}
	if st != nil {
		c.Compatibilities = &catalog.CategoryCompatibilities{Required: st.Required, NoteStatus: st.NoteStatus,
			RestrictionsStatus: st.RestrictionsStatus, UniversalStatus: st.UniversalStatus}
	}
	must(t, s.Catalog.UpsertCategory(ctx, c))
}

// Domain upserts a dump entry.
func (s Seeder) Domain(t testing.TB, id, siteID string, links []compat.DomainLink) {
	d := catalog.Domain{ID: id, SiteID: siteID}
	for _, l := range links {
		dc := catalog.DomainCompatibility{CompatibleDomainID: l.CompatibleDomainID, Type: l.Type, Restrictions: []any{}, Categories: []catalog.DomainCategory{}}
		for _, rv := range l.RestrictionValues {
			v := catalog.RestrictionValue{AttributeID: rv.AttributeID}
			for _, e := range rv.Values {
				v.Values = append(v.Values, catalog.ValueEntry{ValueID: e.ValueID, ValueName: e.ValueName})
			}
			dc.RestrictionValues = append(dc.RestrictionValues, v)
		}
		d.Compatibilities = append(d.Compatibilities, dc)
	}
	must(t, s.Catalog.UpsertDomain(ctx, d))
}

// Product upserts a product and its attribute index.
func (s Seeder) Product(t testing.TB, p compat.Product, attrs ...compatporttest.Attr) {
	cp := catalog.Product{ID: p.ID, SiteID: p.SiteID, DomainID: p.DomainID, Name: p.Name, ParentID: p.ParentID}
	for _, a := range attrs {
		cp.Attributes = append(cp.Attributes, catalog.ProductAttribute{ID: a.ID, Name: a.ID, ValueID: a.ValueID, ValueName: a.ValueName})
	}
	must(t, s.Catalog.UpsertProduct(ctx, cp))
}

// Item upserts an item; PartNumber becomes its PART_NUMBER attribute.
func (s Seeder) Item(t testing.TB, it compat.Item) {
	ci := catalog.Item{ID: it.ID, SiteID: it.SiteID, SellerID: it.SellerID, Title: it.Title, CategoryID: it.CategoryID,
		DomainID: it.DomainID, Status: it.Status, CurrencyID: "ARS", ListingTypeID: "gold_special", Condition: "new",
		CatalogProductID: it.CatalogProductID, DateCreated: time.Now().UTC(), LastUpdated: time.Now().UTC()}
	if it.PartNumber != nil {
		ci.Attributes = []catalog.ItemAttribute{{ID: catalog.AttrPartNumber, Name: "Part number", ValueName: it.PartNumber, ValueType: "string"}}
	}
	must(t, s.Catalog.UpsertItem(ctx, ci))
}

// Order inserts an order of one item.
func (s Seeder) Order(t testing.TB, id, sellerID, buyerID int64, itemID string, hasClaim bool) {
	_, err := s.DB.NewRaw(`INSERT INTO orders (id, site_id, seller_id, buyer_id, pack, status, items, shipping, has_claim, date_created)
		VALUES (?, 'MLA', ?, ?, ?, 'paid', ?, '{}', ?, ?)`, id, sellerID, buyerID, id,
		`[{"item_id":"`+itemID+`","quantity":1,"unit_price":1}]`, hasClaim, time.Now().UTC()).Exec(ctx)
	must(t, err)
}
