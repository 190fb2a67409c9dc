// Package catalogporttest is the contract suite every catalogport.Store
// implementation must pass, with an in-memory Store and an ItemWatch that
// records what it is told, for use-case tests.
package catalogporttest

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/catalogport"
)

// Env is a fresh store with the hooks the suite needs into other modules'
// tables: users (items reference them), the compatibility tables (facts are
// derived from them) and the store's indexes.
type Env struct {
	Store catalogport.Store
	// AddUser creates a user items may reference.
	AddUser func(ctx context.Context, id int64)
	// AddCompatibility declares item compatible with product.
	AddCompatibility func(ctx context.Context, itemID, productID string)
	// SetCompatState sets the item's universal and exception flags.
	SetCompatState func(ctx context.Context, itemID string, universal, exception bool)
	// EnableFlex records local delivery as enabled on the item, as the
	// flex module does.
	EnableFlex func(ctx context.Context, itemID string)
	// ProductIndex returns the attribute index rows of a product as
	// "ATTRIBUTE|value_id|value_name", sorted.
	ProductIndex func(ctx context.Context, productID string) []string
	// PartNumber returns the part_number column of an item.
	PartNumber func(ctx context.Context, itemID string) *string
}

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// Category returns a valid category for tests.
func Category(id string, required *bool) catalog.Category {
	c := catalog.Category{ID: id, SiteID: "MLA", Name: "Amortiguadores", DomainID: "MLA-CAR_SHOCK_ABSORBERS",
		ShippingPreferences: catalog.ShippingPreferences{
			Dimensions: catalog.Dimensions{Height: 10, Width: 20, Length: 30, Weight: 500},
			Logistics:  []catalog.Logistic{{Mode: "me2", Types: []string{"drop_off"}}}},
		AcceptedShippingMethods: []int64{73328}, DateCreated: t0, LastModified: t0}
	if required != nil {
		c.Compatibilities = &catalog.CategoryCompatibilities{Required: *required, NoteStatus: "ENABLED",
			RestrictionsStatus: "ENABLED", UniversalStatus: "ENABLED"}
	}
	return c
}

// Item returns a valid active item for tests.
func Item(id, category string, seller int64, partNumber string) catalog.Item {
	it := catalog.Item{ID: id, SiteID: "MLA", SellerID: seller, Title: "Amortiguador " + id, CategoryID: category,
		DomainID: "MLA-CAR_SHOCK_ABSORBERS", Status: "active", Price: 15000, CurrencyID: "ARS",
		AvailableQuantity: 10, ListingTypeID: "gold_special", Condition: "new",
		Attributes: []catalog.ItemAttribute{}, Tags: []string{"good_quality_thumbnail"},
		Shipping:    catalog.ItemShipping{Mode: "me2", LogisticType: "drop_off", Methods: []any{}, Costs: []any{}, FreeMethods: []catalog.FreeMethod{}, Tags: []string{}},
		ItemExtra:   catalog.ItemExtra{DealIDs: []string{}},
		DateCreated: t0, LastUpdated: t0}
	if partNumber != "" {
		it.Attributes = append(it.Attributes, catalog.ItemAttribute{ID: catalog.AttrPartNumber, Name: "Número de pieza",
			ValueName: kerneltest.Ptr(partNumber), Values: []catalog.AttributeValue{{Name: kerneltest.Ptr(partNumber)}}, ValueType: "string"})
	}
	return it
}

// Product returns a valid vehicle product for tests.
func Product(id string, parent *string, year string) catalog.Product {
	return catalog.Product{ID: id, SiteID: "MLA", DomainID: "MLA-CARS_AND_VANS", Name: "Ford Ka " + year, ParentID: parent,
		Attributes: []catalog.ProductAttribute{{ID: "BRAND", Name: "Marca", ValueID: "9909", ValueName: "Ford"},
			{ID: "VEHICLE_YEAR", Name: "Año", ValueID: "", ValueName: year}}}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func same(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %#v\nwant %#v", what, got, want)
	}
}

// TestStore runs the contract suite; newEnv returns a fresh, empty store.
func TestStore(t *testing.T, newEnv func(t *testing.T) Env) {
	ctx := context.Background()
	yes, no := true, false

	t.Run("categories", func(t *testing.T) {
		e := newEnv(t)
		_, err := e.Store.Category(ctx, "MLA1747")
		if !errors.Is(err, catalogport.ErrNotFound) {
			t.Fatalf("missing category: %v, want ErrNotFound", err)
		}
		c := Category("MLA1747", &yes)
		must(t, e.Store.UpsertCategory(ctx, c))
		got, err := e.Store.Category(ctx, "MLA1747")
		must(t, err)
		got.DateCreated, got.LastModified = got.DateCreated.UTC(), got.LastModified.UTC()
		same(t, "category", got, c)

		c2 := Category("MLA1747", nil)
		c2.Name = "Otro"
		c2.DateCreated, c2.LastModified = t0.Add(time.Hour), t0.Add(time.Hour)
		must(t, e.Store.UpsertCategory(ctx, c2))
		got, err = e.Store.Category(ctx, "MLA1747")
		must(t, err)
		if got.Name != "Otro" || got.Compatibilities != nil || !got.DateCreated.Equal(t0) || !got.LastModified.Equal(t0.Add(time.Hour)) {
			t.Errorf("re-upsert: got %+v, want new name, null compatibilities, date_created kept, last_modified moved", got)
		}
	})

	t.Run("domains", func(t *testing.T) {
		e := newEnv(t)
		d := catalog.Domain{ID: "MLA-CAR_SHOCK_ABSORBERS", SiteID: "MLA", Main: false,
			Compatibilities: []catalog.DomainCompatibility{{CompatibleDomainID: "MLA-CARS_AND_VANS", Type: "EXTENSION", Required: true,
				Restrictions: []any{}, Categories: []catalog.DomainCategory{{ID: "MLA1747", Required: true, NoteStatus: "ENABLED", RestrictionsStatus: "ENABLED", UniversalStatus: "ENABLED"}},
				RestrictionValues: []catalog.RestrictionValue{{AttributeID: "POSITION", Values: []catalog.ValueEntry{{ValueID: "1", ValueName: "Delantera"}}}}}}}
		must(t, e.Store.UpsertDomain(ctx, d))
		must(t, e.Store.UpsertDomain(ctx, d))
		got, err := e.Store.Domain(ctx, d.ID)
		must(t, err)
		same(t, "domain", got, d)
		if _, err := e.Store.Domain(ctx, "MLA-NOPE"); !errors.Is(err, catalogport.ErrNotFound) {
			t.Errorf("missing domain: %v", err)
		}
	})

	t.Run("products and their attribute index", func(t *testing.T) {
		e := newEnv(t)
		parent := Product("MLA15197894", nil, "")
		parent.Attributes = parent.Attributes[:1]
		child := Product("MLA15197901", kerneltest.Ptr("MLA15197894"), "2016")
		must(t, e.Store.UpsertProduct(ctx, parent))
		must(t, e.Store.UpsertProduct(ctx, child))
		got, err := e.Store.Product(ctx, child.ID)
		must(t, err)
		same(t, "child", got, child)
		same(t, "index", e.ProductIndex(ctx, child.ID), []string{"BRAND|9909|ford", "VEHICLE_YEAR||2016"})

		child.Attributes = []catalog.ProductAttribute{{ID: "MODEL", Name: "Modelo", ValueID: "60279", ValueName: "Ka"}}
		must(t, e.Store.UpsertProduct(ctx, child))
		same(t, "index after re-upsert", e.ProductIndex(ctx, child.ID), []string{"MODEL|60279|ka"})
		got, err = e.Store.Product(ctx, parent.ID)
		must(t, err)
		if got.ParentID != nil {
			t.Errorf("parent: parent_id %v, want null", *got.ParentID)
		}
		if _, err := e.Store.Product(ctx, "MLA1"); !errors.Is(err, catalogport.ErrNotFound) {
			t.Errorf("missing product: %v", err)
		}
	})

	t.Run("items", func(t *testing.T) {
		e := newEnv(t)
		e.AddUser(ctx, 123)
		must(t, e.Store.UpsertCategory(ctx, Category("MLA1747", &yes)))
		it := Item("MLA1100", "MLA1747", 123, "PN-1")
		warranty := "6 meses"
		it.Warranty = &warranty
		it.Shipping.Dimensions = kerneltest.Ptr("10x20x30,500")
		must(t, e.Store.UpsertItem(ctx, it))
		got, err := e.Store.Item(ctx, it.ID)
		must(t, err)
		got.DateCreated, got.LastUpdated = got.DateCreated.UTC(), got.LastUpdated.UTC()
		same(t, "item", got, it)
		same(t, "part_number", e.PartNumber(ctx, it.ID), kerneltest.Ptr("PN-1"))

		it.Attributes = nil
		it.Title = "Nuevo"
		it.DateCreated, it.LastUpdated = t0.Add(time.Hour), t0.Add(time.Hour)
		must(t, e.Store.UpsertItem(ctx, it))
		got, err = e.Store.Item(ctx, it.ID)
		must(t, err)
		if got.Title != "Nuevo" || !got.DateCreated.Equal(t0) || !got.LastUpdated.Equal(t0.Add(time.Hour)) || len(got.Attributes) != 0 {
			t.Errorf("re-upsert: %+v: want new title, date_created kept, last_updated moved, no attributes", got)
		}
		if pn := e.PartNumber(ctx, it.ID); pn != nil {
			t.Errorf("part_number after removing the attribute: %q, want null", *pn)
		}
		if _, err := e.Store.Item(ctx, "MLA9"); !errors.Is(err, catalogport.ErrNotFound) {
			t.Errorf("missing item: %v", err)
		}
		if _, _, err := e.Store.ItemWithFacts(ctx, "MLA9"); !errors.Is(err, catalogport.ErrNotFound) {
			t.Errorf("facts of a missing item: %v", err)
		}
	})

	t.Run("parcels and categories, several in one read", func(t *testing.T) {
		e := newEnv(t)
		e.AddUser(ctx, 123)
		e.AddUser(ctx, 124)
		for _, id := range []string{"MLA1747", "MLA1748"} {
			must(t, e.Store.UpsertCategory(ctx, Category(id, &yes)))
		}
		with := Item("MLA1100", "MLA1747", 123, "PN-1")
		with.Shipping.Dimensions = kerneltest.Ptr("10x20x30,500")
		must(t, e.Store.UpsertItem(ctx, with))
		must(t, e.Store.UpsertItem(ctx, Item("MLA1101", "MLA1747", 123, "")))
		must(t, e.Store.UpsertItem(ctx, Item("MLA1102", "MLA1748", 124, "")))
		for _, none := range [][]string{nil, {}, {"MLA9"}} {
			parcels, err := e.Store.Parcels(ctx, none)
			must(t, err)
			cats, err := e.Store.Categories(ctx, none)
			must(t, err)
			if parcels == nil || cats == nil || len(parcels)+len(cats) != 0 {
				t.Errorf("Parcels/Categories(%v) = %v %v, want empty", none, parcels, cats)
			}
		}
		parcels, err := e.Store.Parcels(ctx, []string{"MLA1102", "MLA9", "MLA1100", "MLA1101", "MLA1102"})
		must(t, err)
		slices.SortFunc(parcels, func(a, b catalog.Parcel) int { return strings.Compare(a.ItemID, b.ItemID) })
		same(t, "parcels", parcels, []catalog.Parcel{
			{ItemID: "MLA1100", SiteID: "MLA", SellerID: 123, CategoryID: "MLA1747", Dimensions: kerneltest.Ptr("10x20x30,500")},
			{ItemID: "MLA1101", SiteID: "MLA", SellerID: 123, CategoryID: "MLA1747"},
			{ItemID: "MLA1102", SiteID: "MLA", SellerID: 124, CategoryID: "MLA1748"},
		})
		cats, err := e.Store.Categories(ctx, []string{"MLA1748", "MLA9", "MLA1747"})
		must(t, err)
		slices.SortFunc(cats, func(a, b catalog.Category) int { return strings.Compare(a.ID, b.ID) })
		for i := range cats {
			cats[i].DateCreated, cats[i].LastModified = cats[i].DateCreated.UTC(), cats[i].LastModified.UTC()
		}
		same(t, "categories", cats, []catalog.Category{Category("MLA1747", &yes), Category("MLA1748", &yes)})
	})

	t.Run("facts and search", func(t *testing.T) {
		e := newEnv(t)
		e.AddUser(ctx, 123)
		e.AddUser(ctx, 124)
		must(t, e.Store.UpsertCategory(ctx, Category("MLA1747", &yes)))
		must(t, e.Store.UpsertCategory(ctx, Category("MLA1748", &no)))
		must(t, e.Store.UpsertCategory(ctx, Category("MLA1000", nil)))
		for _, id := range []string{"MLA15197901", "MLA15197902"} {
			must(t, e.Store.UpsertProduct(ctx, Product(id, nil, "2016")))
		}
		put := func(it catalog.Item) { must(t, e.Store.UpsertItem(ctx, it)) }
		put(Item("MLA1100", "MLA1747", 123, "PN-1")) // two vehicles
		put(Item("MLA1101", "MLA1747", 123, ""))     // required, none: incomplete
		put(Item("MLA1102", "MLA1747", 123, "PN-1")) // one of the two: pending
		put(Item("MLA1103", "MLA1748", 123, ""))     // not required
		put(Item("MLA1104", "MLA1000", 123, ""))     // no compatibilities
		put(Item("MLA1105", "MLA1747", 123, ""))     // exception
		put(Item("MLA1106", "MLA1747", 123, "PN-1")) // universal: neither
		cp := Item("MLA1107", "MLA1747", 123, "")    // shares catalog product with MLA1109
		cp.CatalogProductID = kerneltest.Ptr("MLA555")
		cp.Status = "paused"
		put(cp)
		put(Item("MLA1108", "MLA1747", 124, "PN-2")) // other seller, incomplete
		cp2 := Item("MLA1109", "MLA1747", 124, "")
		cp2.CatalogProductID = kerneltest.Ptr("MLA555")
		put(cp2)
		e.AddCompatibility(ctx, "MLA1100", "MLA15197901")
		e.AddCompatibility(ctx, "MLA1100", "MLA15197902")
		e.AddCompatibility(ctx, "MLA1102", "MLA15197901")
		e.AddCompatibility(ctx, "MLA1107", "MLA15197901")
		e.AddCompatibility(ctx, "MLA1109", "MLA15197902")
		e.SetCompatState(ctx, "MLA1105", false, true)
		e.SetCompatState(ctx, "MLA1106", true, false)
		e.EnableFlex(ctx, "MLA1103")

		want := map[string]catalog.Facts{
			"MLA1100": {HasCompatibilities: true},
			"MLA1101": {Incomplete: true},
			"MLA1102": {HasCompatibilities: true, Pending: true},
			"MLA1103": {SelfService: true},
			"MLA1104": {},
			"MLA1105": {},
			"MLA1106": {Universal: true},
			// MLA1109 is active and has a vehicle MLA1107 lacks.
			"MLA1107": {HasCompatibilities: true, Pending: true},
			"MLA1108": {Incomplete: true},
			// MLA1107 is paused: its vehicles are no suggestion.
			"MLA1109": {HasCompatibilities: true},
		}
		for id, w := range want {
			it, got, err := e.Store.ItemWithFacts(ctx, id)
			must(t, err)
			same(t, "facts of "+id, got, w)
			same(t, "item with the facts of "+id, it.ID, id)
		}

		search := func(q catalog.ItemQuery, p paging.Request, wantIDs []string, wantTotal int) {
			t.Helper()
			ids, total, err := e.Store.SearchItems(ctx, q, p)
			must(t, err)
			same(t, "search ids", ids, wantIDs)
			same(t, "search total", total, wantTotal)
		}
		all := paging.Default()
		search(catalog.ItemQuery{SellerID: 123, Tags: []string{catalog.TagIncomplete}}, all, []string{"MLA1101"}, 1)
		search(catalog.ItemQuery{SellerID: 123, Tags: []string{catalog.TagPending}}, all, []string{"MLA1102", "MLA1107"}, 2)
		search(catalog.ItemQuery{SellerID: 123, Status: "active", Tags: []string{catalog.TagPending}}, all, []string{"MLA1102"}, 1)
		search(catalog.ItemQuery{SellerID: 123, Status: "active"}, paging.Request{Limit: 3, Offset: 2},
			[]string{"MLA1102", "MLA1103", "MLA1104"}, 7)
		search(catalog.ItemQuery{SellerID: 123}, paging.Request{Limit: 0}, []string{}, 8)
		search(catalog.ItemQuery{SellerID: 123}, paging.Request{Limit: 5, Offset: 50}, []string{}, 8)
		search(catalog.ItemQuery{SellerID: 999}, all, []string{}, 0)
		// A scan's position narrows the page, never the total.
		search(catalog.ItemQuery{SellerID: 123, Status: "active", After: "MLA1104"}, paging.Request{Limit: 2},
			[]string{"MLA1105", "MLA1106"}, 7)
		search(catalog.ItemQuery{SellerID: 123, After: "MLA1106"}, all, []string{"MLA1107"}, 8)
		search(catalog.ItemQuery{SellerID: 123, After: "MLA1107"}, all, []string{}, 8)
		search(catalog.ItemQuery{SellerID: 123, Tags: []string{catalog.TagPending}, After: "MLA1102"}, all, []string{"MLA1107"}, 2)
	})

	t.Run("site search", func(t *testing.T) {
		e := newEnv(t)
		e.AddUser(ctx, 123)
		e.AddUser(ctx, 124)
		must(t, e.Store.UpsertCategory(ctx, Category("MLA1747", &yes)))
		must(t, e.Store.UpsertCategory(ctx, Category("MLA1000", nil)))
		put := func(id, title, category string, seller int64, status string) {
			it := Item(id, category, seller, "")
			it.Title, it.Status = title, status
			must(t, e.Store.UpsertItem(ctx, it))
		}
		put("MLA1100", "Amortiguador delantero Ford Ka", "MLA1747", 123, "active")
		put("MLA1101", "AMORTIGUADOR trasero (Fiat)", "MLA1747", 124, "active")
		put("MLA1102", "Amortiguador delantero Fiat", "MLA1747", 123, "paused")
		put("MLA1103", "Bujía de encendido", "MLA1000", 123, "active")
		put("MLA1104", "Kit de amortiguación 100% nuevo", "MLA1000", 124, "active")
		mlb := Item("MLB1100", "MLA1747", 123, "")
		mlb.SiteID, mlb.Title = "MLB", "Amortiguador dianteiro"
		must(t, e.Store.UpsertItem(ctx, mlb))

		find := func(q catalog.SiteQuery, p paging.Request, wantIDs []string, wantTotal int) {
			t.Helper()
			items, total, err := e.Store.SearchSite(ctx, q, p)
			must(t, err)
			ids := []string{}
			for _, it := range items {
				ids = append(ids, it.ID)
			}
			same(t, "site search ids", ids, wantIDs)
			same(t, "site search total", total, wantTotal)
		}
		all := paging.Default()
		words := catalog.SearchWords
		// Words begin title words, whatever their case and accents; only
		// active items of the site.
		find(catalog.SiteQuery{SiteID: "MLA", Words: words("amortiguador")}, all, []string{"MLA1100", "MLA1101"}, 2)
		find(catalog.SiteQuery{SiteID: "MLA", Words: words("Amortigua")}, all, []string{"MLA1100", "MLA1101", "MLA1104"}, 3)
		find(catalog.SiteQuery{SiteID: "MLA", Words: words("amortiguador fiat")}, all, []string{"MLA1101"}, 1)
		find(catalog.SiteQuery{SiteID: "MLA", Words: words("BUJIA")}, all, []string{"MLA1103"}, 1)
		find(catalog.SiteQuery{SiteID: "MLA", Words: words("tiguador")}, all, []string{}, 0)
		find(catalog.SiteQuery{SiteID: "MLA", Words: words("100%")}, all, []string{"MLA1104"}, 1)
		find(catalog.SiteQuery{SiteID: "MLA", Words: words("_")}, all, []string{"MLA1100", "MLA1101", "MLA1103", "MLA1104"}, 4)
		find(catalog.SiteQuery{SiteID: "MLA"}, paging.Request{Limit: 2, Offset: 1}, []string{"MLA1101", "MLA1103"}, 4)
		find(catalog.SiteQuery{SiteID: "MLA"}, paging.Request{Limit: 0}, []string{}, 4)
		find(catalog.SiteQuery{SiteID: "MLA", SellerID: 123}, all, []string{"MLA1100", "MLA1103"}, 2)
		find(catalog.SiteQuery{SiteID: "MLA", CategoryID: "MLA1000", Words: words("kit")}, all, []string{"MLA1104"}, 1)
		find(catalog.SiteQuery{SiteID: "MLB", Words: words("amortiguador")}, all, []string{"MLB1100"}, 1)
		find(catalog.SiteQuery{SiteID: "MLM"}, all, []string{}, 0)
		items, _, err := e.Store.SearchSite(ctx, catalog.SiteQuery{SiteID: "MLA", Words: words("ford")}, all)
		must(t, err)
		if len(items) != 1 || items[0].Title != "Amortiguador delantero Ford Ka" || items[0].SellerID != 123 || items[0].Price != 15000 {
			t.Errorf("site search answers the stored items: %+v", items)
		}
		// A changed title is searched by its new words.
		put("MLA1103", "Filtro de aire", "MLA1000", 123, "active")
		find(catalog.SiteQuery{SiteID: "MLA", Words: words("bujia")}, all, []string{}, 0)
		find(catalog.SiteQuery{SiteID: "MLA", Words: words("filtro aire")}, all, []string{"MLA1103"}, 1)
	})
}
