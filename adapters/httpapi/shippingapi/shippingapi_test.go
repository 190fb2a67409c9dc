package shippingapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/feria/feria/core/shipping"
	"github.com/feria/feria/test/apptest"
)

// world is apptest.Sample plus what area C reads: sellers of every
// reputation, a category with logistics and accepted methods, a Brazilian
// category and seller, and items with and without their own dimensions.
//
// With the default Argentine table (docs/shipping.md: divisor 5000; tiers
// 500 → 4000, 1000 → 5200, 5000 → 9500, 30000 → 15000; green 0.5, yellow
// 0.4), a 10×20×30 cm package weighs 1200 g by volume and costs 9500.
func world(t *testing.T, be apptest.Backend) *apptest.App {
	t.Helper()
	a := apptest.NewSample(t, be)
	user := func(id int, site string, rep any) map[string]any {
		return map[string]any{"id": id, "nickname": fmt.Sprint("U", id), "site_id": site, "reputation": rep}
	}
	item := func(id string, seller int, category string, dims any) map[string]any {
		site := id[:3]
		return map[string]any{"id": id, "site_id": site, "seller_id": seller, "title": "Item " + id, "category_id": category,
			"price": 100, "shipping": map[string]any{"mode": "me2", "logistic_type": "drop_off", "dimensions": dims}}
	}
	a.MustLoad(map[string]any{
		"users": []map[string]any{user(201, "MLA", "green"), user(202, "MLA", "yellow"), user(203, "MLA", "orange"),
			user(204, "MLA", "red"), user(905, "MLB", "green")},
		"categories": []map[string]any{
			{"id": "MLA1748", "site_id": "MLA", "name": "Suspensión", "domain_id": "MLA-SUSPENSION", "compatibilities": nil,
				"shipping_preferences": map[string]any{"dimensions": map[string]any{"height": 10, "width": 10, "length": 10, "weight": 900},
					"logistics": []any{map[string]any{"mode": "me2", "types": []string{"drop_off", "xd_drop_off"}},
						map[string]any{"mode": "not_specified", "types": []string{"not_specified"}}}, "restricted": true},
				"accepted_shipping_methods": []int{73328, 73330}},
			{"id": "MLB5672", "site_id": "MLB", "name": "Amortecedores", "domain_id": "MLB-SHOCK_ABSORBERS", "compatibilities": nil,
				"shipping_preferences": map[string]any{"dimensions": map[string]any{"height": 10, "width": 10, "length": 10, "weight": 800},
					"logistics": []any{map[string]any{"mode": "me2", "types": []string{"drop_off"}}}},
				"accepted_shipping_methods": []int{100009}},
		},
		"items": []map[string]any{
			item("MLA2001", 201, "MLA1748", "10x20x30,500"), // volumetric 1200 g
			item("MLA2002", 202, "MLA1000", "5x5x5,500"),    // exactly the first tier's up_to
			item("MLA2003", 203, "MLA1747", nil),            // the category's 10x20x30,500
			item("MLA2004", 204, "MLA1748", "10x10x10,30001"),
			item("MLA2005", 123, "MLA1000", nil), // no dimensions anywhere
			item("MLB2001", 905, "MLB5672", nil), // the category's 10x10x10,800
		},
	})
	return a
}

type call struct {
	name   string
	path   string
	status int
	body   string
}

func run(t *testing.T, a *apptest.App, calls []call) {
	t.Helper()
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			a.Do("GET", c.path, nil).Is(t, c.status, c.body)
		})
	}
}

// cost is the coverage answer; verbose ones add billable weight and
// discount.
func cost(list, currency string) string {
	return `{"coverage":{"all_country":{"list_cost":` + list + `,"currency_id":"` + currency + `"}}}`
}

func verbose(list, currency, weight, rate, typ, promoted string) string {
	return `{"coverage":{"all_country":{"list_cost":` + list + `,"currency_id":"` + currency + `","billable_weight":` + weight +
		`,"discount":{"rate":` + rate + `,"type":"` + typ + `","promoted_amount":` + promoted + `}}}}`
}

func bad(param, message string) string {
	return apptest.Err(400, "bad_request", message, param, message)
}

const dimsRule = "must be <height>x<width>x<length>,<weight> in positive whole centimetres and grams"

func TestShippingModes(t *testing.T) {
	me2 := `{"mode":"me2","shipping_attributes":{"costs":"not_allowed","dimensions":"clear","free":{"methods":"optional","accepted_methods":[73328,73330],` +
		`"rules":[{"free_mode":"country","value":null,"default":true,"free_shipping_flag":true}]}}}`
	notSpecified := `{"mode":"not_specified","shipping_attributes":{"costs":"not_allowed","dimensions":"not_allowed","free":{"methods":"not_allowed","accepted_methods":[],` +
		`"rules":[{"free_mode":"country","value":null,"default":true,"free_shipping_flag":true}]}}}`
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		run(t, a, []call{
			{"the category's modes in its order", "/users/201/shipping_modes?category_id=MLA1748", 200, `[` + me2 + `,` + notSpecified + `]`},
			{"a token is not needed nor checked", "/users/201/shipping_modes?category_id=MLA1748&access_token=APP_USR-nope", 200, `[` + me2 + `,` + notSpecified + `]`},
			{"Brazil: country leaves out the north, north-east and risk areas", "/users/905/shipping_modes?category_id=MLB5672", 200,
				`[{"mode":"me2","shipping_attributes":{"costs":"not_allowed","dimensions":"clear","free":{"methods":"optional","accepted_methods":[100009],` +
					`"rules":[{"free_mode":"country","value":["BR-N","BR-NE","BR-RISK"],"default":true,"free_shipping_flag":true}]}}}]`},
			{"a category without logistics offers no mode", "/users/201/shipping_modes?category_id=MLA1747", 200, `[]`},
			{"no category_id", "/users/201/shipping_modes", 400, bad("category_id", "category_id is required")},
			{"malformed category_id", "/users/201/shipping_modes?category_id=1748", 400,
				bad("category_id", `category_id must be a site id followed by digits, got "1748"`)},
			{"malformed user_id", "/users/abc/shipping_modes?category_id=MLA1748", 400,
				apptest.Err(400, "bad_request", `user_id must be a positive integer, got "abc"`, "user_id", "user_id must be a positive integer")},
			{"user_id zero", "/users/0/shipping_modes?category_id=MLA1748", 400,
				apptest.Err(400, "bad_request", `user_id must be a positive integer, got "0"`, "user_id", "user_id must be a positive integer")},
			{"parameters are checked before the user", "/users/999/shipping_modes?category_id=x", 400,
				bad("category_id", `category_id must be a site id followed by digits, got "x"`)},
			{"unknown user", "/users/999/shipping_modes?category_id=MLA1748", 404, apptest.Err(404, "not_found", "user 999 not found")},
			{"unknown category", "/users/201/shipping_modes?category_id=MLA9", 404, apptest.Err(404, "not_found", "category MLA9 not found")},
			{"a category of another site", "/users/201/shipping_modes?category_id=MLB5672", 400,
				bad("category_id", "category MLB5672 is of site MLB; user 201 sells on MLA")},
		})
	})
}

func TestShippingPreferences(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		run(t, a, []call{
			{"every field of area C", "/categories/MLA1748/shipping_preferences", 200,
				`{"dimensions":{"height":10,"width":10,"length":10,"weight":900},` +
					`"logistics":[{"types":["drop_off","xd_drop_off"],"mode":"me2"},{"types":["not_specified"],"mode":"not_specified"}],` +
					`"restricted":true,"source":{"origin":"category","identifier":"MLA1748"},` +
					`"date_created":"2026-11-20T12:00:00Z","last_modified":"2026-11-20T12:00:00Z","category_id":"MLA1748"}`},
			{"a category without preferences", "/categories/MLA1000/shipping_preferences", 200,
				`{"dimensions":{"height":0,"width":0,"length":0,"weight":0},"logistics":[],"restricted":false,` +
					`"source":{"origin":"category","identifier":"MLA1000"},` +
					`"date_created":"2026-11-20T12:00:00Z","last_modified":"2026-11-20T12:00:00Z","category_id":"MLA1000"}`},
			{"unknown category", "/categories/MLA9/shipping_preferences", 404, apptest.Err(404, "not_found", "category MLA9 not found")},
			{"malformed category_id", "/categories/abc/shipping_preferences", 400,
				bad("category_id", `category_id must be a site id followed by digits, got "abc"`)},
			{"the removed resource names its successor", "/categories/MLA1748/shipping", 404, apptest.Err(404, "not_found",
				"resource /categories/MLA1748/shipping was removed on 2020-05-30; use /categories/MLA1748/shipping_preferences")},
			{"whatever the id", "/categories/MLA9/shipping", 404, apptest.Err(404, "not_found",
				"resource /categories/MLA9/shipping was removed on 2020-05-30; use /categories/MLA9/shipping_preferences")},
		})
		r := a.Do("GET", "/categories/MLA1748/shipping", nil)
		if got := r.Header.Get("Link"); got != `</categories/MLA1748/shipping_preferences>; rel="successor-version"` {
			t.Errorf("Link of the removed resource: %q", got)
		}
	})
}

func TestCostByDimensions(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		run(t, a, []call{
			{"volumetric above real weight, green", "/users/201/shipping_options/free?dimensions=10x20x30,500", 200, cost("4750", "ARS")},
			{"verbose", "/users/201/shipping_options/free?dimensions=10x20x30,500&verbose=true", 200,
				verbose("4750", "ARS", "1200", "0.5", "loyal", "4750")},
			{"verbose=false", "/users/201/shipping_options/free?dimensions=10x20x30,500&verbose=false", 200, cost("4750", "ARS")},
			{"real weight above volumetric, yellow", "/users/202/shipping_options/free?dimensions=10x10x10,800&verbose=true", 200,
				verbose("3120", "ARS", "800", "0.4", "loyal", "2080")},
			{"exactly on a tier's up_to", "/users/123/shipping_options/free?dimensions=5x5x5,500&verbose=true", 200,
				verbose("4000", "ARS", "500", "0", "none", "0")},
			{"a gram above it", "/users/123/shipping_options/free?dimensions=5x5x5,501&verbose=true", 200,
				verbose("5200", "ARS", "501", "0", "none", "0")},
			{"exactly the last tier", "/users/202/shipping_options/free?dimensions=1x1x1,30000&verbose=true", 200,
				verbose("9000", "ARS", "30000", "0.4", "loyal", "6000")},
			{"orange: no discount", "/users/203/shipping_options/free?dimensions=10x20x30,500&verbose=true", 200,
				verbose("9500", "ARS", "1200", "0", "none", "0")},
			{"red: no discount", "/users/204/shipping_options/free?dimensions=10x20x30,500&verbose=true", 200,
				verbose("9500", "ARS", "1200", "0", "none", "0")},
			{"no reputation: no discount", "/users/123/shipping_options/free?dimensions=10x20x30,500&verbose=true", 200,
				verbose("9500", "ARS", "1200", "0", "none", "0")},
			{"Brazil, in reais with cents", "/users/905/shipping_options/free?dimensions=10x10x10,800&verbose=true", 200,
				verbose("13.95", "BRL", "800", "0.5", "loyal", "13.95")},
			{"heavier than the last tier", "/users/201/shipping_options/free?dimensions=10x10x10,30001", 400,
				bad("dimensions", "dimensions 10x10x10,30001 give a billable weight of 30001 g, heavier than the last weight tier of MLA (30000 g)")},
			{"heavier by volume", "/users/201/shipping_options/free?dimensions=100x100x100,1", 400,
				bad("dimensions", "dimensions 100x100x100,1 give a billable weight of 200000 g, heavier than the last weight tier of MLA (30000 g)")},
			{"no parameters", "/users/201/shipping_options/free", 400,
				bad("dimensions", "dimensions is required: <height>x<width>x<length>,<weight> (or item_id, or the fields of a listing not yet created)")},
			{"malformed dimensions", "/users/201/shipping_options/free?dimensions=10x20,500", 400, bad("dimensions", `dimensions `+dimsRule+`, got "10x20,500"`)},
			{"a zero dimension", "/users/201/shipping_options/free?dimensions=0x20x30,500", 400, bad("dimensions", `dimensions `+dimsRule+`, got "0x20x30,500"`)},
			{"a negative dimension", "/users/201/shipping_options/free?dimensions=10x-20x30,500", 400, bad("dimensions", `dimensions `+dimsRule+`, got "10x-20x30,500"`)},
			{"a zero weight", "/users/201/shipping_options/free?dimensions=10x20x30,0", 400, bad("dimensions", `dimensions `+dimsRule+`, got "10x20x30,0"`)},
			{"a fraction of a centimetre", "/users/201/shipping_options/free?dimensions=10.5x20x30,500", 400, bad("dimensions", `dimensions `+dimsRule+`, got "10.5x20x30,500"`)},
			{"verbose neither true nor false", "/users/201/shipping_options/free?dimensions=10x20x30,500&verbose=yes", 400,
				bad("verbose", `verbose must be true or false, got "yes"`)},
			{"malformed user_id", "/users/x1/shipping_options/free?dimensions=10x20x30,500", 400,
				apptest.Err(400, "bad_request", `user_id must be a positive integer, got "x1"`, "user_id", "user_id must be a positive integer")},
			{"unknown user", "/users/999/shipping_options/free?dimensions=10x20x30,500", 404, apptest.Err(404, "not_found", "user 999 not found")},
		})
	})
}

func TestCostOfAnItemForAUser(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		run(t, a, []call{
			{"the item's dimensions, the user's reputation", "/users/201/shipping_options/free?item_id=MLA2001&verbose=true", 200,
				verbose("4750", "ARS", "1200", "0.5", "loyal", "4750")},
			{"an item of another seller: the user is the seller priced", "/users/202/shipping_options/free?item_id=MLA2001&verbose=true", 200,
				verbose("5700", "ARS", "1200", "0.4", "loyal", "3800")},
			{"an item without dimensions: its category's", "/users/201/shipping_options/free?item_id=MLA1100&verbose=true", 200,
				verbose("4750", "ARS", "1200", "0.5", "loyal", "4750")},
			{"dimensions given win over the item's", "/users/201/shipping_options/free?item_id=MLA2001&dimensions=1x1x1,1&verbose=true", 200,
				verbose("2000", "ARS", "1", "0.5", "loyal", "2000")},
			{"malformed item_id", "/users/201/shipping_options/free?item_id=2001", 400, bad("item_id", `item_id must be a site id followed by digits, got "2001"`)},
			{"unknown item", "/users/201/shipping_options/free?item_id=MLA9999", 404, apptest.Err(404, "not_found", "item MLA9999 not found")},
			{"an item of another site", "/users/201/shipping_options/free?item_id=MLB2001", 400, bad("item_id", "item MLB2001 is of site MLB; user 201 sells on MLA")},
			{"item_id with a field of a new listing", "/users/201/shipping_options/free?item_id=MLA2001&category_id=MLA1748", 400,
				bad("category_id", "category_id describes a listing not yet created; an existing one is named by item_id alone")},
			{"an item too heavy", "/users/201/shipping_options/free?item_id=MLA2004", 400,
				bad("dimensions", "dimensions 10x10x10,30001 give a billable weight of 30001 g, heavier than the last weight tier of MLA (30000 g)")},
			{"an item with no dimensions anywhere", "/users/123/shipping_options/free?item_id=MLA2005", 400,
				bad("dimensions", "category MLA1000 has no standard dimensions; give dimensions=<height>x<width>x<length>,<weight>")},
		})
	})
}

func TestCostOfAnItem(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		run(t, a, []call{
			{"the item's dimensions, its seller's reputation", "/items/MLA2001/shipping_options/free", 200, cost("4750", "ARS")},
			{"verbose", "/items/MLA2001/shipping_options/free?verbose=true", 200, verbose("4750", "ARS", "1200", "0.5", "loyal", "4750")},
			{"exactly on up_to, yellow", "/items/MLA2002/shipping_options/free?verbose=true", 200, verbose("2400", "ARS", "500", "0.4", "loyal", "1600")},
			{"the category's dimensions, orange", "/items/MLA2003/shipping_options/free?verbose=true", 200, verbose("9500", "ARS", "1200", "0", "none", "0")},
			{"Brazil, the category's dimensions", "/items/MLB2001/shipping_options/free?verbose=true", 200, verbose("13.95", "BRL", "800", "0.5", "loyal", "13.95")},
			{"dimensions given", "/items/MLA2003/shipping_options/free?dimensions=10x10x10,5000", 200, cost("9500", "ARS")},
			{"heavier than the last tier", "/items/MLA2004/shipping_options/free", 400,
				bad("dimensions", "dimensions 10x10x10,30001 give a billable weight of 30001 g, heavier than the last weight tier of MLA (30000 g)")},
			{"no dimensions anywhere", "/items/MLA2005/shipping_options/free", 400,
				bad("dimensions", "category MLA1000 has no standard dimensions; give dimensions=<height>x<width>x<length>,<weight>")},
			{"malformed dimensions", "/items/MLA2001/shipping_options/free?dimensions=1x1x1", 400, bad("dimensions", `dimensions `+dimsRule+`, got "1x1x1"`)},
			{"malformed verbose", "/items/MLA2001/shipping_options/free?verbose=1", 400, bad("verbose", `verbose must be true or false, got "1"`)},
			{"malformed item_id", "/items/abc/shipping_options/free", 400, bad("item_id", `item_id must be a site id followed by digits, got "abc"`)},
			{"unknown item", "/items/MLA9999/shipping_options/free", 404, apptest.Err(404, "not_found", "item MLA9999 not found")},
		})
	})
}

func TestCostOfManyItems(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		run(t, a, []call{
			{"an object keyed by item id, in the order asked", "/items/shipping_options/free?ids=MLB2001,MLA2001,MLA2002,MLA2003", 200,
				`{"MLB2001":` + cost("13.95", "BRL") + `,"MLA2001":` + cost("4750", "ARS") + `,"MLA2002":` + cost("2400", "ARS") +
					`,"MLA2003":` + cost("9500", "ARS") + `}`},
			{"verbose, a repeated id once", "/items/shipping_options/free?ids=MLA2002,MLA2003,MLA2002&verbose=true", 200,
				`{"MLA2002":` + verbose("2400", "ARS", "500", "0.4", "loyal", "1600") + `,"MLA2003":` + verbose("9500", "ARS", "1200", "0", "none", "0") + `}`},
			{"dimensions given apply to every item", "/items/shipping_options/free?ids=MLA2001,MLA2005&dimensions=1x1x1,1", 200,
				`{"MLA2001":` + cost("2000", "ARS") + `,"MLA2005":` + cost("4000", "ARS") + `}`},
			{"no ids", "/items/shipping_options/free", 400, bad("ids", fmt.Sprintf("ids is required: comma-separated item ids, at most %d", shipping.MaxItems))},
			{"malformed ids", "/items/shipping_options/free?ids=MLA2001,abc,,MLA2", 400,
				bad("ids", `ids must be item ids (a site id followed by digits); not one: "abc", ""`)},
			{"unknown items", "/items/shipping_options/free?ids=MLA2001,MLA9998,MLA9999", 404, apptest.Err(404, "not_found", "items MLA9998, MLA9999 not found")},
			{"an unknown item", "/items/shipping_options/free?ids=MLA9999,MLA2001", 404, apptest.Err(404, "not_found", "item MLA9999 not found")},
			{"an item too heavy", "/items/shipping_options/free?ids=MLA2001,MLA2004", 400,
				bad("dimensions", "item MLA2004: dimensions 10x10x10,30001 give a billable weight of 30001 g, heavier than the last weight tier of MLA (30000 g)")},
			{"an item without dimensions", "/items/shipping_options/free?ids=MLA2005", 400,
				bad("dimensions", "item MLA2005: category MLA1000 has no standard dimensions; give dimensions=<height>x<width>x<length>,<weight>")},
			{"malformed dimensions", "/items/shipping_options/free?ids=MLA2001&dimensions=x", 400, bad("dimensions", `dimensions `+dimsRule+`, got "x"`)},
			{"malformed verbose", "/items/shipping_options/free?ids=MLA2001&verbose=TRUE", 400, bad("verbose", `verbose must be true or false, got "TRUE"`)},
		})

		// MaxItems items answer; one more id is refused before any read.
		var items []map[string]any
		ids := make([]string, shipping.MaxItems+1)
		for i := range ids {
			ids[i] = fmt.Sprint("MLA", 3000+i)
			items = append(items, map[string]any{"id": ids[i], "site_id": "MLA", "seller_id": 201 + i%4, "title": "Item", "category_id": "MLA1748",
				"shipping": map[string]any{"mode": "me2", "dimensions": fmt.Sprintf("10x10x10,%d", 100*(i+1))}})
		}
		a.MustLoad(map[string]any{"items": items[:shipping.MaxItems]})
		var want strings.Builder
		lists := map[int]string{0: "2000", 1: "2400", 2: "4000", 3: "4000"} // green, yellow, orange, red on 4000
		for i, id := range ids[:shipping.MaxItems] {
			if i > 0 {
				want.WriteString(",")
			}
			list := lists[i%4]
			switch w := 100 * (i + 1); {
			case w > 1000:
				list = map[int]string{0: "4750", 1: "5700", 2: "9500", 3: "9500"}[i%4]
			case w > 500:
				list = map[int]string{0: "2600", 1: "3120", 2: "5200", 3: "5200"}[i%4]
			}
			fmt.Fprintf(&want, "%q:%s", id, cost(list, "ARS"))
		}
		a.Do("GET", "/items/shipping_options/free?ids="+strings.Join(ids[:shipping.MaxItems], ","), nil).Is(t, 200, "{"+want.String()+"}")
		a.Do("GET", "/items/shipping_options/free?ids="+strings.Join(ids, ","), nil).Is(t, 400,
			bad("ids", fmt.Sprintf("ids names %d items; at most %d are allowed", shipping.MaxItems+1, shipping.MaxItems)))
	})
}

func TestCostOfANewListing(t *testing.T) {
	listing := "/users/201/shipping_options/free?currency_id=ARS&listing_type_id=gold_special&condition=new&item_price=15000"
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		run(t, a, []call{
			{"the category's standard dimensions (10x10x10,900)", listing + "&category_id=MLA1748&verbose=true", 200,
				verbose("2600", "ARS", "900", "0.5", "loyal", "2600")},
			{"dimensions given", listing + "&category_id=MLA1748&dimensions=10x10x10,800&verbose=true", 200,
				verbose("2600", "ARS", "800", "0.5", "loyal", "2600")},
			{"a category without dimensions, dimensions given", listing + "&category_id=MLA1000&dimensions=5x5x5,500", 200, cost("2000", "ARS")},
			{"a decimal price", "/users/202/shipping_options/free?currency_id=ARS&listing_type_id=free&condition=used&item_price=99.90&category_id=MLA1748", 200,
				cost("3120", "ARS")},
			{"a currency not the site's", "/users/201/shipping_options/free?currency_id=BRL&listing_type_id=gold_special&condition=new&item_price=15000&category_id=MLA1748", 400,
				bad("currency_id", `currency_id must be ARS, the currency of site MLA, got "BRL"`)},
			{"a category of another site", listing + "&category_id=MLB5672", 400, bad("category_id", "category MLB5672 is of site MLB; user 201 sells on MLA")},
			{"unknown category", listing + "&category_id=MLA9", 404, apptest.Err(404, "not_found", "category MLA9 not found")},
			{"a category without dimensions", listing + "&category_id=MLA1000", 400,
				bad("dimensions", "category MLA1000 has no standard dimensions; give dimensions=<height>x<width>x<length>,<weight>")},
			{"the rest of the listing missing", "/users/201/shipping_options/free?category_id=MLA1748", 400, apptest.Err(400, "bad_request",
				"currency_id is required to price a listing not yet created",
				"currency_id", "currency_id is required to price a listing not yet created",
				"listing_type_id", "listing_type_id is required to price a listing not yet created",
				"condition", "condition is required to price a listing not yet created",
				"item_price", "item_price is required to price a listing not yet created")},
			{"every field malformed", "/users/201/shipping_options/free?currency_id=ars&listing_type_id=platinum&condition=broken&item_price=-5&category_id=1748", 400,
				apptest.Err(400, "bad_request", `category_id must be a site id followed by digits, got "1748"`,
					"category_id", `category_id must be a site id followed by digits, got "1748"`,
					"currency_id", `currency_id must be a three-letter currency code, got "ars"`,
					"listing_type_id", `listing_type_id must be one of free, bronze, silver, gold, gold_special, gold_premium, gold_pro, got "platinum"`,
					"condition", `condition must be one of new, used, not_specified, got "broken"`,
					"item_price", `item_price must be a positive number such as 15000 or 99.90, got "-5"`)},
			{"a price of zero", listing[:len(listing)-len("15000")] + "0&category_id=MLA1748", 400,
				bad("item_price", `item_price must be a positive number such as 15000 or 99.90, got "0"`)},
			{"unknown user", "/users/999/shipping_options/free?currency_id=ARS&listing_type_id=gold_special&condition=new&item_price=1&category_id=MLA1748", 404,
				apptest.Err(404, "not_found", "user 999 not found")},
		})
	})
}

func TestRatesInTheSandbox(t *testing.T) {
	mla := `{"site_id":"MLA","currency_id":"ARS","volumetric_divisor":5000,"weight_tiers":[{"up_to":500,"cost":4000},{"up_to":1000,"cost":5200},` +
		`{"up_to":5000,"cost":9500},{"up_to":30000,"cost":15000}],"reputation_discounts":{"green":0.5,"yellow":0.4}}`
	mlb := `{"site_id":"MLB","currency_id":"BRL","volumetric_divisor":4000,"weight_tiers":[{"up_to":1000,"cost":22.9},{"up_to":50000,"cost":100}],` +
		`"reputation_discounts":{"green":0.45,"red":0}}`
	// The path names the site: a body's site_id is ignored.
	mlbBody := `{"site_id":"MLA","currency_id":"BRL","volumetric_divisor":4000.0,"weight_tiers":[{"up_to":1000,"cost":22.90},{"up_to":50000,"cost":1E2}],` +
		`"reputation_discounts":{"green":0.450,"red":0}}`
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		a.Sandbox("GET", "/shipping_rates/MLA", nil).Is(t, 200, mla)
		a.Sandbox("GET", "/shipping_rates/MEC", nil).Is(t, 200, `{"site_id":"MEC","currency_id":"USD","volumetric_divisor":5000,`+
			`"weight_tiers":[{"up_to":500,"cost":4.5},{"up_to":1000,"cost":5.5},{"up_to":5000,"cost":8.9},{"up_to":30000,"cost":17.9}],`+
			`"reputation_discounts":{"green":0.5,"yellow":0.4}}`)

		// A put replaces the site's table (numbers in canonical form);
		// the same body twice answers the same bytes.
		first := a.Sandbox("PUT", "/shipping_rates/MLB", mlbBody)
		first.Is(t, 200, mlb)
		again := a.Sandbox("PUT", "/shipping_rates/MLB", mlbBody)
		if string(again.Body) != string(first.Body) {
			t.Errorf("the same put twice: %s, then %s", first.Body, again.Body)
		}
		a.Sandbox("GET", "/shipping_rates/MLB", nil).Is(t, 200, mlb)
		// 22.90 · 0.45 = 10.305 → 10.31 (half away from zero), 12.59 left.
		a.Do("GET", "/items/MLB2001/shipping_options/free?verbose=true", nil).Is(t, 200, verbose("12.59", "BRL", "800", "0.45", "loyal", "10.31"))
		// 10·10·10·1000/4000 = 250 g by volume; 40 kg falls in the last tier.
		a.Do("GET", "/users/905/shipping_options/free?dimensions=10x10x10,40000&verbose=true", nil).Is(t, 200, verbose("55", "BRL", "40000", "0.45", "loyal", "45"))
		a.Do("GET", "/users/201/shipping_options/free?dimensions=10x10x10,30001", nil).Is(t, 400,
			bad("dimensions", "dimensions 10x10x10,30001 give a billable weight of 30001 g, heavier than the last weight tier of MLA (30000 g)"))

		// Refused tables name every broken rule and change nothing.
		a.Sandbox("PUT", "/shipping_rates/MLB", `{"currency_id":"ARS","volumetric_divisor":0,"weight_tiers":[{"up_to":1000,"cost":-1},{"up_to":1000,"cost":1.005}],"reputation_discounts":{"green":1.5,"gold":0.1}}`).
			Is(t, 400, apptest.Err(400, "bad_request", `currency_id must be BRL, the currency of site MLB, got "ARS"`,
				"currency_id", `currency_id must be BRL, the currency of site MLB, got "ARS"`,
				"volumetric_divisor", "volumetric_divisor must be greater than 0 (cm³ per kg), got 0",
				"weight_tiers[0].cost", "weight_tiers[0].cost must be a number ≥ 0 with at most two decimals, got -1",
				"weight_tiers[1].up_to", "weight_tiers[1].up_to must be greater than the previous tier's (1000), got 1000",
				"weight_tiers[1].cost", "weight_tiers[1].cost must be a number ≥ 0 with at most two decimals, got 1.005",
				"reputation_discounts.gold", `reputation_discounts keys must be green, yellow, orange or red, got "gold"`,
				"reputation_discounts.green", "reputation_discounts.green must be a rate between 0 and 1, got 1.5"))
		a.Sandbox("PUT", "/shipping_rates/MLB", `{"currency_id":"BRL","volumetric_divisor":5000,"weight_tiers":[]}`).
			Is(t, 400, bad("weight_tiers", "weight_tiers must hold at least one tier"))
		a.Sandbox("PUT", "/shipping_rates/MLB", `{"currency_id":"BRL","volumetric_divisor":"5000","weight_tiers":[{"up_to":1,"cost":1}]}`).
			Is(t, 400, apptest.Err(400, "bad_request", "field volumetric_divisor must be a number, got string", "volumetric_divisor", "volumetric_divisor must be a number"))
		a.Sandbox("PUT", "/shipping_rates/MLB", `{"currency_id":"BRL","volumetric_divisor":5000,"weight_tiers":[{"up_to":1.5,"cost":1}]}`).
			Is(t, 400, apptest.Err(400, "bad_request", "field weight_tiers.up_to must be an integer, got number 1.5", "weight_tiers.up_to", "weight_tiers.up_to must be an integer"))
		a.Sandbox("PUT", "/shipping_rates/MLB", `{"currency_id":"BRL","volumetric_divisor":5000}`).
			Is(t, 400, bad("weight_tiers", "weight_tiers must hold at least one tier"))
		a.Sandbox("GET", "/shipping_rates/MLB", nil).Is(t, 200, mlb)
		siteMsg := `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XXX"`
		a.Sandbox("PUT", "/shipping_rates/XXX", `{"currency_id":"XXX","volumetric_divisor":5000,"weight_tiers":[{"up_to":1,"cost":1}]}`).
			Is(t, 400, bad("site_id", siteMsg))
		a.Sandbox("GET", "/shipping_rates/XXX", nil).Is(t, 400, bad("site_id", siteMsg))

		// Fixtures: the id is the site id; a bad entry applies nothing.
		a.Sandbox("POST", "/fixtures", `{"shipping_rates":[{"id":"MLM","currency_id":"MXN","volumetric_divisor":6000,"weight_tiers":[{"up_to":2000,"cost":150}]}]}`).
			Is(t, 200, `{"loaded":{"shipping_rates":1}}`)
		a.Sandbox("GET", "/shipping_rates/MLM", nil).Is(t, 200, `{"site_id":"MLM","currency_id":"MXN","volumetric_divisor":6000,"weight_tiers":[{"up_to":2000,"cost":150}],"reputation_discounts":{}}`)
		a.Sandbox("POST", "/fixtures", `{"shipping_rates":[{"id":"MLC","currency_id":"CLP","volumetric_divisor":6000,"weight_tiers":[{"up_to":2000,"cost":150}]},{"id":"MLU","currency_id":"ARS","volumetric_divisor":6000,"weight_tiers":[{"up_to":2000,"cost":150}]}]}`).
			Is(t, 400, apptest.Err(400, "bad_request", `shipping_rates[1]: currency_id must be UYU, the currency of site MLU, got "ARS"`,
				"shipping_rates[1]", `currency_id must be UYU, the currency of site MLU, got "ARS"`,
				"shipping_rates[1].currency_id", `currency_id must be UYU, the currency of site MLU, got "ARS"`))
		def := a.Sandbox("GET", "/shipping_rates/MLC", nil)
		if !strings.Contains(string(def.Body), `"weight_tiers":[{"up_to":500,"cost":3290}`) {
			t.Errorf("a refused fixtures load changed MLC: %s", def.Body)
		}

		// The sandbox reset returns every site to its default table.
		a.Sandbox("DELETE", "", nil).HasStatus(t, 204)
		a.Sandbox("GET", "/shipping_rates/MLB", nil).Is(t, 200, `{"site_id":"MLB","currency_id":"BRL","volumetric_divisor":5000,`+
			`"weight_tiers":[{"up_to":500,"cost":22.9},{"up_to":1000,"cost":27.9},{"up_to":5000,"cost":39.9},{"up_to":30000,"cost":79.9}],`+
			`"reputation_discounts":{"green":0.5,"yellow":0.4}}`)
		a.Sandbox("GET", "/shipping_rates/MLM", nil).Is(t, 200, `{"site_id":"MLM","currency_id":"MXN","volumetric_divisor":5000,`+
			`"weight_tiers":[{"up_to":500,"cost":99},{"up_to":1000,"cost":119},{"up_to":5000,"cost":169},{"up_to":30000,"cost":299}],`+
			`"reputation_discounts":{"green":0.5,"yellow":0.4}}`)
	})
}

// The two listing bodies of area C are taken by the sandbox item PUT and
// read back with free_methods in place of methods.
func TestListingBodies(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		item := func(shipping string) string {
			return `{"site_id":"MLA","seller_id":201,"title":"Amortiguador","category_id":"MLA1748","price":100,"shipping":` + shipping + `}`
		}
		view := func(id, shipping string) string {
			return `{"id":"` + id + `","site_id":"MLA","title":"Amortiguador","seller_id":201,"category_id":"MLA1748","domain_id":"MLA-SUSPENSION",` +
				`"status":"active","price":100,"currency_id":"ARS","available_quantity":0,"listing_type_id":"gold_special","condition":"new",` +
				`"official_store_id":null,"catalog_product_id":null,"attributes":[],"tags":[],"warranty":null,"parent_item_id":null,"deal_ids":[],` +
				`"automatic_relist":false,"health":null,"catalog_listing":false,"date_created":"2026-11-20T12:00:00Z","last_updated":"2026-11-20T12:00:00Z",` +
				`"shipping":` + shipping + `}`
		}
		// Free shipping to the whole country: me2, a free method with a
		// country rule, no free_shipping flag in the body.
		country := view("MLA2100", `{"mode":"me2","local_pick_up":false,"free_shipping":true,"logistic_type":"","dimensions":null,`+
			`"free_methods":[{"id":73328,"rule":{"free_mode":"country","value":null}}],"costs":[],"tags":[]}`)
		a.Sandbox("PUT", "/items/MLA2100", item(`{"mode":"me2","local_pick_up":false,"free_methods":[{"id":73328,"rule":{"free_mode":"country","value":null}}]}`)).
			Is(t, 200, country)
		a.Do("GET", "/items/MLA2100", nil).Is(t, 200, country)
		// Custom free shipping where managed shipping is not accepted.
		custom := view("MLA2101", `{"mode":"not_specified","local_pick_up":false,"free_shipping":true,"logistic_type":"","dimensions":null,`+
			`"free_methods":[],"costs":[],"tags":[]}`)
		a.Sandbox("PUT", "/items/MLA2101", item(`{"mode":"not_specified","free_shipping":true,"methods":[],"costs":[]}`)).Is(t, 200, custom)
		a.Do("GET", "/items/MLA2101", nil).Is(t, 200, custom)

		a.Sandbox("PUT", "/items/MLA2102", item(`{"mode":"not_specified","free_methods":[{"id":73328,"rule":{"free_mode":"country","value":null}}]}`)).
			Is(t, 400, bad("shipping.free_methods", "shipping.free_methods need shipping.mode me2 (or me1); with mode not_specified offer free shipping with free_shipping true alone"))
		a.Sandbox("PUT", "/items/MLA2102", item(`{"mode":"me2","dimensions":"10.5x20x30,500"}`)).
			Is(t, 400, bad("shipping.dimensions", `shipping.dimensions must be <height>x<width>x<length>,<weight> in positive whole centimetres and grams, got "10.5x20x30,500"`))
		a.Sandbox("PUT", "/categories/MLA1749", `{"site_id":"MLA","name":"X","shipping_preferences":{"dimensions":{"height":10.5,"width":1,"length":1,"weight":1}}}`).
			Is(t, 400, apptest.Err(400, "bad_request", "field shipping_preferences.dimensions.height must be an integer, got number 10.5",
				"shipping_preferences.dimensions.height", "shipping_preferences.dimensions.height must be an integer"))
	})
}
