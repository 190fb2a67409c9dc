package shippingsvc

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/shipping"
	"github.com/feria/feria/ports/accountport/accountporttest"
	"github.com/feria/feria/ports/shippingport"
	"github.com/feria/feria/ports/shippingport/shippingporttest"
	"github.com/google/go-cmp/cmp"
)

// world is a fake of the catalog reads that counts them.
type world struct {
	items map[string]catalog.Item
	cats  map[string]catalog.Category
	calls map[string]int
}

func (w *world) Category(_ context.Context, id string) (catalog.Category, error) {
	w.calls["Category"]++
	c, ok := w.cats[id]
	if !ok {
		return c, catalog.ErrCategoryNotFound
	}
	return c, nil
}

func (w *world) Parcels(_ context.Context, ids []string) ([]catalog.Parcel, error) {
	w.calls["Parcels"]++
	var out []catalog.Parcel
	for _, id := range ids {
		if it, ok := w.items[id]; ok {
			out = append(out, catalog.Parcel{ItemID: it.ID, SiteID: it.SiteID, SellerID: it.SellerID, CategoryID: it.CategoryID,
				Dimensions: it.Shipping.Dimensions})
		}
	}
	return out, nil
}

func (w *world) Categories(_ context.Context, ids []string) ([]catalog.Category, error) {
	w.calls["Categories"]++
	var out []catalog.Category
	for _, id := range ids {
		if c, ok := w.cats[id]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// sellers are the shared users double, counting the reads.
type sellers struct {
	known accountporttest.Users
	calls map[string]int
}

func (s sellers) User(ctx context.Context, id int64) (account.User, error) {
	s.calls["User"]++
	return s.known.User(ctx, id)
}

func (s sellers) Users(ctx context.Context, ids []int64) ([]account.User, error) {
	s.calls["Users"]++
	return s.known.Users(ctx, ids)
}

// newWorld is a seller of each reputation on MLA, one on MLB, a category
// with standard dimensions on each site, one without, and items with and
// without dimensions.
func newWorld() (*Service, *world, *shippingporttest.Memory) {
	w := &world{calls: map[string]int{},
		cats: map[string]catalog.Category{
			"MLA1747": {ID: "MLA1747", SiteID: "MLA", AcceptedShippingMethods: []int64{73328},
				ShippingPreferences: catalog.ShippingPreferences{Dimensions: catalog.Dimensions{Height: 10, Width: 20, Length: 30, Weight: 500},
					Logistics: []catalog.Logistic{{Mode: "me2", Types: []string{"drop_off"}}}}},
			"MLA1000": {ID: "MLA1000", SiteID: "MLA"},
			"MLB5672": {ID: "MLB5672", SiteID: "MLB", ShippingPreferences: catalog.ShippingPreferences{
				Dimensions: catalog.Dimensions{Height: 10, Width: 10, Length: 10, Weight: 800},
				Logistics:  []catalog.Logistic{{Mode: "me2"}}}}},
		items: map[string]catalog.Item{
			"MLA1": {ID: "MLA1", SiteID: "MLA", SellerID: 1, CategoryID: "MLA1747"},
			"MLA2": {ID: "MLA2", SiteID: "MLA", SellerID: 2, CategoryID: "MLA1747", Shipping: catalog.ItemShipping{Dimensions: kerneltest.Ptr("5x5x5,800")}},
			"MLA3": {ID: "MLA3", SiteID: "MLA", SellerID: 4, CategoryID: "MLA1000"},
			"MLA4": {ID: "MLA4", SiteID: "MLA", SellerID: 3, CategoryID: "MLA1000", Shipping: catalog.ItemShipping{Dimensions: kerneltest.Ptr("1x1x1,40000")}},
			"MLB1": {ID: "MLB1", SiteID: "MLB", SellerID: 5, CategoryID: "MLB5672"}}}
	users := accountporttest.NewUsers(
		account.User{ID: 1, SiteID: "MLA", Reputation: kerneltest.Ptr("green")}, account.User{ID: 2, SiteID: "MLA", Reputation: kerneltest.Ptr("yellow")},
		account.User{ID: 3, SiteID: "MLA", Reputation: kerneltest.Ptr("red")}, account.User{ID: 4, SiteID: "MLA"},
		account.User{ID: 5, SiteID: "MLB", Reputation: kerneltest.Ptr("green")})
	rates := shippingporttest.NewMemory()
	return New(Deps{Rates: rates, Catalog: w, Users: sellers{known: users, calls: w.calls}}), w, rates
}

func params(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestModes(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newWorld()
	modes, err := s.Modes(ctx, 1, "MLA1747")
	if err != nil || len(modes) != 1 || modes[0].Mode != "me2" ||
		!reflect.DeepEqual(modes[0].ShippingAttributes.Free.AcceptedMethods, []int64{73328}) {
		t.Fatalf("Modes = %+v %v", modes, err)
	}
	if modes, _ := s.Modes(ctx, 5, "MLB5672"); !reflect.DeepEqual(modes[0].ShippingAttributes.Free.Rules[0].Value, []string{"BR-N", "BR-NE", "BR-RISK"}) {
		t.Errorf("MLB rules: %+v", modes)
	}
	_, err = s.Modes(ctx, 1, "")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: shipping.ErrBadQuery, Message: "category_id is required", Causes: []string{"category_id"}})
	_, err = s.Modes(ctx, 99, "1747")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: shipping.ErrBadQuery, Message: `category_id must be a site id followed by digits, got "1747"`, Causes: []string{"category_id"}})
	_, err = s.Modes(ctx, 99, "MLA1747")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: account.ErrUserNotFound, Message: "user 99 not found", Causes: []string{}})
	_, err = s.Modes(ctx, 1, "MLA9")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: catalog.ErrCategoryNotFound, Message: "category MLA9 not found", Causes: []string{}})
	_, err = s.Modes(ctx, 5, "MLA1747")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: shipping.ErrBadQuery, Message: "category MLA1747 is of site MLA; user 5 sells on MLB", Causes: []string{"category_id"}})
}

func TestPreferences(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newWorld()
	p, err := s.Preferences(ctx, "MLA1747")
	if err != nil || p.CategoryID != "MLA1747" || p.Dimensions.Weight != 500 {
		t.Errorf("Preferences = %+v %v", p, err)
	}
	_, err = s.Preferences(ctx, "MLA9")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: catalog.ErrCategoryNotFound, Message: "category MLA9 not found", Causes: []string{}})
	_, err = s.Preferences(ctx, "x")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: shipping.ErrBadQuery, Message: `category_id must be a site id followed by digits, got "x"`, Causes: []string{"category_id"}})
}

func TestUserCost(t *testing.T) {
	ctx := context.Background()
	listing := func(kv ...string) func(string) string {
		return params(append([]string{"category_id", "MLA1747", "currency_id", "ARS", "listing_type_id", "gold_special",
			"condition", "new", "item_price", "15000"}, kv...)...)
	}
	cases := []struct {
		name   string
		user   int64
		params func(string) string
		want   shipping.Quote
	}{
		{"dimensions, green", 1, params("dimensions", "10x20x30,500"), shipping.Quote{CurrencyID: "ARS", BillableWeight: 1200, Gross: 950000, Rate: "0.5", Promoted: 475000, ListCost: 475000, DiscountType: "loyal"}},
		{"dimensions, no reputation", 4, params("dimensions", "10x20x30,500"), shipping.Quote{CurrencyID: "ARS", BillableWeight: 1200, Gross: 950000, Rate: "0", ListCost: 950000, DiscountType: "none"}},
		{"an item's dimensions, the user as seller", 1, params("item_id", "MLA2"), shipping.Quote{CurrencyID: "ARS", BillableWeight: 800, Gross: 520000, Rate: "0.5", Promoted: 260000, ListCost: 260000, DiscountType: "loyal"}},
		{"an item of another seller", 4, params("item_id", "MLA2"), shipping.Quote{CurrencyID: "ARS", BillableWeight: 800, Gross: 520000, Rate: "0", ListCost: 520000, DiscountType: "none"}},
		{"an item without dimensions: its category's", 2, params("item_id", "MLA1"), shipping.Quote{CurrencyID: "ARS", BillableWeight: 1200, Gross: 950000, Rate: "0.4", Promoted: 380000, ListCost: 570000, DiscountType: "loyal"}},
		{"an item, dimensions given", 1, params("item_id", "MLA2", "dimensions", "1x1x1,1"), shipping.Quote{CurrencyID: "ARS", BillableWeight: 1, Gross: 400000, Rate: "0.5", Promoted: 200000, ListCost: 200000, DiscountType: "loyal"}},
		{"a listing: the category's dimensions", 1, listing(), shipping.Quote{CurrencyID: "ARS", BillableWeight: 1200, Gross: 950000, Rate: "0.5", Promoted: 475000, ListCost: 475000, DiscountType: "loyal"}},
		{"a listing with dimensions", 3, listing("dimensions", "10x10x10,5000"), shipping.Quote{CurrencyID: "ARS", BillableWeight: 5000, Gross: 950000, Rate: "0", ListCost: 950000, DiscountType: "none"}},
		{"Brazil", 5, params("dimensions", "10x10x10,800"), shipping.Quote{CurrencyID: "BRL", BillableWeight: 800, Gross: 2790, Rate: "0.5", Promoted: 1395, ListCost: 1395, DiscountType: "loyal"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _, _ := newWorld()
			got, err := s.UserCost(ctx, c.user, c.params)
			if err != nil || got != c.want {
				t.Errorf("UserCost =\n %+v %v\nwant\n %+v", got, err, c.want)
			}
		})
	}

	s, w, _ := newWorld()
	errs := []struct {
		name     string
		user     int64
		params   func(string) string
		sentinel *kernel.Error
		msg      string
		causes   []string
	}{
		{"no parameters", 1, params(), shipping.ErrBadQuery,
			"dimensions is required: <height>x<width>x<length>,<weight> (or item_id, or the fields of a listing not yet created)", []string{"dimensions"}},
		{"parameters before the user", 99, params("dimensions", "0x1x1,1"), shipping.ErrBadQuery,
			`dimensions must be <height>x<width>x<length>,<weight> in positive whole centimetres and grams, got "0x1x1,1"`, []string{"dimensions"}},
		{"unknown user", 99, params("dimensions", "1x1x1,1"), account.ErrUserNotFound, "user 99 not found", nil},
		{"unknown item", 1, params("item_id", "MLA404"), catalog.ErrItemNotFound, "item MLA404 not found", nil},
		{"an item of another site", 1, params("item_id", "MLB1"), shipping.ErrBadQuery, "item MLB1 is of site MLB; user 1 sells on MLA", []string{"item_id"}},
		{"unknown category", 1, listing("category_id", "MLA9"), catalog.ErrCategoryNotFound, "category MLA9 not found", nil},
		{"a category of another site", 1, listing("category_id", "MLB5672"), shipping.ErrBadQuery, "category MLB5672 is of site MLB; user 1 sells on MLA", []string{"category_id"}},
		{"a currency not the site's", 1, listing("currency_id", "BRL"), shipping.ErrBadQuery, `currency_id must be ARS, the currency of site MLA, got "BRL"`, []string{"currency_id"}},
		{"a category without dimensions", 1, listing("category_id", "MLA1000"), shipping.ErrNoDimensions,
			"category MLA1000 has no standard dimensions; give dimensions=<height>x<width>x<length>,<weight>", []string{"dimensions"}},
		{"heavier than the last tier", 1, params("dimensions", "100x100x100,1"), shipping.ErrTooHeavy,
			"dimensions 100x100x100,1 give a billable weight of 200000 g, heavier than the last weight tier of MLA (30000 g)", []string{"dimensions"}},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.UserCost(ctx, c.user, c.params)
			kerneltest.WantErr(t, "", err, kerneltest.Want{Is: c.sentinel, Message: c.msg, Causes: append([]string{}, c.causes...)})
		})
	}
	if w.calls["Users"]+w.calls["Categories"] != 0 {
		t.Errorf("single forms used the batch reads: %v", w.calls)
	}
}

func TestItemCost(t *testing.T) {
	ctx := context.Background()
	s, w, rates := newWorld()
	q, err := s.ItemCost(ctx, "MLA2", "")
	if err != nil || q.ListCost != 312000 || q.Rate != "0.4" {
		t.Errorf("item's dimensions, yellow seller: %+v %v", q, err)
	}
	if w.calls["Category"] != 0 {
		t.Errorf("read the category of an item with dimensions: %v", w.calls)
	}
	q, err = s.ItemCost(ctx, "MLA1", "")
	if err != nil || q.BillableWeight != 1200 || q.ListCost != 475000 {
		t.Errorf("category's dimensions: %+v %v", q, err)
	}
	q, err = s.ItemCost(ctx, "MLA1", "10x10x10,30000")
	if err != nil || q.BillableWeight != 30000 || q.Gross != 1500000 {
		t.Errorf("dimensions given: %+v %v", q, err)
	}
	// A table put in the sandbox replaces the default.
	if _, err := s.PutRates(ctx, shipping.Rates{SiteID: "MLA", CurrencyID: "ARS", VolumetricDivisor: "6000",
		WeightTiers: []shipping.Tier{{UpTo: 100000, Cost: "100.10"}}, ReputationDiscounts: map[string]shipping.Decimal{"green": "0.25"}}); err != nil {
		t.Fatal(err)
	}
	q, err = s.ItemCost(ctx, "MLA1", "")
	if want := (shipping.Quote{CurrencyID: "ARS", BillableWeight: 1000, Gross: 10010, Rate: "0.25", Promoted: 2503, ListCost: 7507, DiscountType: "loyal"}); err != nil || q != want {
		t.Errorf("stored table: %+v %v, want %+v", q, err, want)
	}
	if rates.Reads == 0 {
		t.Error("rates were not read from the store")
	}
	_, err = s.ItemCost(ctx, "MLA404", "")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: catalog.ErrItemNotFound, Message: "item MLA404 not found", Causes: []string{}})
	_, err = s.ItemCost(ctx, "404", "")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: shipping.ErrBadQuery, Message: `item_id must be a site id followed by digits, got "404"`, Causes: []string{"item_id"}})
	_, err = s.ItemCost(ctx, "MLA1", "1x1x1")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: shipping.ErrBadQuery, Message: `dimensions must be <height>x<width>x<length>,<weight> in positive whole centimetres and grams, got "1x1x1"`, Causes: []string{"dimensions"}})
}

func TestItemsCost(t *testing.T) {
	ctx := context.Background()
	s, w, rates := newWorld()
	got, err := s.ItemsCost(ctx, "MLB1,MLA1,MLA2,MLA3,MLA1", "")
	if err == nil {
		t.Fatalf("MLA3's category has no dimensions, yet: %+v", got)
	}
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: shipping.ErrNoDimensions, Message: "item MLA3: category MLA1000 has no standard dimensions; give dimensions=<height>x<width>x<length>,<weight>", Causes: []string{"dimensions"}})

	clear(w.calls)
	rates.Reads = 0
	got, err = s.ItemsCost(ctx, "MLB1,MLA1,MLA2,MLA1", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []shippingport.ItemQuote{
		{ItemID: "MLB1", Quote: shipping.Quote{CurrencyID: "BRL", BillableWeight: 800, Gross: 2790, Rate: "0.5", Promoted: 1395, ListCost: 1395, DiscountType: "loyal"}},
		{ItemID: "MLA1", Quote: shipping.Quote{CurrencyID: "ARS", BillableWeight: 1200, Gross: 950000, Rate: "0.5", Promoted: 475000, ListCost: 475000, DiscountType: "loyal"}},
		{ItemID: "MLA2", Quote: shipping.Quote{CurrencyID: "ARS", BillableWeight: 800, Gross: 520000, Rate: "0.4", Promoted: 208000, ListCost: 312000, DiscountType: "loyal"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ItemsCost (-want +got):\n%s", diff)
	}
	if want := map[string]int{"Parcels": 1, "Categories": 1, "Users": 1}; !reflect.DeepEqual(w.calls, want) || rates.Reads != 1 {
		t.Errorf("reads %v and %d rate reads, want %v and 1", w.calls, rates.Reads, want)
	}

	// Fifty items read as few times as three.
	for i := range shipping.MaxItems {
		w.items[fmt.Sprint("MLA", 100+i)] = catalog.Item{ID: fmt.Sprint("MLA", 100+i), SiteID: "MLA", SellerID: int64(1 + i%4), CategoryID: "MLA1747"}
	}
	clear(w.calls)
	ids := ""
	for i := range shipping.MaxItems {
		ids += fmt.Sprint(",MLA", 100+i)
	}
	got, err = s.ItemsCost(ctx, ids[1:], "")
	if err != nil || len(got) != shipping.MaxItems {
		t.Fatalf("fifty items: %d %v", len(got), err)
	}
	if want := map[string]int{"Parcels": 1, "Categories": 1, "Users": 1}; !reflect.DeepEqual(w.calls, want) {
		t.Errorf("fifty items: reads %v, want %v", w.calls, want)
	}

	clear(w.calls)
	if _, err := s.ItemsCost(ctx, "MLA2", "1x1x1,1"); err != nil || w.calls["Categories"] != 0 {
		t.Errorf("dimensions given still read categories: %v %v", w.calls, err)
	}
	_, err = s.ItemsCost(ctx, "MLA1,MLA404,MLA2,MLA405", "")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: catalog.ErrItemNotFound, Message: "items MLA404, MLA405 not found", Causes: []string{}})
	_, err = s.ItemsCost(ctx, "MLA1,MLA404", "")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: catalog.ErrItemNotFound, Message: "item MLA404 not found", Causes: []string{}})
	_, err = s.ItemsCost(ctx, "MLA1,MLA4", "")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: shipping.ErrTooHeavy, Message: "item MLA4: dimensions 1x1x1,40000 give a billable weight of 40000 g, heavier than the last weight tier of MLA (30000 g)", Causes: []string{"dimensions"}})
	_, err = s.ItemsCost(ctx, "", "")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: shipping.ErrBadQuery, Message: fmt.Sprintf("ids is required: comma-separated item ids, at most %d", shipping.MaxItems), Causes: []string{"ids"}})
	_, err = s.ItemsCost(ctx, "MLA1", "x")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: shipping.ErrBadQuery, Message: `dimensions must be <height>x<width>x<length>,<weight> in positive whole centimetres and grams, got "x"`, Causes: []string{"dimensions"}})
}

func TestRates(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newWorld()
	def, _ := shipping.Default("MLC")
	if got, err := s.Rates(ctx, "MLC"); err != nil || !reflect.DeepEqual(got, def) {
		t.Errorf("default: %+v %v", got, err)
	}
	put, err := s.PutRates(ctx, shipping.Rates{SiteID: "MLC", CurrencyID: "CLP", VolumetricDivisor: "4000.0",
		WeightTiers: []shipping.Tier{{UpTo: 1000, Cost: "2990.00"}}})
	want := shipping.Rates{SiteID: "MLC", CurrencyID: "CLP", VolumetricDivisor: "4000",
		WeightTiers: []shipping.Tier{{UpTo: 1000, Cost: "2990"}}, ReputationDiscounts: map[string]shipping.Decimal{}}
	if err != nil || !reflect.DeepEqual(put, want) {
		t.Errorf("PutRates = %+v %v", put, err)
	}
	if got, _ := s.Rates(ctx, "MLC"); !reflect.DeepEqual(got, want) {
		t.Errorf("Rates after put = %+v", got)
	}
	_, err = s.PutRates(ctx, shipping.Rates{SiteID: "MLC", CurrencyID: "ARS", VolumetricDivisor: "4000", WeightTiers: []shipping.Tier{{UpTo: 1, Cost: "1"}}})
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: shipping.ErrInvalidRates, Message: `currency_id must be CLP, the currency of site MLC, got "ARS"`, Causes: []string{"currency_id"}})
	if got, _ := s.Rates(ctx, "MLC"); !reflect.DeepEqual(got, want) {
		t.Errorf("a refused put changed the table: %+v", got)
	}
	_, err = s.Rates(ctx, "XXX")
	kerneltest.WantErr(t, "", err, kerneltest.Want{Is: shipping.ErrInvalidRates, Message: `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XXX"`, Causes: []string{"site_id"}})
}
