package worldapi_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
)

// base is a small world every test starts from.
var base = map[string]any{
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
		item("MLA1100", "PN-1", "active"), item("MLA1101", "", "active"), item("MLA1102", "PN-1", "active"), item("MLA1103", "", "paused"),
	},
}

func item(id, partNumber, status string) map[string]any {
	attrs := []any{}
	if partNumber != "" {
		attrs = append(attrs, map[string]any{"id": "PART_NUMBER", "name": "Número de pieza", "value_id": nil, "value_name": partNumber, "values": []any{}, "value_type": "string"})
	}
	return map[string]any{"id": id, "site_id": "MLA", "seller_id": 123, "title": "Amortiguador " + id, "category_id": "MLA1747",
		"status": status, "price": 15000, "currency_id": "ARS", "available_quantity": 10, "attributes": attrs,
		"tags":     []string{"incomplete_compatibilities", "good_quality_thumbnail"},
		"shipping": map[string]any{"mode": "me2", "local_pick_up": false, "free_shipping": false, "logistic_type": "drop_off"}}
}

func newApp(t *testing.T, be apptest.Backend) *apptest.App {
	a := apptest.New(t, be)
	if r := a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"}); r.Status != 200 {
		t.Fatalf("clock: %d %s", r.Status, r.Body)
	}
	a.MustLoad(base)
	return a
}

// sameJSON fails unless got is the JSON of want.
func sameJSON(t *testing.T, what string, r apptest.Response, status int, want string) {
	t.Helper()
	if r.Status != status {
		t.Errorf("%s: status %d, want %d; body %s", what, r.Status, status, r.Body)
		return
	}
	var g, w any
	if err := json.Unmarshal(r.Body, &g); err != nil {
		t.Errorf("%s: answer is not JSON: %s", what, r.Body)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, r.Body, want)
	}
}

func bad(msg string, causes ...string) string {
	cs := []map[string]string{}
	for i := 0; i+1 < len(causes); i += 2 {
		cs = append(cs, map[string]string{"code": causes[i], "message": causes[i+1]})
	}
	b, _ := json.Marshal(map[string]any{"message": msg, "error": "bad_request", "status": 400, "cause": cs})
	return string(b)
}

func notFound(msg string) string {
	return `{"message":"` + msg + `","error":"not_found","status":404,"cause":[]}`
}

func TestSandboxCollections(t *testing.T) {
	for _, be := range apptest.Both {
		t.Run(be.Name, func(t *testing.T) {
			a := newApp(t, be)
			cases := []struct {
				name, method, path string
				body               any
				status             int
				want               string
			}{
				// wrong types
				{"category wrong type", "PUT", "/categories/MLA1", `{"site_id":"MLA","name":"X","shipping_preferences":{"dimensions":{"height":"tall"}}}`, 400,
					bad("field shipping_preferences.dimensions.height must be a number, got string", "shipping_preferences.dimensions.height", "shipping_preferences.dimensions.height must be a number")},
				{"domain wrong type", "PUT", "/domains/MLA-X", `{"site_id":"MLA","main":"yes"}`, 400,
					bad("field main must be a boolean, got string", "main", "main must be a boolean")},
				{"product wrong type", "PUT", "/products/MLA1", `{"site_id":"MLA","domain_id":"MLA-CARS_AND_VANS","name":"X","attributes":{}}`, 400,
					bad("field attributes must be an array, got object", "attributes", "attributes must be an array")},
				{"item wrong type", "PUT", "/items/MLA1", `{"site_id":"MLA","seller_id":"123"}`, 400,
					bad("field seller_id must be an integer, got string", "seller_id", "seller_id must be an integer")},
				{"order wrong type", "PUT", "/orders/1", `{"site_id":"MLA","has_claim":1}`, 400,
					bad("field has_claim must be a boolean, got number", "has_claim", "has_claim must be a boolean")},
				{"brand wrong type", "PUT", "/brands/1", `{"site_id":"MLA","users":["a"]}`, 400,
					bad("field users must be an integer, got string", "users", "users must be an integer")},
				{"subscription wrong type", "PUT", "/flex/subscriptions/1", `{"site_id":"MLA","user_id":123,"status":5}`, 400,
					bad("field status must be a string, got value", "status", "status must be a string")},
				{"shipment wrong type", "PUT", "/shipments/1", `{"site_id":"MLA","order_id":"x"}`, 400,
					bad("field order_id must be an integer, got string", "order_id", "order_id must be an integer")},
				{"malformed body", "PUT", "/items/MLA1", `{"site_id":`, 400,
					bad("invalid JSON body: unexpected end of JSON input", "body", "unexpected end of JSON input")},
				// unknown sites
				{"category unknown site", "PUT", "/categories/MLX1", `{"site_id":"MLX","name":"X"}`, 400,
					bad(`site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "MLX"`, "site_id", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "MLX"`)},
				{"order unknown site", "PUT", "/orders/1", `{"site_id":"XX","seller_id":123,"buyer_id":456,"status":"paid","items":[{"item_id":"MLA1100","quantity":1}]}`, 400,
					bad(`site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XX"`, "site_id", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XX"`)},
				{"shipment unknown site", "PUT", "/shipments/1", `{"site_id":"","order_id":1}`, 400,
					bad(`site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got ""`, "site_id", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got ""`)},
				// ids of another site
				{"item id of another site", "PUT", "/items/MLB1", item("MLB1", "", "active"), 400,
					bad(`item_id must be the site id MLA followed by digits, got "MLB1"`, "item_id", `item_id must be the site id MLA followed by digits, got "MLB1"`)},
				// missing references
				{"product without domain", "PUT", "/products/MLA9", `{"site_id":"MLA","domain_id":"MLA-NOPE","name":"X"}`, 400,
					bad("domain MLA-NOPE does not exist", "domain_id", "domain MLA-NOPE does not exist")},
				{"item without seller", "PUT", "/items/MLA9", map[string]any{"site_id": "MLA", "seller_id": 999, "title": "X", "category_id": "MLA1747", "price": 1}, 400,
					bad("seller 999 does not exist", "seller_id", "seller 999 does not exist")},
				{"item of a seller of another site", "PUT", "/items/MLA9", map[string]any{"site_id": "MLA", "seller_id": 900, "title": "X", "category_id": "MLA1747", "price": 1}, 400,
					bad("seller 900 is a user of site MLB, not MLA", "seller_id", "seller 900 is a user of site MLB, not MLA")},
				{"item without category", "PUT", "/items/MLA9", map[string]any{"site_id": "MLA", "seller_id": 123, "title": "X", "category_id": "MLA4242", "price": 1}, 400,
					bad("category MLA4242 does not exist", "category_id", "category MLA4242 does not exist")},
				{"order without buyer", "PUT", "/orders/7", `{"site_id":"MLA","seller_id":123,"buyer_id":999,"status":"paid","items":[{"item_id":"MLA1100","quantity":1}]}`, 400,
					bad("user 999 does not exist", "buyer_id", "user 999 does not exist")},
				{"order without item", "PUT", "/orders/7", `{"site_id":"MLA","seller_id":123,"buyer_id":456,"status":"paid","items":[{"item_id":"MLA4242","quantity":1}]}`, 400,
					bad("item MLA4242 does not exist", "items[0].item_id", "item MLA4242 does not exist")},
				{"order of another seller's item", "PUT", "/orders/7", `{"site_id":"MLA","seller_id":124,"buyer_id":456,"status":"paid","items":[{"item_id":"MLA1100","quantity":1}]}`, 400,
					bad("item MLA1100 is not an item of seller 124", "items[0].item_id", "item MLA1100 is not an item of seller 124")},
				{"brand without user", "PUT", "/brands/5001", `{"site_id":"MLA","name":"Acme","users":[123,999]}`, 400,
					bad("user 999 does not exist", "users[1]", "user 999 does not exist")},
				{"subscription without user", "PUT", "/flex/subscriptions/3001", `{"site_id":"MLA","user_id":999,"status":"in"}`, 400,
					bad("user 999 does not exist", "user_id", "user 999 does not exist")},
				{"shipment without order", "PUT", "/shipments/40001", `{"site_id":"MLA","order_id":9001,"driver_id":777}`, 400,
					bad("order 9001 does not exist", "order_id", "order 9001 does not exist")},
				// categories and domains do not check each other
				{"category of an unknown domain", "PUT", "/categories/MLA5", `{"site_id":"MLA","name":"X","domain_id":"MLA-NOT_YET"}`, 200, ""},
				{"domain naming an unknown category", "PUT", "/domains/MLA-PARTS", `{"site_id":"MLA","main":false,"compatibilities":[{"compatible_domain_id":"MLA-CARS_AND_VANS","type":"EXTENSION","categories":[{"id":"MLA777","required":true,"note_status":"ENABLED","restrictions_status":"DISABLED","universal_status":"DISABLED"}]}]}`, 200, ""},
				// bad path ids
				{"order id not a number", "PUT", "/orders/abc", `{}`, 400,
					bad(`order_id must be a positive integer, got "abc"`, "order_id", "order_id must be a positive integer")},
				// unknown resources
				{"unknown category", "GET", "/categories/MLA4242", nil, 404, notFound("category not found")},
				{"unknown domain", "GET", "/domains/MLA-NOPE", nil, 404, notFound("domain not found")},
				{"unknown product", "GET", "/products/MLA4242", nil, 404, notFound("product not found")},
				{"unknown item", "GET", "/items/MLA4242", nil, 404, notFound("item not found")},
				{"unknown order", "GET", "/orders/4242", nil, 404, notFound("order not found")},
				{"unknown brand", "GET", "/brands/4242", nil, 404, notFound("brand not found")},
				{"unknown subscription", "GET", "/flex/subscriptions/4242", nil, 404, notFound("subscription not found")},
				{"unknown shipment", "GET", "/shipments/4242", nil, 404, notFound("shipment not found")},
			}
			for _, c := range cases {
				r := a.Sandbox(c.method, c.path, c.body)
				if c.want == "" {
					if r.Status != c.status {
						t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
					}
					continue
				}
				sameJSON(t, c.name, r, c.status, c.want)
			}
		})
	}
}

func TestSandboxPutsAreIdempotent(t *testing.T) {
	for _, be := range apptest.Both {
		t.Run(be.Name, func(t *testing.T) {
			a := newApp(t, be)
			puts := []struct {
				path string
				body string
			}{
				{"/categories/MLA1747", `{"site_id":"MLA","name":"Amortiguadores","domain_id":"MLA-CAR_SHOCK_ABSORBERS","compatibilities":null}`},
				{"/domains/MLA-CAR_SHOCK_ABSORBERS", `{"site_id":"MLA","main":false,"compatibilities":[{"compatible_domain_id":"MLA-CARS_AND_VANS","type":"EXTENSION","required":true,"restrictions":[],"categories":[],"restriction_values":[{"attribute_id":"POSITION","values":[{"value_id":"1","value_name":"Delantera"}]}]}]}`},
				{"/products/MLA15197903", `{"site_id":"MLA","domain_id":"MLA-CARS_AND_VANS","name":"Ford Ka 2018","parent_id":"MLA15197901","attributes":[{"id":"BRAND","name":"Marca","value_id":"9909","value_name":"Ford"}]}`},
				{"/items/MLA1200", `{"site_id":"MLA","seller_id":123,"title":"Auriculares","category_id":"MLA1000","price":100,"shipping":{"mode":"me2","free_shipping":true,"free_methods":[{"id":73328,"rule":{"free_mode":"country","value":null}}]}}`},
				{"/orders/2000001", `{"site_id":"MLA","seller_id":123,"buyer_id":456,"pack_id":null,"status":"paid","items":[{"item_id":"MLA1100","quantity":1,"unit_price":15000}],"shipping":{"id":40001,"logistic_type":"drop_off"},"has_claim":true,"compatibility_selection":null}`},
				{"/brands/5001", `{"site_id":"MLA","name":"Acme  Pérez","users":[124],"pictures":[{"id":"p1","name":"logo","url":"http://example.invalid/l.png","size":"120x120"}],"categories_ids":["MLA1747"]}`},
				{"/flex/subscriptions/3001", `{"site_id":"MLA","user_id":123,"mode":"FLEX","status":"in","zones":[{"id":"Z1","label":"CABA","selected":false}]}`},
				{"/shipments/40001", `{"site_id":"MLA","order_id":2000001,"driver_id":null}`},
			}
			for _, p := range puts {
				first := a.Sandbox("PUT", p.path, p.body)
				if first.Status != 200 {
					t.Errorf("PUT %s: %d %s", p.path, first.Status, first.Body)
					continue
				}
				again := a.Sandbox("PUT", p.path, p.body)
				if again.Status != 200 || string(again.Body) != string(first.Body) {
					t.Errorf("PUT %s twice:\n first %s\n again %s", p.path, first.Body, again.Body)
				}
				got := a.Sandbox("GET", p.path, nil)
				if got.Status != 200 || string(got.Body) != string(first.Body) {
					t.Errorf("GET %s:\n got %s\nwant %s", p.path, got.Body, first.Body)
				}
			}
			// A later change keeps date_created and moves last_updated.
			a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-21T08:00:00Z"})
			r := a.Sandbox("PUT", "/items/MLA1200", `{"site_id":"MLA","seller_id":123,"title":"Auriculares","category_id":"MLA1000","price":90}`)
			var it struct {
				DateCreated, LastUpdated string `json:"-"`
				DC                       string `json:"date_created"`
				LU                       string `json:"last_updated"`
			}
			r.JSON(t, &it)
			if it.DC != "2026-11-20T12:00:00Z" || it.LU != "2026-11-21T08:00:00Z" {
				t.Errorf("dates after update: %s %s", it.DC, it.LU)
			}
			sameJSON(t, "shipment without driver", a.Sandbox("GET", "/shipments/40001", nil), 200,
				`{"id":40001,"site_id":"MLA","order_id":2000001,"driver_id":null}`)
			r = a.Sandbox("GET", "/brands/5001", nil)
			var b struct {
				NormalizedName string `json:"normalized_name"`
				FantasyName    string `json:"fantasy_name"`
			}
			r.JSON(t, &b)
			if b.NormalizedName != "Acme Perez" || b.FantasyName != "Acme  Pérez" {
				t.Errorf("brand defaults: %+v", b)
			}
			r = a.Sandbox("GET", "/flex/subscriptions/3001", nil)
			var s struct {
				Configuration struct {
					Zones []struct {
						Enabled, Selected bool
					} `json:"zones"`
					WorkingDays []string `json:"working_days"`
				} `json:"configuration"`
			}
			r.JSON(t, &s)
			if len(s.Configuration.Zones) != 1 || !s.Configuration.Zones[0].Enabled || s.Configuration.Zones[0].Selected || len(s.Configuration.WorkingDays) != 1 {
				t.Errorf("subscription defaults: %s", r.Body)
			}
		})
	}
}

func TestItemReads(t *testing.T) {
	for _, be := range apptest.Both {
		t.Run(be.Name, func(t *testing.T) {
			a := newApp(t, be)
			now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
			// Compatibilities belong to another module; the tags read its table.
			for i, c := range [][2]string{{"MLA1100", "MLA15197901"}, {"MLA1100", "MLA15197902"}, {"MLA1102", "MLA15197901"}} {
				if _, err := a.Deps.DB.ExecContext(t.Context(), `INSERT INTO compatibilities (id, item_id, domain_id, product_id, source, creation_source, note, note_status, restrictions, date_created, last_updated)
					VALUES (?, ?, 'MLA-CARS_AND_VANS', ?, 'SELLER', 'ITEM_SUGGESTIONS', '', 'PENDING', '[]', ?, ?)`, []string{"c1", "c2", "c3"}[i], c[0], c[1], now, now); err != nil {
					t.Fatal(err)
				}
			}
			seller := apptest.Bearer("APP_USR-seller")
			sameJSON(t, "item with compatibilities", a.Do("GET", "/items/MLA1100", nil), 200, `{"id":"MLA1100","site_id":"MLA","title":"Amortiguador MLA1100","seller_id":123,
				"category_id":"MLA1747","domain_id":"MLA-CAR_SHOCK_ABSORBERS","status":"active","price":15000,"currency_id":"ARS","available_quantity":10,
				"listing_type_id":"gold_special","condition":"new","official_store_id":null,"catalog_product_id":null,
				"attributes":[{"id":"PART_NUMBER","name":"Número de pieza","value_id":null,"value_name":"PN-1","values":[],"value_type":"string"},
					{"id":"HAS_COMPATIBILITIES","name":"Tiene compatibilidades","value_id":null,"value_name":"Sí","values":[{"id":null,"name":"Sí","struct":null}],"value_type":"boolean"}],
				"tags":["good_quality_thumbnail"],"warranty":null,"parent_item_id":null,"deal_ids":[],"automatic_relist":false,"health":null,"catalog_listing":false,
				"date_created":"2026-11-20T12:00:00Z","last_updated":"2026-11-20T12:00:00Z",
				"shipping":{"mode":"me2","local_pick_up":false,"free_shipping":false,"logistic_type":"drop_off","dimensions":null,"methods":[],"costs":[],"tags":[]}}`)
			var v struct {
				Tags       []string `json:"tags"`
				Attributes []struct {
					ID string `json:"id"`
				} `json:"attributes"`
			}
			a.Do("GET", "/items/MLA1101", nil).JSON(t, &v)
			if !reflect.DeepEqual(v.Tags, []string{"good_quality_thumbnail", "incomplete_compatibilities"}) || len(v.Attributes) != 0 {
				t.Errorf("MLA1101: %+v", v)
			}
			v.Tags = nil
			a.Do("GET", "/items/MLA1102", nil).JSON(t, &v)
			if !reflect.DeepEqual(v.Tags, []string{"good_quality_thumbnail", "pending_compatibilities"}) {
				t.Errorf("MLA1102: %+v", v)
			}

			sameJSON(t, "status check", a.Do("PUT", "/items?ids=MLA1100,MLA1103&attributes=status", nil), 200,
				`[{"id":"MLA1100","status":"active"},{"id":"MLA1103","status":"paused"}]`)
			sameJSON(t, "search incomplete", a.Do("GET", "/users/123/items/search?tags=incomplete_compatibilities", nil, seller...), 200,
				`{"seller_id":"123","results":["MLA1101","MLA1103"],"paging":{"limit":50,"offset":0,"total":2},"query":null}`)
			sameJSON(t, "search incomplete active", a.Do("GET", "/users/123/items/search?tags=incomplete_compatibilities&status=active", nil, seller...), 200,
				`{"seller_id":"123","results":["MLA1101"],"paging":{"limit":50,"offset":0,"total":1},"query":null}`)
			sameJSON(t, "search pending", a.Do("GET", "/users/123/items/search?tags=pending_compatibilities&access_token=APP_USR-seller", nil), 200,
				`{"seller_id":"123","results":["MLA1102"],"paging":{"limit":50,"offset":0,"total":1},"query":null}`)
			sameJSON(t, "search paged", a.Do("GET", "/users/123/items/search?status=active&limit=2&offset=1", nil, seller...), 200,
				`{"seller_id":"123","results":["MLA1101","MLA1102"],"paging":{"limit":2,"offset":1,"total":3},"query":null}`)

			// errors
			unauthorized := func(msg string) string {
				return `{"message":"` + msg + `","error":"unauthorized","status":401,"cause":[]}`
			}
			sameJSON(t, "unknown item", a.Do("GET", "/items/MLA4242", nil), 404, notFound("item not found"))
			sameJSON(t, "status of an unknown item", a.Do("PUT", "/items?ids=MLA1100,MLA4242&attributes=status", nil), 404, notFound("item not found"))
			sameJSON(t, "status without ids", a.Do("PUT", "/items?attributes=status", nil), 400,
				bad("ids is required", "ids", "ids is required: comma-separated item ids"))
			sameJSON(t, "search without token", a.Do("GET", "/users/123/items/search", nil), 401, unauthorized("access token required"))
			sameJSON(t, "search with an unknown token", a.Do("GET", "/users/123/items/search", nil, apptest.Bearer("APP_USR-nope")...), 401, unauthorized("invalid access token"))
			sameJSON(t, "search of another seller", a.Do("GET", "/users/123/items/search", nil, apptest.Bearer("APP_USR-other")...), 403,
				`{"message":"the caller (user 124) may only search its own items, not those of seller 123","error":"forbidden","status":403,"cause":[]}`)
			sameJSON(t, "search bad limit", a.Do("GET", "/users/123/items/search?limit=x", nil, seller...), 400,
				`{"message":"limit must be an integer, got \"x\"","error":"bad_request","status":400,"cause":[]}`)
			sameJSON(t, "search negative offset", a.Do("GET", "/users/123/items/search?offset=-1", nil, seller...), 400,
				`{"message":"offset must not be negative, got -1","error":"bad_request","status":400,"cause":[]}`)
			sameJSON(t, "search unknown tag", a.Do("GET", "/users/123/items/search?tags=shiny", nil, seller...), 400,
				bad(`tags must be incomplete_compatibilities or pending_compatibilities, got "shiny"`, "tags", `tags must be incomplete_compatibilities or pending_compatibilities, got "shiny"`))
			sameJSON(t, "search bad seller id", a.Do("GET", "/users/abc/items/search", nil, seller...), 400,
				bad(`seller_id must be a positive integer, got "abc"`, "seller_id", "seller_id must be a positive integer"))
		})
	}
}

func TestSandboxAudit(t *testing.T) {
	site := func(got string) string {
		m := `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "` + got + `"`
		return bad(m, "site_id", m)
	}
	for _, be := range apptest.Both {
		t.Run(be.Name, func(t *testing.T) {
			a := newApp(t, be)
			cases := []struct {
				name, method, path, body string
				status                   int
				want                     string
			}{
				// An unknown site is rejected by every collection that reads one.
				{"domain unknown site", "PUT", "/domains/XXX-A", `{"site_id":"XXX"}`, 400, site("XXX")},
				{"product unknown site", "PUT", "/products/XXX1", `{"site_id":"XXX","domain_id":"XXX-A","name":"n"}`, 400, site("XXX")},
				{"item unknown site", "PUT", "/items/XXX1", `{"site_id":"XXX","seller_id":123,"title":"t","category_id":"XXX1"}`, 400, site("XXX")},
				{"brand unknown site", "PUT", "/brands/1", `{"site_id":"XXX","name":"n"}`, 400, site("XXX")},
				{"subscription unknown site", "PUT", "/flex/subscriptions/1", `{"site_id":"XXX","user_id":123,"status":"in"}`, 400, site("XXX")},
				// Wrong types deep in a body and a body that is no object.
				{"nested wrong type", "PUT", "/items/MLA1", `{"site_id":"MLA","seller_id":123,"title":"t","category_id":"MLA1747","shipping":{"free_shipping":"yes"}}`, 400,
					bad("field shipping.free_shipping must be a boolean, got string", "shipping.free_shipping", "shipping.free_shipping must be a boolean")},
				{"body not an object", "PUT", "/brands/1", `[1]`, 400, bad("field body must be an object, got array", "body", "body must be an object")},
				// A GET of an id that is no positive integer is 400 naming the
				// id field, as its PUT and the users collection answer.
				{"order id not a number", "GET", "/orders/abc", "", 400, bad(`order_id must be a positive integer, got "abc"`, "order_id", "order_id must be a positive integer")},
				{"brand id zero", "GET", "/brands/0", "", 400, bad(`official_store_id must be a positive integer, got "0"`, "official_store_id", "official_store_id must be a positive integer")},
				{"subscription id negative", "GET", "/flex/subscriptions/-1", "", 400, bad(`service_id must be a positive integer, got "-1"`, "service_id", "service_id must be a positive integer")},
				{"shipment id not a number", "GET", "/shipments/x", "", 400, bad(`shipment_id must be a positive integer, got "x"`, "shipment_id", "shipment_id must be a positive integer")},
			}
			for _, c := range cases {
				var body any
				if c.body != "" {
					body = c.body
				}
				sameJSON(t, c.name, a.Sandbox(c.method, c.path, body), c.status, c.want)
			}
			// An item id of no known site is an unknown item, not a bad site.
			sameJSON(t, "public item of an unknown site", a.Do("GET", "/items/XXX1", nil), 404, notFound("item not found"))
			// The public compatibility dump reads a site too.
			sameJSON(t, "dump of an unknown site", a.Do("GET", "/catalog/dumps/domains/XXX/compatibilities", nil, apptest.Bearer("APP_USR-seller")...), 400,
				`{"message":"invalid site_id XXX","error":"bad_request","status":400,"cause":[{"code":"site_id","message":"unknown site"}]}`)
		})
	}
}

// TestOfficialStoreOfItems checks spec D's rule on an item's
// official_store_id at the sandbox PUT, for sellers already bound to brands.
func TestOfficialStoreOfItems(t *testing.T) {
	for _, be := range apptest.Both {
		t.Run(be.Name, func(t *testing.T) {
			a := newApp(t, be)
			// Items load before brands: 789's item naming no store loads.
			a.MustLoad(map[string]any{
				"users": []map[string]any{
					{"id": 789, "nickname": "BRAND2", "site_id": "MLA", "user_type": "brand"},
					{"id": 790, "nickname": "BRAND1", "site_id": "MLA", "user_type": "brand"},
				},
				"items": []map[string]any{{"id": "MLA2000", "site_id": "MLA", "seller_id": 789, "title": "Filtro", "category_id": "MLA1000"}},
				"brands": []map[string]any{
					{"id": 5001, "site_id": "MLA", "name": "Acme", "users": []int{789}},
					{"id": 5002, "site_id": "MLA", "name": "Acme Sur", "users": []int{789}},
					{"id": 5003, "site_id": "MLA", "name": "Otra", "users": []int{790}},
				},
			})
			put := func(id string, seller int, store any) apptest.Response {
				return a.Sandbox("PUT", "/items/"+id, map[string]any{"site_id": "MLA", "seller_id": seller, "title": "Filtro",
					"category_id": "MLA1000", "official_store_id": store})
			}
			required := "official_store_id is required for seller 789, bound to several official stores; allowed ids: 5001, 5002"
			sameJSON(t, "several stores, none named", put("MLA2000", 789, nil), 400,
				`{"message":"`+required+`","error":"validation_error","status":400,"cause":[{"code":"item.official_store_id.invalid","message":"`+required+`"}]}`)
			sameJSON(t, "a store of another user", put("MLA2001", 789, 5003), 403,
				`{"message":"body.invalid_official_store_id","error":"forbidden","status":403,"cause":[{"code":"official_store_id","message":"seller 789 may not use official_store_id 5003 on site MLA; allowed ids: 5001, 5002"}]}`)
			for _, c := range []struct {
				name   string
				id     string
				seller int
				store  any
			}{
				{"one of its stores", "MLA2000", 789, 5002},
				{"one store, none named", "MLA2002", 790, nil},
				{"a seller bound to no store is not checked", "MLA2003", 123, 9999},
			} {
				r := put(c.id, c.seller, c.store)
				var it struct {
					OfficialStoreID *int64 `json:"official_store_id"`
				}
				r.JSON(t, &it)
				if r.Status != 200 || (c.store == nil) != (it.OfficialStoreID == nil) {
					t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
				}
			}
			if r := a.Sandbox("GET", "/items/MLA2001", nil); r.Status != 404 {
				t.Errorf("the refused item was stored: %d %s", r.Status, r.Body)
			}
			// In fixtures the 403 of an entry becomes the 400 naming it.
			r := a.Sandbox("POST", "/fixtures", map[string]any{"items": []map[string]any{
				{"id": "MLA2004", "site_id": "MLA", "seller_id": 789, "title": "Filtro", "category_id": "MLA1000", "official_store_id": 5003}}})
			if r.Status != 400 || !strings.Contains(string(r.Body), "items[0]") {
				t.Errorf("fixtures with a refused store: %d %s", r.Status, r.Body)
			}
		})
	}
}

// TestSandboxPutsAreIdempotentOnTheRunningClock: with the clock not frozen,
// the same body twice answers the same bytes (last_updated does not move
// when nothing changed), and a changed body moves it.
func TestSandboxPutsAreIdempotentOnTheRunningClock(t *testing.T) {
	for _, be := range apptest.Both {
		t.Run(be.Name, func(t *testing.T) {
			a := apptest.New(t, be)
			a.MustLoad(base)
			a.MustLoad(map[string]any{"users": []map[string]any{{"id": 789, "nickname": "BRAND", "site_id": "MLA", "user_type": "brand"}}})
			puts := []struct{ path, body string }{
				{"/categories/MLA1747", `{"site_id":"MLA","name":"Amortiguadores","domain_id":"MLA-CAR_SHOCK_ABSORBERS","shipping_preferences":{"dimensions":{"height":10,"width":20,"length":30,"weight":500},"logistics":[{"mode":"me2","types":["drop_off"]}]},"accepted_shipping_methods":[73328],"compatibilities":{"required":true,"note_status":"ENABLED","restrictions_status":"ENABLED","universal_status":"ENABLED"}}`},
				{"/items/MLA1100", `{"site_id":"MLA","seller_id":123,"title":"Amortiguador","category_id":"MLA1747","price":15000.5,"warranty":"6 meses","health":0.8,"deal_ids":["D1"],"tags":["good_quality_thumbnail","incomplete_compatibilities"],"attributes":[{"id":"PART_NUMBER","name":"Número de pieza","value_id":null,"value_name":"PN-1","values":[{"id":null,"name":"PN-1","struct":null}],"value_type":"string"}],"shipping":{"mode":"me2","free_shipping":true,"dimensions":"10x20x30,500","free_methods":[{"id":73328,"rule":{"free_mode":"country","value":null}}],"methods":[{"id":1}]}}`},
				{"/brands/5001", `{"site_id":"MLA","name":"Acme  Pérez","users":[789],"pictures":[{"id":"p1","name":"logo","url":"http://example.invalid/l.png","size":"120x120"}],"categories_ids":["MLA1747"],"return_policy":{"days":30}}`},
			}
			for _, p := range puts {
				first := a.Sandbox("PUT", p.path, p.body)
				time.Sleep(5 * time.Millisecond)
				again := a.Sandbox("PUT", p.path, p.body)
				if first.Status != 200 || again.Status != 200 || string(again.Body) != string(first.Body) {
					t.Errorf("PUT %s twice:\n first %d %s\n again %d %s", p.path, first.Status, first.Body, again.Status, again.Body)
				}
			}
			var before, after struct {
				LastUpdated string `json:"last_updated"`
			}
			a.Sandbox("GET", "/items/MLA1100", nil).JSON(t, &before)
			time.Sleep(5 * time.Millisecond)
			a.Sandbox("PUT", "/items/MLA1100", `{"site_id":"MLA","seller_id":123,"title":"Otro","category_id":"MLA1747"}`).JSON(t, &after)
			if after.LastUpdated == before.LastUpdated || after.LastUpdated == "" {
				t.Errorf("a changed item keeps last_updated %s", after.LastUpdated)
			}
		})
	}
}
