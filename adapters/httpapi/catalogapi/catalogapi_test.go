package catalogapi_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
)

func TestItemReads(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
		// Compatibilities belong to another module; the tags read its table.
		for i, c := range [][2]string{{"MLA1100", "MLA15197901"}, {"MLA1100", "MLA15197902"}, {"MLA1102", "MLA15197901"}} {
			if _, err := a.Deps.DB.ExecContext(t.Context(), `INSERT INTO compatibilities (id, item_id, domain_id, product_id, source, creation_source, note, note_status, restrictions, date_created, last_updated)
				VALUES (?, ?, 'MLA-CARS_AND_VANS', ?, 'SELLER', 'ITEM_SUGGESTIONS', '', 'PENDING', '[]', ?, ?)`, []string{"c1", "c2", "c3"}[i], c[0], c[1], now, now); err != nil {
				t.Fatal(err)
			}
		}
		seller := apptest.Bearer("APP_USR-seller")
		a.Do("GET", "/items/MLA1100", nil).Is(t, 200, `{"id":"MLA1100","site_id":"MLA","title":"Amortiguador MLA1100","seller_id":123,
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

		a.Do("PUT", "/items?ids=MLA1100,MLA1103&attributes=status", nil).Is(t, 200, `[{"id":"MLA1100","status":"active"},{"id":"MLA1103","status":"paused"}]`)
		a.Do("GET", "/users/123/items/search?tags=incomplete_compatibilities", nil, seller...).Is(t, 200, `{"seller_id":"123","results":["MLA1101","MLA1103"],"paging":{"limit":50,"offset":0,"total":2},"query":null}`)
		a.Do("GET", "/users/123/items/search?tags=incomplete_compatibilities&status=active", nil, seller...).Is(t, 200, `{"seller_id":"123","results":["MLA1101"],"paging":{"limit":50,"offset":0,"total":1},"query":null}`)
		a.Do("GET", "/users/123/items/search?tags=pending_compatibilities&access_token=APP_USR-seller", nil).Is(t, 200, `{"seller_id":"123","results":["MLA1102"],"paging":{"limit":50,"offset":0,"total":1},"query":null}`)
		a.Do("GET", "/users/123/items/search?status=active&limit=2&offset=1", nil, seller...).Is(t, 200, `{"seller_id":"123","results":["MLA1101","MLA1102"],"paging":{"limit":2,"offset":1,"total":3},"query":null}`)

		// errors
		a.Do("GET", "/items/MLA4242", nil).Is(t, 404, apptest.Err(404, "not_found", "item not found"))
		a.Do("PUT", "/items?ids=MLA1100,MLA4242&attributes=status", nil).Is(t, 404, apptest.Err(404, "not_found", "item not found"))
		a.Do("PUT", "/items?attributes=status", nil).Is(t, 400, apptest.Err(400, "bad_request", "ids is required", "ids", "ids is required: comma-separated item ids"))
		a.Do("GET", "/users/123/items/search", nil).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
		a.Do("GET", "/users/123/items/search", nil, apptest.Bearer("APP_USR-nope")...).Is(t, 401, apptest.Err(401, "unauthorized", "invalid access token"))
		a.Do("GET", "/users/123/items/search", nil, apptest.Bearer("APP_USR-other")...).Is(t, 403, `{"message":"the caller (user 124) may only search its own items, not those of seller 123","error":"forbidden","status":403,"cause":[]}`)
		a.Do("GET", "/users/123/items/search?limit=x", nil, seller...).Is(t, 400, `{"message":"limit must be an integer, got \"x\"","error":"bad_request","status":400,"cause":[]}`)
		a.Do("GET", "/users/123/items/search?offset=-1", nil, seller...).Is(t, 400, `{"message":"offset must not be negative, got -1","error":"bad_request","status":400,"cause":[]}`)
		a.Do("GET", "/users/123/items/search?tags=shiny", nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", `tags must be incomplete_compatibilities or pending_compatibilities, got "shiny"`, "tags", `tags must be incomplete_compatibilities or pending_compatibilities, got "shiny"`))
		a.Do("GET", "/users/abc/items/search", nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", `seller_id must be a positive integer, got "abc"`, "seller_id", "seller_id must be a positive integer"))
	})
}

func TestOfficialStoreOfItems(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
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
		put("MLA2000", 789, nil).Is(t, 400, `{"message":"`+required+`","error":"validation_error","status":400,"cause":[{"code":"item.official_store_id.invalid","message":"`+required+`"}]}`)
		put("MLA2001", 789, 5003).Is(t, 403, `{"message":"body.invalid_official_store_id","error":"forbidden","status":403,"cause":[{"code":"official_store_id","message":"seller 789 may not use official_store_id 5003 on site MLA; allowed ids: 5001, 5002"}]}`)
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
			r.HasStatus(t, 200)
			if (c.store == nil) != (it.OfficialStoreID == nil) {
				t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
			}
		}
		a.Sandbox("GET", "/items/MLA2001", nil).HasStatus(t, 404)
		// In fixtures the 403 of an entry becomes the 400 naming it.
		r := a.Sandbox("POST", "/fixtures", map[string]any{"items": []map[string]any{
			{"id": "MLA2004", "site_id": "MLA", "seller_id": 789, "title": "Filtro", "category_id": "MLA1000", "official_store_id": 5003}}})
		r.HasStatus(t, 400)
		if !strings.Contains(string(r.Body), "items[0]") {
			t.Errorf("fixtures with a refused store: %d %s", r.Status, r.Body)
		}
	})
}
