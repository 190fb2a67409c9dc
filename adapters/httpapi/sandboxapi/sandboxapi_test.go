package sandboxapi_test

import (
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
)

func TestSandboxCollections(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		cases := []struct {
			name, method, path string
			body               any
			status             int
			want               string
		}{
			// wrong types
			{"category wrong type", "PUT", "/categories/MLA1", `{"site_id":"MLA","name":"X","shipping_preferences":{"dimensions":{"height":"tall"}}}`, 400,
				apptest.Err(400, "bad_request", "field shipping_preferences.dimensions.height must be an integer, got string", "shipping_preferences.dimensions.height", "shipping_preferences.dimensions.height must be an integer")},
			{"domain wrong type", "PUT", "/domains/MLA-X", `{"site_id":"MLA","main":"yes"}`, 400,
				apptest.Err(400, "bad_request", "field main must be a boolean, got string", "main", "main must be a boolean")},
			{"product wrong type", "PUT", "/products/MLA1", `{"site_id":"MLA","domain_id":"MLA-CARS_AND_VANS","name":"X","attributes":{}}`, 400,
				apptest.Err(400, "bad_request", "field attributes must be an array, got object", "attributes", "attributes must be an array")},
			{"item wrong type", "PUT", "/items/MLA1", `{"site_id":"MLA","seller_id":"123"}`, 400,
				apptest.Err(400, "bad_request", "field seller_id must be an integer, got string", "seller_id", "seller_id must be an integer")},
			{"order wrong type", "PUT", "/orders/1", `{"site_id":"MLA","has_claim":1}`, 400,
				apptest.Err(400, "bad_request", "field has_claim must be a boolean, got number", "has_claim", "has_claim must be a boolean")},
			{"brand wrong type", "PUT", "/brands/1", `{"site_id":"MLA","users":["a"]}`, 400,
				apptest.Err(400, "bad_request", "field users must be an integer, got string", "users", "users must be an integer")},
			{"subscription wrong type", "PUT", "/flex/subscriptions/1", `{"site_id":"MLA","user_id":123,"status":5}`, 400,
				apptest.Err(400, "bad_request", "field status must be a string, got value", "status", "status must be a string")},
			{"shipment wrong type", "PUT", "/shipments/1", `{"site_id":"MLA","order_id":"x"}`, 400,
				apptest.Err(400, "bad_request", "field order_id must be an integer, got string", "order_id", "order_id must be an integer")},
			{"malformed body", "PUT", "/items/MLA1", `{"site_id":`, 400,
				apptest.Err(400, "bad_request", "invalid JSON body: unexpected end of JSON input", "body", "unexpected end of JSON input")},
			// unknown sites
			{"category unknown site", "PUT", "/categories/MLX1", `{"site_id":"MLX","name":"X"}`, 400,
				apptest.Err(400, "bad_request", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "MLX"`, "site_id", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "MLX"`)},
			{"order unknown site", "PUT", "/orders/1", `{"site_id":"XX","seller_id":123,"buyer_id":456,"status":"paid","items":[{"item_id":"MLA1100","quantity":1}]}`, 400,
				apptest.Err(400, "bad_request", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XX"`, "site_id", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XX"`)},
			{"shipment unknown site", "PUT", "/shipments/1", `{"site_id":"","order_id":1}`, 400,
				apptest.Err(400, "bad_request", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got ""`, "site_id", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got ""`)},
			// ids of another site
			{"item id of another site", "PUT", "/items/MLB1", apptest.Item("MLB1", "", "active"), 400,
				apptest.Err(400, "bad_request", `item_id must be the site id MLA followed by digits, got "MLB1"`, "item_id", `item_id must be the site id MLA followed by digits, got "MLB1"`)},
			// missing references
			{"product without domain", "PUT", "/products/MLA9", `{"site_id":"MLA","domain_id":"MLA-NOPE","name":"X"}`, 400,
				apptest.Err(400, "bad_request", "domain MLA-NOPE does not exist", "domain_id", "domain MLA-NOPE does not exist")},
			{"item without seller", "PUT", "/items/MLA9", map[string]any{"site_id": "MLA", "seller_id": 999, "title": "X", "category_id": "MLA1747", "price": 1}, 400,
				apptest.Err(400, "bad_request", "seller 999 does not exist", "seller_id", "seller 999 does not exist")},
			{"item of a seller of another site", "PUT", "/items/MLA9", map[string]any{"site_id": "MLA", "seller_id": 900, "title": "X", "category_id": "MLA1747", "price": 1}, 400,
				apptest.Err(400, "bad_request", "seller 900 is a user of site MLB, not MLA", "seller_id", "seller 900 is a user of site MLB, not MLA")},
			{"item without category", "PUT", "/items/MLA9", map[string]any{"site_id": "MLA", "seller_id": 123, "title": "X", "category_id": "MLA4242", "price": 1}, 400,
				apptest.Err(400, "bad_request", "category MLA4242 does not exist", "category_id", "category MLA4242 does not exist")},
			{"order without buyer", "PUT", "/orders/7", `{"site_id":"MLA","seller_id":123,"buyer_id":999,"status":"paid","items":[{"item_id":"MLA1100","quantity":1}]}`, 400,
				apptest.Err(400, "bad_request", "user 999 does not exist", "buyer_id", "user 999 does not exist")},
			{"order without item", "PUT", "/orders/7", `{"site_id":"MLA","seller_id":123,"buyer_id":456,"status":"paid","items":[{"item_id":"MLA4242","quantity":1}]}`, 400,
				apptest.Err(400, "bad_request", "item MLA4242 does not exist", "items[0].item_id", "item MLA4242 does not exist")},
			{"order of another seller's item", "PUT", "/orders/7", `{"site_id":"MLA","seller_id":124,"buyer_id":456,"status":"paid","items":[{"item_id":"MLA1100","quantity":1}]}`, 400,
				apptest.Err(400, "bad_request", "item MLA1100 is not an item of seller 124", "items[0].item_id", "item MLA1100 is not an item of seller 124")},
			{"brand without user", "PUT", "/brands/5001", `{"site_id":"MLA","name":"Acme","users":[123,999]}`, 400,
				apptest.Err(400, "bad_request", "user 999 does not exist", "users[1]", "user 999 does not exist")},
			{"subscription without user", "PUT", "/flex/subscriptions/3001", `{"site_id":"MLA","user_id":999,"status":"in"}`, 400,
				apptest.Err(400, "bad_request", "user 999 does not exist", "user_id", "user 999 does not exist")},
			{"shipment without order", "PUT", "/shipments/40001", `{"site_id":"MLA","order_id":9001,"driver_id":777}`, 400,
				apptest.Err(400, "bad_request", "order 9001 does not exist", "order_id", "order 9001 does not exist")},
			// categories and domains do not check each other
			{"category of an unknown domain", "PUT", "/categories/MLA5", `{"site_id":"MLA","name":"X","domain_id":"MLA-NOT_YET"}`, 200, ""},
			{"domain naming an unknown category", "PUT", "/domains/MLA-PARTS", `{"site_id":"MLA","main":false,"compatibilities":[{"compatible_domain_id":"MLA-CARS_AND_VANS","type":"EXTENSION","categories":[{"id":"MLA777","required":true,"note_status":"ENABLED","restrictions_status":"DISABLED","universal_status":"DISABLED"}]}]}`, 200, ""},
			// bad path ids
			{"order id not a number", "PUT", "/orders/abc", `{}`, 400,
				apptest.Err(400, "bad_request", `order_id must be a positive integer, got "abc"`, "order_id", "order_id must be a positive integer")},
			// unknown resources
			{"unknown category", "GET", "/categories/MLA4242", nil, 404, apptest.Err(404, "not_found", "category not found")},
			{"unknown domain", "GET", "/domains/MLA-NOPE", nil, 404, apptest.Err(404, "not_found", "domain not found")},
			{"unknown product", "GET", "/products/MLA4242", nil, 404, apptest.Err(404, "not_found", "product not found")},
			{"unknown item", "GET", "/items/MLA4242", nil, 404, apptest.Err(404, "not_found", "item not found")},
			{"unknown order", "GET", "/orders/4242", nil, 404, apptest.Err(404, "not_found", "order not found")},
			{"unknown brand", "GET", "/brands/4242", nil, 404, apptest.Err(404, "not_found", "brand not found")},
			{"unknown subscription", "GET", "/flex/subscriptions/4242", nil, 404, apptest.Err(404, "not_found", "subscription not found")},
			{"unknown shipment", "GET", "/shipments/4242", nil, 404, apptest.Err(404, "not_found", "shipment not found")},
		}
		for _, c := range cases {
			r := a.Sandbox(c.method, c.path, c.body)
			if c.want == "" {
				if r.Status != c.status {
					t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
				}
				continue
			}
			t.Run(c.name, func(t *testing.T) { r.Is(t, c.status, c.want) })
		}
	})
}

func TestSandboxPutsAreIdempotent(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
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
			again.HasStatus(t, 200)
			if string(again.Body) != string(first.Body) {
				t.Errorf("PUT %s twice:\n first %s\n again %s", p.path, first.Body, again.Body)
			}
			got := a.Sandbox("GET", p.path, nil)
			got.HasStatus(t, 200)
			if string(got.Body) != string(first.Body) {
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
		a.Sandbox("GET", "/shipments/40001", nil).Is(t, 200, `{"id":40001,"site_id":"MLA","order_id":2000001,"driver_id":null}`)
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

func TestSandboxAudit(t *testing.T) {
	site := func(got string) string {
		m := `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "` + got + `"`
		return apptest.Err(400, "bad_request", m, "site_id", m)
	}
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
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
				apptest.Err(400, "bad_request", "field shipping.free_shipping must be a boolean, got string", "shipping.free_shipping", "shipping.free_shipping must be a boolean")},
			{"body not an object", "PUT", "/brands/1", `[1]`, 400, apptest.Err(400, "bad_request", "field body must be an object, got array", "body", "body must be an object")},
			// A GET of an id that is no positive integer is 400 naming the
			// id field, as its PUT and the users collection answer.
			{"order id not a number", "GET", "/orders/abc", "", 400, apptest.Err(400, "bad_request", `order_id must be a positive integer, got "abc"`, "order_id", "order_id must be a positive integer")},
			{"brand id zero", "GET", "/brands/0", "", 400, apptest.Err(400, "bad_request", `official_store_id must be a positive integer, got "0"`, "official_store_id", "official_store_id must be a positive integer")},
			{"subscription id negative", "GET", "/flex/subscriptions/-1", "", 400, apptest.Err(400, "bad_request", `service_id must be a positive integer, got "-1"`, "service_id", "service_id must be a positive integer")},
			{"shipment id not a number", "GET", "/shipments/x", "", 400, apptest.Err(400, "bad_request", `shipment_id must be a positive integer, got "x"`, "shipment_id", "shipment_id must be a positive integer")},
		}
		for _, c := range cases {
			var body any
			if c.body != "" {
				body = c.body
			}
			t.Run(c.name, func(t *testing.T) { a.Sandbox(c.method, c.path, body).Is(t, c.status, c.want) })
		}
		// An item id of no known site is an unknown item, not a bad site.
		a.Do("GET", "/items/XXX1", nil).Is(t, 404, apptest.Err(404, "not_found", "item not found"))
		// The public compatibility dump reads a site too.
		a.Do("GET", "/catalog/dumps/domains/XXX/compatibilities", nil, apptest.Bearer("APP_USR-seller")...).Is(t, 400, `{"message":"invalid site_id XXX","error":"bad_request","status":400,"cause":[{"code":"site_id","message":"unknown site"}]}`)
	})
}

func TestSandboxPutsAreIdempotentOnTheRunningClock(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		a.MustLoad(apptest.Sample())
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
			first.HasStatus(t, 200)
			if again.HasStatus(t, 200); string(again.Body) != string(first.Body) {
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
