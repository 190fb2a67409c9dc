package shipping

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/kernel"
)

func readDoc() (string, error) {
	b, err := os.ReadFile("../../docs/shipping.md")
	return string(b), err
}

func TestParseDimensions(t *testing.T) {
	good := map[string]Package{
		"10x20x30,500":   {10, 20, 30, 500},
		"1x1x1,1":        {1, 1, 1, 1},
		"010x20x30,0500": {10, 20, 30, 500},
	}
	for s, want := range good {
		got, err := ParseDimensions(s)
		if err != nil || got != want {
			t.Errorf("ParseDimensions(%q) = %v, %v; want %v", s, got, err, want)
		}
		if s == "10x20x30,500" && got.String() != s {
			t.Errorf("String() = %q", got.String())
		}
	}
	for _, s := range []string{"", "10x20x30", "10x20,500", "10x20x30x40,500", "10x20x30,0", "0x20x30,500",
		"10x20x-1,500", "10.5x20x30,500", "10x20x30,500.0", "1e2x1x1,1", " 10x20x30,500", "10x20x30,500,1",
		"+10x20x30,500", "10X20X30,500", "x20x30,500", "99999999999999999999x1x1,1", "10x20x30,"} {
		if p, err := ParseDimensions(s); err == nil {
			t.Errorf("ParseDimensions(%q) = %v, want an error", s, p)
		}
	}
}

func TestPackageOf(t *testing.T) {
	cat := catalog.Category{ID: "MLA1747", ShippingPreferences: catalog.ShippingPreferences{
		Dimensions: catalog.Dimensions{Height: 10, Width: 20, Length: 30, Weight: 500}}}
	bare := catalog.Category{ID: "MLA1000"}
	dims := "5x5x5,100"
	withDims := &catalog.Parcel{ItemID: "MLA1", Dimensions: &dims}
	empty := ""
	noDims := &catalog.Parcel{ItemID: "MLA2", Dimensions: &empty}
	cases := []struct {
		name  string
		query string
		item  *catalog.Parcel
		cat   catalog.Category
		want  Package
		from  Source
	}{
		{"query first", "1x2x3,4", withDims, cat, Package{1, 2, 3, 4}, FromQuery},
		{"then the item's", "", withDims, cat, Package{5, 5, 5, 100}, FromItem},
		{"then the category's (item without dimensions)", "", noDims, cat, Package{10, 20, 30, 500}, FromCategory},
		{"then the category's (no item)", "", nil, cat, Package{10, 20, 30, 500}, FromCategory},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, from, err := PackageOf(c.query, c.item, c.cat)
			if err != nil || got != c.want || from != c.from {
				t.Errorf("got %v from %s (%v), want %v from %s", got, from, err, c.want, c.from)
			}
		})
	}
	badItem := "10.5x1x1,1" // stored before whole centimetres were the rule
	errs := []struct {
		name  string
		query string
		item  *catalog.Parcel
		cat   catalog.Category
		want  *kernel.Error
		msg   string
	}{
		{"malformed query", "10x20", withDims, cat, ErrBadDimensions,
			`dimensions must be <height>x<width>x<length>,<weight> in positive whole centimetres and grams, got "10x20"`},
		{"malformed item dimensions", "", &catalog.Parcel{ItemID: "MLA3", Dimensions: &badItem}, cat, ErrBadDimensions,
			`item MLA3 has shipping.dimensions that must be <height>x<width>x<length>,<weight> in positive whole centimetres and grams, got "10.5x1x1,1"`},
		{"category without standard dimensions", "", nil, bare, ErrNoDimensions,
			"category MLA1000 has no standard dimensions; give dimensions=<height>x<width>x<length>,<weight>"},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := PackageOf(c.query, c.item, c.cat)
			var e *kernel.Error
			if !errors.Is(err, c.want) || !errors.As(err, &e) || e.Message != c.msg ||
				len(e.Causes) != 1 || e.Causes[0].Code != "dimensions" {
				t.Errorf("err %v (%+v), want %v with message %q naming dimensions", err, e, c.want, c.msg)
			}
		})
	}
}

func TestCategoryPackage(t *testing.T) {
	for _, d := range []catalog.Dimensions{{}, {Height: 10, Width: 20, Length: 30}, {Height: -1, Width: 20, Length: 30, Weight: 500}} {
		if p, ok := CategoryPackage(d); ok {
			t.Errorf("CategoryPackage(%v) = %v, want none", d, p)
		}
	}
}

func TestModes(t *testing.T) {
	cat := catalog.Category{ID: "MLA1747", AcceptedShippingMethods: []int64{73328, 73330},
		ShippingPreferences: catalog.ShippingPreferences{Logistics: []catalog.Logistic{
			{Mode: "me2", Types: []string{"drop_off"}}, {Mode: "not_specified", Types: []string{"not_specified"}},
			{Mode: "me1", Types: []string{"default"}}, {Mode: "custom", Types: []string{"custom"}},
			{Mode: "me2", Types: []string{"fulfillment"}}}}}
	cases := []struct {
		name string
		site string
		cat  catalog.Category
		want string
	}{
		{"every mode once, in the category's order", "MLA", cat, `[` +
			`{"mode":"me2","shipping_attributes":{"costs":"not_allowed","dimensions":"clear","free":{"methods":"optional","accepted_methods":[73328,73330],"rules":[{"free_mode":"country","value":null,"default":true,"free_shipping_flag":true}]}}},` +
			`{"mode":"not_specified","shipping_attributes":{"costs":"not_allowed","dimensions":"not_allowed","free":{"methods":"not_allowed","accepted_methods":[],"rules":[{"free_mode":"country","value":null,"default":true,"free_shipping_flag":true}]}}},` +
			`{"mode":"me1","shipping_attributes":{"costs":"not_allowed","dimensions":"required","free":{"methods":"optional","accepted_methods":[73328,73330],"rules":[{"free_mode":"country","value":null,"default":true,"free_shipping_flag":true}]}}},` +
			`{"mode":"custom","shipping_attributes":{"costs":"required","dimensions":"not_allowed","free":{"methods":"not_allowed","accepted_methods":[],"rules":[]}}}]`},
		{"country leaves out the north, north-east and risk areas in Brazil", "MLB",
			catalog.Category{ID: "MLB1", ShippingPreferences: catalog.ShippingPreferences{Logistics: []catalog.Logistic{{Mode: "me2"}}}},
			`[{"mode":"me2","shipping_attributes":{"costs":"not_allowed","dimensions":"clear","free":{"methods":"optional","accepted_methods":[],"rules":[{"free_mode":"country","value":["BR-N","BR-NE","BR-RISK"],"default":true,"free_shipping_flag":true}]}}}]`},
		{"no logistics, no modes", "MLA", catalog.Category{ID: "MLA1000"}, `[]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(Modes(c.site, c.cat))
			if err != nil || string(b) != c.want {
				t.Errorf("Modes =\n %s\nwant\n %s", b, c.want)
			}
		})
	}
}

func TestPreferencesOf(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	c := catalog.Category{ID: "MLA1747", ShippingPreferences: catalog.ShippingPreferences{
		Dimensions: catalog.Dimensions{Height: 10, Width: 20, Length: 30, Weight: 500},
		Logistics:  []catalog.Logistic{{Mode: "me2", Types: []string{"drop_off", "xd_drop_off"}}, {Mode: "custom"}},
		Restricted: true}, DateCreated: t0, LastModified: t0.Add(time.Hour)}
	b, _ := json.Marshal(PreferencesOf(c))
	want := `{"dimensions":{"height":10,"width":20,"length":30,"weight":500},` +
		`"logistics":[{"types":["drop_off","xd_drop_off"],"mode":"me2"},{"types":[],"mode":"custom"}],` +
		`"restricted":true,"source":{"origin":"category","identifier":"MLA1747"},` +
		`"date_created":"2026-11-20T12:00:00Z","last_modified":"2026-11-20T13:00:00Z","category_id":"MLA1747"}`
	if string(b) != want {
		t.Errorf("PreferencesOf =\n %s\nwant\n %s", b, want)
	}
	b, _ = json.Marshal(PreferencesOf(catalog.Category{ID: "MLA1"}))
	want = `{"dimensions":{"height":0,"width":0,"length":0,"weight":0},"logistics":[],"restricted":false,` +
		`"source":{"origin":"category","identifier":"MLA1"},"date_created":null,"last_modified":null,"category_id":"MLA1"}`
	if string(b) != want {
		t.Errorf("PreferencesOf (bare) =\n %s\nwant\n %s", b, want)
	}
}
