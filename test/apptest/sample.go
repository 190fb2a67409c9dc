package apptest

import "testing"

// Sample is a small data set for the catalog and sandbox tests: four users
// (seller 123 with token APP_USR-seller, 124 with APP_USR-other, buyer 456,
// 900 of MLB), two categories, a domain, two products and four items of
// seller 123.
func Sample() map[string]any {
	return map[string]any{
		"users": []map[string]any{
			{"id": 123, "nickname": "SELLER", "site_id": "MLA", "access_token": "APP_USR-seller"},
			{"id": 124, "nickname": "OTHER", "site_id": "MLA", "access_token": "APP_USR-other"},
			{"id": 456, "nickname": "BUYER", "site_id": "MLA"},
			{"id": 900, "nickname": "BRAZIL", "site_id": "MLB"},
		},
		"categories": []map[string]any{
			{"id": "MLA1747", "site_id": "MLA", "name": "Amortiguadores", "domain_id": "MLA-CAR_SHOCK_ABSORBERS",
				"shipping_preferences":      map[string]any{"dimensions": map[string]any{"height": 10, "width": 20, "length": 30, "weight": 500}, "logistics": []any{}, "restricted": false},
				"accepted_shipping_methods": []int{73328},
				"compatibilities":           map[string]any{"required": true, "note_status": "ENABLED", "restrictions_status": "ENABLED", "universal_status": "ENABLED"}},
			{"id": "MLA1000", "site_id": "MLA", "name": "Otros", "domain_id": "MLA-OTHERS", "compatibilities": nil},
		},
		"domains":  []map[string]any{{"id": "MLA-CARS_AND_VANS", "site_id": "MLA", "main": true, "compatibilities": []any{}}},
		"products": []map[string]any{{"id": "MLA15197901", "site_id": "MLA", "domain_id": "MLA-CARS_AND_VANS", "name": "Ford Ka 2016", "parent_id": nil, "attributes": []any{}}, {"id": "MLA15197902", "site_id": "MLA", "domain_id": "MLA-CARS_AND_VANS", "name": "Ford Ka 2017", "parent_id": nil, "attributes": []any{}}},
		"items": []map[string]any{
			Item("MLA1100", "PN-1", "active"), Item("MLA1101", "", "active"), Item("MLA1102", "PN-1", "active"), Item("MLA1103", "", "paused"),
		},
	}
}

// Item is an item of seller 123 in category MLA1747, with a part number
// unless partNumber is empty.
func Item(id, partNumber, status string) map[string]any {
	attrs := []any{}
	if partNumber != "" {
		attrs = append(attrs, map[string]any{"id": "PART_NUMBER", "name": "Número de pieza", "value_id": nil, "value_name": partNumber, "values": []any{}, "value_type": "string"})
	}
	return map[string]any{"id": id, "site_id": "MLA", "seller_id": 123, "title": "Amortiguador " + id, "category_id": "MLA1747",
		"status": status, "price": 15000, "currency_id": "ARS", "available_quantity": 10, "attributes": attrs,
		"tags":     []string{"incomplete_compatibilities", "good_quality_thumbnail"},
		"shipping": map[string]any{"mode": "me2", "local_pick_up": false, "free_shipping": false, "logistic_type": "drop_off"}}
}

// NewSample is New with the sandbox clock frozen at 2026-11-20T12:00:00Z and
// Sample loaded.
func NewSample(t testing.TB, be Backend) *App {
	t.Helper()
	a := New(t, be)
	a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"}).OK(t, 200)
	a.MustLoad(Sample())
	return a
}
