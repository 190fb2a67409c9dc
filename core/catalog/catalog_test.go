package catalog_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
)

func validItem() catalog.Item {
	return catalog.Item{ID: "MLA1100", SiteID: "MLA", SellerID: 123, Title: "Amortiguador", CategoryID: "MLA1747",
		DomainID: "MLA-CAR_SHOCK_ABSORBERS", Status: "active", Price: 10, CurrencyID: "ARS", Condition: "new",
		Shipping: catalog.ItemShipping{Mode: "me2"}}
}

// causes returns the cause codes of a validation error.
func causes(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var e *kernel.Error
	if !errors.As(err, &e) || e.Kind != kernel.Invalid {
		t.Fatalf("not a validation error: %v", err)
	}
	out := []string{}
	for _, c := range e.Causes {
		out = append(out, c.Code)
	}
	return out
}

func TestValidateItem(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*catalog.Item)
		cause string
	}{
		{"valid", func(*catalog.Item) {}, ""},
		{"unknown site", func(i *catalog.Item) { i.SiteID = "MLX" }, "site_id"},
		{"id of another site", func(i *catalog.Item) { i.ID = "MLB1100" }, "item_id"},
		{"id without digits", func(i *catalog.Item) { i.ID = "MLA" }, "item_id"},
		{"category of another site", func(i *catalog.Item) { i.CategoryID = "MLB1" }, "category_id"},
		{"bad domain", func(i *catalog.Item) { i.DomainID = "MLB-X" }, "domain_id"},
		{"catalog product of another site", func(i *catalog.Item) { i.CatalogProductID = kerneltest.Ptr("MLM1") }, "catalog_product_id"},
		{"no seller", func(i *catalog.Item) { i.SellerID = 0 }, "seller_id"},
		{"no title", func(i *catalog.Item) { i.Title = " " }, "title"},
		{"bad status", func(i *catalog.Item) { i.Status = "sold" }, "status"},
		{"negative price", func(i *catalog.Item) { i.Price = -1 }, "price"},
		{"bad currency", func(i *catalog.Item) { i.CurrencyID = "pesos" }, "currency_id"},
		{"bad condition", func(i *catalog.Item) { i.Condition = "broken" }, "condition"},
		{"duplicate attribute", func(i *catalog.Item) {
			i.Attributes = []catalog.ItemAttribute{{ID: "A"}, {ID: "A"}}
		}, "attributes[1].id"},
		{"bad shipping mode", func(i *catalog.Item) { i.Shipping.Mode = "pigeon" }, "shipping.mode"},
		{"bad dimensions", func(i *catalog.Item) { i.Shipping.Dimensions = kerneltest.Ptr("10x20,5") }, "shipping.dimensions"},
		{"dimensions not whole", func(i *catalog.Item) { i.Shipping.Dimensions = kerneltest.Ptr("10.5x20x30,500") }, "shipping.dimensions"},
		{"free methods of not_specified", func(i *catalog.Item) {
			i.Shipping.Mode = "not_specified"
			i.Shipping.FreeMethods = []catalog.FreeMethod{{ID: 73328, Rule: catalog.FreeRule{FreeMode: "country"}}}
		}, "shipping.free_methods"},
		{"custom free shipping", func(i *catalog.Item) {
			i.Shipping.Mode, i.Shipping.FreeShipping = "not_specified", true
		}, ""},
		{"bad free mode", func(i *catalog.Item) {
			i.Shipping.FreeMethods = []catalog.FreeMethod{{ID: 1, Rule: catalog.FreeRule{FreeMode: "moon"}}}
		}, "shipping.free_methods[0].rule.free_mode"},
	}
	for _, c := range cases {
		it := validItem()
		c.edit(&it)
		got := causes(t, catalog.ValidateItem(it))
		if c.cause == "" && got != nil || c.cause != "" && (len(got) == 0 || got[0] != c.cause) {
			t.Errorf("%s: causes %v, want first %q", c.name, got, c.cause)
		}
	}
}

func TestValidateCatalog(t *testing.T) {
	cat := catalog.Category{ID: "MLA1747", SiteID: "MLA", Name: "A", DomainID: "MLA-X",
		ShippingPreferences: catalog.ShippingPreferences{Logistics: []catalog.Logistic{{Mode: "me2", Types: []string{"drop_off"}}}},
		Compatibilities:     &catalog.CategoryCompatibilities{NoteStatus: "ENABLED", RestrictionsStatus: "DISABLED", UniversalStatus: "ENABLED"}}
	if err := catalog.ValidateCategory(cat); err != nil {
		t.Fatal(err)
	}
	bad := cat
	bad.ShippingPreferences.Logistics = []catalog.Logistic{{Mode: "me2", Types: []string{"custom"}}}
	if got := causes(t, catalog.ValidateCategory(bad)); len(got) != 1 || got[0] != "shipping_preferences.logistics[0].types[0]" {
		t.Errorf("logistic type of another mode: %v", got)
	}
	bad = cat
	bad.Compatibilities = &catalog.CategoryCompatibilities{NoteStatus: "on", RestrictionsStatus: "ENABLED", UniversalStatus: "ENABLED"}
	if got := causes(t, catalog.ValidateCategory(bad)); len(got) != 1 || got[0] != "compatibilities.note_status" {
		t.Errorf("note status: %v", got)
	}
	d := catalog.Domain{ID: "MLA-PARTS", SiteID: "MLA", Compatibilities: []catalog.DomainCompatibility{{CompatibleDomainID: "MLA-CARS", Type: "EXTENSION",
		Categories: []catalog.DomainCategory{{ID: "MLB1", NoteStatus: "ENABLED", RestrictionsStatus: "ENABLED", UniversalStatus: "ENABLED"}}}}}
	if got := causes(t, catalog.ValidateDomain(d)); len(got) != 1 || got[0] != "compatibilities[0].categories[0].id" {
		t.Errorf("domain category of another site: %v", got)
	}
	p := catalog.Product{ID: "MLA1", SiteID: "MLA", DomainID: "MLA-CARS", Name: "Ka", ParentID: kerneltest.Ptr("MLA1")}
	if got := causes(t, catalog.ValidateProduct(p)); len(got) != 1 || got[0] != "parent_id" {
		t.Errorf("product its own parent: %v", got)
	}
	if d, err := catalog.ParseDimensions("10x20x30,500"); err != nil || d != (catalog.Dimensions{Height: 10, Width: 20, Length: 30, Weight: 500}) || d.String() != "10x20x30,500" || !d.Known() {
		t.Errorf("ParseDimensions: %v %v", d, err)
	}
	if (catalog.Dimensions{Height: 10, Width: 20, Length: 30}).Known() {
		t.Error("dimensions without weight are known")
	}
	for _, s := range []string{"", "10x20x30", "10x20x30,", "10x20x-1,5", "axbxc,d", "10.5x20x30,500", "10x20x30,0", " 10x20x30,500", "+1x1x1,1", "1e2x1x1,1", "99999999999999999999x1x1,1"} {
		if _, err := catalog.ParseDimensions(s); err == nil {
			t.Errorf("dimensions %q accepted", s)
		}
	}
}

func TestView(t *testing.T) {
	it := validItem()
	it.Tags = []string{"a", catalog.TagPending}
	it.Attributes = []catalog.ItemAttribute{{ID: catalog.AttrHasCompatibilities}, {ID: catalog.AttrPartNumber, ValueName: kerneltest.Ptr("PN")}}
	if pn := it.PartNumber(); pn == nil || *pn != "PN" {
		t.Errorf("part number: %v", pn)
	}
	v := catalog.View(it, catalog.Facts{Incomplete: true})
	if len(v.Tags) != 2 || v.Tags[1] != catalog.TagIncomplete || len(v.Attributes) != 1 {
		t.Errorf("view without compatibilities: %+v %+v", v.Tags, v.Attributes)
	}
	v = catalog.View(it, catalog.Facts{HasCompatibilities: true})
	if len(v.Attributes) != 2 || v.Attributes[1].ID != catalog.AttrHasCompatibilities || v.Attributes[1].ValueType != "boolean" {
		t.Errorf("view with compatibilities: %+v", v.Attributes)
	}
	if v := catalog.View(it, catalog.Facts{Universal: true}); len(v.Attributes) != 2 {
		t.Errorf("universal item lacks HAS_COMPATIBILITIES: %+v", v.Attributes)
	}
	it.Shipping.FreeShipping = true
	b, _ := json.Marshal(catalog.View(it, catalog.Facts{}).Shipping)
	if want := `{"mode":"me2","local_pick_up":false,"free_shipping":true,"logistic_type":"","dimensions":null,"free_methods":[],"costs":[],"tags":[]}`; string(b) != want {
		t.Errorf("free shipping:\n got %s\nwant %s", b, want)
	}
}

func TestViewSelfServiceTag(t *testing.T) {
	for _, tt := range []struct {
		name   string
		stored []string
		on     bool
		want   []string
	}{
		{"enabled", nil, true, []string{catalog.TagSelfServiceIn}},
		{"not enabled", nil, false, []string{}},
		{"stored tag dropped when not enabled", []string{"mandatory_free_shipping", catalog.TagSelfServiceIn}, false, []string{"mandatory_free_shipping"}},
		{"stored tag not doubled", []string{catalog.TagSelfServiceIn, "x"}, true, []string{"x", catalog.TagSelfServiceIn}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			it := validItem()
			it.Shipping.Tags = tt.stored
			if got := catalog.View(it, catalog.Facts{SelfService: tt.on}).Shipping.Tags; !slices.Equal(got, tt.want) || got == nil {
				t.Errorf("tags %#v, want %#v", got, tt.want)
			}
		})
	}
}
