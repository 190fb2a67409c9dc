package compatapi_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

const items = "/items/MLA1100/compatibilities"

// forEach runs fn on a fresh world on PostgreSQL and on SQLite.
func forEach(t *testing.T, fn func(t *testing.T, a *apptest.App)) {
	for _, be := range apptest.Both {
		t.Run(be.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, newApp(t, be))
		})
	}
}

func TestCatalogReads(t *testing.T) {
	forEach(t, func(t *testing.T, a *apptest.App) {
		v := wantOK(t, a, "GET", "/catalog/dumps/domains/MLA/compatibilities", nil, "")
		entries := v.([]any)
		if len(entries) != 16 || get(v, "0.domain_id") != "MLA-BIG" {
			t.Fatalf("dump = %d entries, first %v", len(entries), get(v, "0.domain_id"))
		}
		var shock any
		for _, e := range entries {
			if get(e, "domain_id") == "MLA-CAR_SHOCK_ABSORBERS" {
				shock = e
			}
		}
		if get(shock, "main") != false || get(shock, "compatibilities.0.compatible_domain_id") != "MLA-CARS_AND_VANS" ||
			get(shock, "compatibilities.0.type") != "EXTENSION" || get(shock, "compatibilities.0.categories.0.id") != "MLA1747" {
			t.Fatalf("dump entry = %v", shock)
		}
		// Exactly the spec's fields: the sandbox's restriction_values feed
		// stays out, and a domain without links answers an empty array.
		wantLink := obj{"compatible_domain_id": "MLA-CARS_AND_VANS", "type": "EXTENSION", "required": true, "restrictions": []any{},
			"categories": []any{obj{"id": "MLA1747", "required": true, "note_status": "ENABLED", "restrictions_status": "ENABLED", "universal_status": "ENABLED"}}}
		if !reflect.DeepEqual(get(shock, "compatibilities.0"), wantLink) {
			t.Fatalf("dump link = %v\nwant %v", get(shock, "compatibilities.0"), wantLink)
		}
		if !reflect.DeepEqual(get(v, "0"), obj{"domain_id": "MLA-BIG", "main": true, "compatibilities": []any{}}) {
			t.Fatalf("dump entry without links = %v", get(v, "0"))
		}
		wantErr(t, a, "GET", "/catalog/dumps/domains/XXX/compatibilities", nil, "", 400, "bad_request", "invalid site_id XXX", "site_id")

		count := "/catalog_compatibilities/products_search/count_family_products"
		for _, c := range []struct {
			attrs []any
			want  float64
		}{
			{[]any{obj{"id": "BRAND", "value_id": "9909"}}, 2},
			{[]any{obj{"id": "BRAND", "value_name": "FORD"}}, 2},
			{[]any{obj{"id": "BRAND", "value_ids": []string{"9909", "67"}}}, 3},
			{[]any{obj{"id": "BRAND", "value_name": "ford"}, obj{"id": "VEHICLE_YEAR", "value_id": "18503"}}, 1},
		} {
			v := wantOK(t, a, "POST", count, obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": c.attrs}, "")
			if !reflect.DeepEqual(v, obj{"count": c.want}) {
				t.Errorf("count %v = %v, want %v", c.attrs, v, c.want)
			}
		}
		v = wantOK(t, a, "POST", count, obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "BRAND", "value_id": "77"}}}, "")
		if get(v, "count") != float64(250) {
			t.Fatalf("big count = %v", v)
		}
		wantErr(t, a, "POST", count, obj{"attributes": []any{obj{"id": "BRAND", "value_id": "1"}}}, "", 400, "bad_request", "required fields are incomplete", ".domain_id")
		wantErr(t, a, "POST", count, obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": []any{}}, "", 400, "bad_request", "required fields are incomplete", ".attributes")
		wantErr(t, a, "POST", count, obj{"domain_id": "MLA-NOPE", "attributes": []any{obj{"id": "BRAND", "value_id": "1"}}}, "", 404, "not_found", "domain MLA-NOPE not found")
		wantErr(t, a, "POST", count, obj{"domain_id": "nope", "attributes": []any{obj{"id": "BRAND", "value_id": "1"}}}, "", 400, "bad_request", "ids are badly formatted")
		wantErr(t, a, "POST", count, `{"domain_id": 5}`, "", 400, "bad_request", "field domain_id must be a string, got number", "domain_id")

		rv := "/catalog_compatibilities/restrictions/values?main_domain_id=MLA-CARS_AND_VANS&secondary_domain_id=MLA-CAR_SHOCK_ABSORBERS"
		v = wantOK(t, a, "GET", rv, nil, "")
		want := obj{"attributes_values": []any{obj{"attribute_id": "POSITION", "values": []any{
			obj{"value_id": "1", "value_name": "Delantera"}, obj{"value_id": "2", "value_name": "Trasera"}}}}}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("restriction values = %v", v)
		}
		v = wantOK(t, a, "GET", "/catalog_compatibilities/restrictions/values?main_domain_id=MLA-TRUCKS&secondary_domain_id=MLA-CAR_SHOCK_ABSORBERS", nil, "")
		if !reflect.DeepEqual(v, obj{"attributes_values": []any{}}) {
			t.Fatalf("unlinked restriction values = %v", v)
		}
		wantErr(t, a, "GET", "/catalog_compatibilities/restrictions/values?main_domain_id=MLA-CARS_AND_VANS", nil, "", 400, "bad_request", "required fields are incomplete")
		wantErr(t, a, "GET", "/catalog_compatibilities/restrictions/values?main_domain_id=MLA-X&secondary_domain_id=MLA-CAR_SHOCK_ABSORBERS", nil, "", 404, "not_found", "domain MLA-X not found")
	})
}

func TestAuthAndPermission(t *testing.T) {
	forEach(t, func(t *testing.T, a *apptest.App) {
		body := obj{"products": []any{obj{"id": "MLA101"}}}
		for _, r := range []struct{ method, path string }{
			{"POST", items}, {"PUT", items}, {"GET", items}, {"DELETE", items}, {"GET", items + "/x"},
			{"GET", items + "/x/note"}, {"DELETE", items + "/x"}, {"GET", items + "/extended/check"},
			{"POST", items + "/exception"}, {"GET", items + "/exception"},
			{"POST", "/items/compatibilities_summary"}, {"POST", "/items/catalog_domains/MLA-CARS_AND_VANS/compatibilities/cards"},
		} {
			wantErr(t, a, r.method, r.path, body, "", 403, "forbidden", "invalid access token")
			wantErr(t, a, r.method, r.path, body, "APP_USR-nope", 403, "forbidden", "invalid access token")
		}
		// Only the item's seller.
		wantErr(t, a, "POST", items, body, other, 403, "forbidden", "the caller has no permission on item MLA1100")
		wantErr(t, a, "GET", items, nil, other, 403, "forbidden", "the caller has no permission on item MLA1100")
		wantErr(t, a, "GET", items+"/exception", nil, other, 403, "forbidden", "the caller has no permission on item MLA1100")
		wantErr(t, a, "POST", "/items/compatibilities_summary", obj{"domain_id": "MLA-CARS_AND_VANS", "items": []string{"MLA1200"}}, seller,
			403, "forbidden", "the caller has no permission on item MLA1200")
		// Unknown and badly formatted items.
		wantErr(t, a, "POST", "/items/MLA999/compatibilities", body, seller, 404, "not_found", "item MLA999 not found")
		wantErr(t, a, "GET", "/items/MLA999/compatibilities", nil, seller, 404, "not_found", "item MLA999 not found")
		wantErr(t, a, "POST", "/items/abc/compatibilities", body, seller, 400, "bad_request", "ids are badly formatted", "item_id")
	})
}

func TestCreateErrors(t *testing.T) {
	forEach(t, func(t *testing.T, a *apptest.App) {
		bad := func(body any, status int, code, msg string, causes ...string) {
			t.Helper()
			wantErr(t, a, "POST", items, body, seller, status, code, msg, causes...)
		}
		p := func(entries ...any) obj { return obj{"products": entries} }
		// Required fields incomplete.
		bad(p(obj{"note": "x"}), 400, "bad_request", "required fields are incomplete", "products.id")
		bad(obj{"products_group": []any{obj{"ids": []string{}}}}, 400, "bad_request", "required fields are incomplete", "products_group.ids")
		bad(obj{"products_families": []any{obj{"attributes": []any{obj{"id": "BRAND", "value_id": "9909"}}}}}, 400, "bad_request", "required fields are incomplete", "products_families.domain_id")
		bad(obj{"products_families": []any{obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": []any{obj{"id": "BRAND"}}}}}, 400, "bad_request", "required fields are incomplete", "products_families.attributes.BRAND")
		bad(`{"products": "MLA101"}`, 400, "bad_request", "field products must be an array, got string", "products")
		bad("", 400, "bad_request", "request body is empty", "body")
		// Ids badly formatted.
		bad(p(obj{"id": "101"}), 400, "bad_request", "ids are badly formatted", "products.id")
		bad(obj{"products_group": []any{obj{"ids": []string{"MLA101", "x"}}}}, 400, "bad_request", "ids are badly formatted", "products_group.ids")
		bad(obj{"products_families": []any{obj{"domain_id": "CARS", "attributes": []any{obj{"id": "BRAND", "value_id": "1"}}}}}, 400, "bad_request", "ids are badly formatted", "products_families.domain_id")
		bad(p(obj{"id": "MLA101", "creation_source": "ROBOT"}), 400, "bad_request", "creation_source is not valid", "products.creation_source")
		// More than 200 products: specified, found by a family, and both.
		bad(obj{"products": ids(5000, 0, 201)}, 400, "bad_request", "more than 200 products found or specified for product domains", "products")
		bad(obj{"products_families": []any{obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "BRAND", "value_id": "77"}}}}},
			400, "bad_request", "more than 200 products found or specified for product domains", "products")
		bad(obj{"products": odd(76), "products_families": []any{obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "VEHICLE_YEAR", "value_id": "0"}}}}},
			400, "bad_request", "more than 200 products found or specified for product domains", "products")
		// More than 10 product domains.
		bad(obj{"products": ids(400, 1, 12)}, 400, "bad_request", "more than 10 product domains", "domains")
		// Products or domains of another site.
		bad(p(obj{"id": "MLB1"}), 400, "bad_request", "products or domains are not of the item's site", "products")
		bad(obj{"products_families": []any{obj{"domain_id": "MLB-CARS", "attributes": []any{obj{"id": "BRAND", "value_id": "3"}}}}}, 400, "bad_request", "products or domains are not of the item's site", "products_families.domain_id")
		// Not all children.
		bad(p(obj{"id": "MLA101"}, obj{"id": "MLA100"}), 400, "bad_request", "products are not all children", "products")
		// Item's domain not compatible.
		bad(p(obj{"id": "MLA301"}), 400, "bad_request", "the item's domain is not compatible with the specified domains", "domain_id")
		// Unknown product and domain.
		bad(p(obj{"id": "MLA9999"}), 404, "not_found", "product MLA9999 not found", "products")
		bad(obj{"products_families": []any{obj{"domain_id": "MLA-NOPE", "attributes": []any{obj{"id": "BRAND", "value_id": "1"}}}}}, 404, "not_found", "domain MLA-NOPE not found")
		// Notes and restrictions only where the category allows them.
		wantErr(t, a, "POST", "/items/MLA1101/compatibilities", p(obj{"id": "MLA101", "note": "x"}), seller, 400, "bad_request", "the item's category does not allow notes", "note")
		wantErr(t, a, "POST", "/items/MLA1101/compatibilities", p(obj{"id": "MLA101", "restrictions": []any{obj{"attribute_id": "POSITION", "attribute_values": []any{obj{"values": []any{obj{"value_id": "1"}}}}}}}),
			seller, 400, "bad_request", "the item's category does not allow restrictions", "restrictions")
		bad(p(obj{"id": "MLA101", "restrictions": []any{obj{"attribute_id": "POSITION", "attribute_values": []any{obj{"values": []any{obj{"value_id": "9"}}}}}}}),
			400, "bad_request", "restrictions are not valid for the domains", "restrictions.attribute_values")
		wantErr(t, a, "POST", "/items/MLA1102/compatibilities", p(obj{"id": "MLA101"}), seller, 400, "bad_request", "no compatibility is configured for the item's category", "category_id")
		// Nothing of a refused request was written.
		v := wantOK(t, a, "GET", items, nil, seller)
		if get(v, "catalog_compatibilities_count") != float64(0) {
			t.Fatalf("refused creates left %v", v)
		}
	})
}

func TestLimitsAtTheEdge(t *testing.T) {
	forEach(t, func(t *testing.T, a *apptest.App) {
		// 200 products exactly, family included.
		v := wantOK(t, a, "POST", items, obj{"products": odd(75), "products_families": []any{
			obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "VEHICLE_YEAR", "value_id": "0"}}}}}, seller)
		if !reflect.DeepEqual(v, obj{"created_compatibilities_count": float64(200)}) {
			t.Fatalf("200 = %v", v)
		}
		l := wantOK(t, a, "GET", items, nil, seller)
		if get(l, "catalog_compatibilities_count") != float64(200) || len(get(l, "products").([]any)) != 200 {
			t.Fatalf("list count = %v", get(l, "catalog_compatibilities_count"))
		}
		// 10 domains exactly on another item.
		v = wantOK(t, a, "POST", "/items/MLA1104/compatibilities", obj{"products": ids(400, 1, 11)}, seller)
		if !reflect.DeepEqual(v, obj{"created_compatibilities_count": float64(10)}) {
			t.Fatalf("10 domains = %v", v)
		}
		// Update has no 10-domain rule: 11 domains update fine (those not on
		// the item are 404, so add the 11th first).
		wantOK(t, a, "POST", "/items/MLA1104/compatibilities", obj{"products": ids(400, 11, 12)}, seller)
		upd := []any{}
		for i := 1; i <= 11; i++ {
			upd = append(upd, obj{"id": fmt.Sprintf("MLA%d", 400+i), "note": "ok"})
		}
		v = wantOK(t, a, "PUT", "/items/MLA1104/compatibilities", obj{"update": obj{"products": upd}}, seller)
		if get(v, "updated_compatibilities_count") != float64(11) {
			t.Fatalf("update 11 domains = %v", v)
		}
		// Delete: 10 domains at the edge, 11 one past it.
		fam := func(from, to int) []any {
			out := []any{}
			for i := from; i <= to; i++ {
				out = append(out, obj{"domain_id": fmt.Sprintf("MLA-V%d", i), "attributes": []any{obj{"id": "BRAND", "values": []any{obj{"id": "5", "name": "Generic"}}}}})
			}
			return out
		}
		wantErr(t, a, "DELETE", "/items/MLA1104/compatibilities", obj{"products_families": fam(1, 11)}, seller, 400, "bad_request", "more than 10 product domains", "domains")
		v = wantOK(t, a, "DELETE", "/items/MLA1104/compatibilities", obj{"products_families": fam(1, 10)}, seller)
		if n := len(get(v, "deleted_compatibilities").([]any)); n != 10 {
			t.Fatalf("deleted %d, want 10", n)
		}
		// Delete: 200 products at the edge, 201 one past it.
		wantErr(t, a, "DELETE", items, obj{"products_families": []any{obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "BRAND", "value_id": "77"}}}}},
			seller, 400, "bad_request", "more than 200 products found or specified for product domains")
		wantErr(t, a, "DELETE", items, obj{"products_families": []any{obj{"domain_id": "MLA-BIG"}}}, seller, 400, "bad_request", "required fields are incomplete")
		v = wantOK(t, a, "DELETE", items, obj{"products_families": []any{obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "VEHICLE_YEAR", "value_name": "0"}}}}}, seller)
		if n := len(get(v, "deleted_compatibilities").([]any)); n != 125 {
			t.Fatalf("deleted %d, want 125", n)
		}
		// Update: more than 200 products per request.
		wantErr(t, a, "PUT", items, obj{"update": obj{"products": ids(5000, 0, 201)}}, seller, 400, "bad_request", "more than 200 products found or specified for product domains")
		// ... and the same through create+update in one PUT.
		wantErr(t, a, "PUT", items, obj{"update": obj{"products": odd(75)}, "create": obj{"products": []any{obj{"id": "MLA5151"}},
			"products_families": []any{obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "VEHICLE_YEAR", "value_id": "0"}}}}}}, seller,
			400, "bad_request", "more than 200 products found or specified for product domains")
	})
}

func TestStateTable(t *testing.T) {
	forEach(t, func(t *testing.T, a *apptest.App) {
		// none + exception → exception reported; GET → true.
		wantOK(t, a, "POST", items+"/exception", obj{"comment": "no vehicle in the catalog"}, seller)
		if v := wantOK(t, a, "GET", items+"/exception", nil, seller); !reflect.DeepEqual(v, obj{"has_exception": true}) {
			t.Fatalf("exception = %v", v)
		}
		// none + POST products → has compatibilities; GET exception → false regardless.
		v := wantOK(t, a, "POST", items, obj{"products": []any{obj{"id": "MLA101"}}, "products_group": []any{obj{"ids": []string{"MLA102", "MLA201"}}}}, seller)
		if !reflect.DeepEqual(v, obj{"created_compatibilities_count": float64(3)}) {
			t.Fatalf("create = %v", v)
		}
		if v := wantOK(t, a, "GET", items+"/exception", nil, seller); !reflect.DeepEqual(v, obj{"has_exception": false}) {
			t.Fatalf("exception with compatibilities = %v", v)
		}
		// Re-sent vehicles are not created twice.
		v = wantOK(t, a, "POST", items, obj{"products": []any{obj{"id": "MLA101"}, obj{"id": "MLA103"}}}, seller)
		if !reflect.DeepEqual(v, obj{"created_compatibilities_count": float64(1)}) {
			t.Fatalf("re-create = %v", v)
		}
		// has compatibilities + universal → 400; + exception → 400.
		wantErr(t, a, "POST", items, obj{"universal": true}, seller, 400, "bad_request", "the item has compatibilities that must be removed first")
		wantErr(t, a, "POST", items+"/exception", obj{"comment": "x"}, seller, 400, "bad_request", "the item has compatibilities")
		// has compatibilities + DELETE → none; deleted ids returned.
		v = wantOK(t, a, "DELETE", items, nil, seller)
		if n := len(get(v, "deleted_compatibilities").([]any)); n != 4 {
			t.Fatalf("deleted = %v", v)
		}
		// none + universal → universal, count 1; list shows the top domains.
		v = wantOK(t, a, "POST", items, obj{"universal": true, "products": []any{}}, seller)
		if !reflect.DeepEqual(v, obj{"created_compatibilities_count": float64(1)}) {
			t.Fatalf("universal = %v", v)
		}
		v = wantOK(t, a, "GET", items, nil, seller)
		if get(v, "catalog_compatibilities_count") != float64(0) || get(v, "universal.domain_ids.0") != "MLA-CARS_AND_VANS" || len(get(v, "universal.domain_ids").([]any)) != 14 {
			t.Fatalf("universal list = %v", v)
		}
		// universal + create → 400, by POST and by PUT.
		wantErr(t, a, "POST", items, obj{"products": []any{obj{"id": "MLA101"}}}, seller, 400, "bad_request", "the item is universal and must be reset before creating compatibilities")
		wantErr(t, a, "PUT", items, obj{"create": obj{"products": []any{obj{"id": "MLA101"}}}}, seller, 400, "bad_request", "the item is universal and must be reset before creating compatibilities")
		// Universal with products, and nothing sent.
		wantErr(t, a, "POST", items, obj{"universal": true, "products": []any{obj{"id": "MLA101"}}}, seller, 400, "bad_request", "Invalid arguments for specific request", "body", "universal")
		wantErr(t, a, "POST", items, obj{}, seller, 400, "bad_request", "Invalid arguments for specific request", "body", "universal")
		wantErr(t, a, "POST", items, obj{"universal": false}, seller, 400, "bad_request", "Invalid arguments for specific request", "body", "universal")
		// Categories without universal or without compatibilities.
		wantErr(t, a, "POST", "/items/MLA1101/compatibilities", obj{"universal": true}, seller, 400, "bad_request", "no universal compatibility is configured for the item's category", "category_id")
		wantErr(t, a, "POST", "/items/MLA1102/compatibilities", obj{"universal": true}, seller, 400, "bad_request", "no compatibility is configured for the item's category", "category_id")
		// PUT universal false resets it; then creating works.
		v = wantOK(t, a, "PUT", items, obj{"universal": false}, seller)
		if get(v, "universal") != false {
			t.Fatalf("put universal false = %v", v)
		}
		wantOK(t, a, "POST", items, obj{"products": []any{obj{"id": "MLA101"}}}, seller)
		// PUT universal true beside products is refused.
		wantErr(t, a, "PUT", items, obj{"create": obj{"universal": true, "products": []any{obj{"id": "MLA102"}}}}, seller, 400, "bad_request", "Invalid arguments for specific request")
	})
}

func TestExceptionErrors(t *testing.T) {
	forEach(t, func(t *testing.T, a *apptest.App) {
		wantErr(t, a, "POST", "/items/MLA1103/compatibilities/exception", obj{"comment": "x"}, seller, 400, "bad_request", "item MLA1103 is closed")
		wantErr(t, a, "POST", "/items/MLA1102/compatibilities/exception", obj{"comment": "x"}, seller, 400, "bad_request", "the item's category has no compatibilities")
		wantErr(t, a, "POST", "/items/MLA1101/compatibilities/exception", obj{"comment": "x"}, seller, 400, "bad_request", "the item's category has no compatibilities")
		wantErr(t, a, "POST", items+"/exception", obj{}, seller, 400, "bad_request", "comment is required", "comment")
		wantErr(t, a, "POST", items+"/exception", nil, seller, 400, "bad_request", "comment is required", "comment")
		wantErr(t, a, "POST", items+"/exception", obj{"comment": "  "}, seller, 400, "bad_request", "comment is required", "comment")
		wantErr(t, a, "POST", items+"/exception", obj{"comment": strings.Repeat("ñ", 256)}, seller, 400, "bad_request", "comment has 256 characters; at most 255 are allowed", "comment")
		v := wantOK(t, a, "POST", items+"/exception", obj{"comment": strings.Repeat("ñ", 255)}, seller)
		if !reflect.DeepEqual(v, obj{"has_exception": true}) {
			t.Fatalf("exception = %v", v)
		}
		wantErr(t, a, "POST", items+"/exception", obj{"comment": "again"}, seller, 400, "bad_request", "the item already has an exception")
		if v := wantOK(t, a, "GET", "/items/MLA1104/compatibilities/exception", nil, seller); !reflect.DeepEqual(v, obj{"has_exception": false}) {
			t.Fatalf("no exception = %v", v)
		}
	})
}

func TestReadsUpdatesAndDeletes(t *testing.T) {
	forEach(t, func(t *testing.T, a *apptest.App) {
		pos := []any{obj{"attribute_id": "POSITION", "attribute_values": []any{obj{"values": []any{obj{"value_id": "2"}}}}}}
		wantOK(t, a, "POST", items, obj{
			"products":          []any{obj{"id": "MLA101", "note": "solo 5 puertas", "restrictions": pos}},
			"products_families": []any{obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": []any{obj{"id": "BRAND", "value_id": "67"}}, "creation_source": "ITEM_SUGGESTIONS"}},
		}, seller)
		l := wantOK(t, a, "GET", items+"?extended=true", nil, seller)
		if get(l, "catalog_compatibilities_count") != float64(2) {
			t.Fatalf("list = %v", l)
		}
		first := get(l, "products.0").(map[string]any)
		id := first["id"].(string)
		wantFirst := obj{"id": id, "domain_id": "MLA-CARS_AND_VANS", "catalog_product_id": "MLA101", "catalog_product_name": "Ford Ka 2018",
			"source": "SELLER", "creation_source": "MANUAL", "note": "solo 5 puertas",
			"restrictions": []any{obj{"attribute_id": "POSITION", "attribute_code": float64(1), "attribute_values": []any{obj{"values": []any{
				obj{"value_id": "2", "value_name": "Trasera", "value_code": float64(2)}}}}}},
			"reputation": obj{"level": "GREEN", "total_claims": float64(0)}}
		if !reflect.DeepEqual(first, wantFirst) {
			t.Fatalf("extended entry = %v\nwant %v", first, wantFirst)
		}
		if get(l, "products.1.creation_source") != "ITEM_SUGGESTIONS" || get(l, "products.1.catalog_product_id") != "MLA103" {
			t.Fatalf("family entry = %v", get(l, "products.1"))
		}
		// Without extended: no note, no restrictions.
		l = wantOK(t, a, "GET", items, nil, seller)
		if _, ok := get(l, "products.0").(map[string]any)["note"]; ok {
			t.Fatalf("plain list shows notes: %v", l)
		}
		// One compatibility, its note, the extended check.
		one := wantOK(t, a, "GET", items+"/"+id, nil, seller)
		if get(one, "note_status") != "PENDING" || get(one, "note") != "solo 5 puertas" {
			t.Fatalf("one = %v", one)
		}
		if v := wantOK(t, a, "GET", items+"/"+id+"/note", nil, seller); !reflect.DeepEqual(v, obj{"note": "solo 5 puertas"}) {
			t.Fatalf("note = %v", v)
		}
		wantErr(t, a, "GET", items+"/nope", nil, seller, 404, "not_found", "compatibility nope not found")
		wantErr(t, a, "GET", items+"/nope/note", nil, seller, 404, "not_found", "compatibility nope not found")
		if v := wantOK(t, a, "GET", items+"/extended/check", nil, seller); !reflect.DeepEqual(v, obj{"note": "true", "restrictions": "true"}) {
			t.Fatalf("check = %v", v)
		}
		if v := wantOK(t, a, "GET", "/items/MLA1101/compatibilities/extended/check", nil, seller); !reflect.DeepEqual(v, obj{"note": "false", "restrictions": "false"}) {
			t.Fatalf("check = %v", v)
		}
		// Update: empty note and restrictions remove them.
		v := wantOK(t, a, "PUT", items, obj{"update": obj{"products": []any{obj{"id": "MLA101", "note": "", "restrictions": []any{}}}}}, seller)
		want := obj{"update": obj{"products": []any{obj{"id": "MLA101", "note": "", "restrictions": []any{}}}}, "universal": false,
			"created_compatibilities_count": float64(0), "updated_compatibilities_count": float64(1), "deleted_compatibilities": []any{}}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("put = %v\nwant %v", v, want)
		}
		one = wantOK(t, a, "GET", items+"/"+id, nil, seller)
		if get(one, "note") != "" || get(one, "note_status") != "NONE" || len(get(one, "restrictions").([]any)) != 0 {
			t.Fatalf("after removal = %v", one)
		}
		// Update of a vehicle the item lacks → 404; update errors as create.
		wantErr(t, a, "PUT", items, obj{"update": obj{"products": []any{obj{"id": "MLA102", "note": "x"}}}}, seller, 404, "not_found", "the item has no compatibility with product MLA102")
		wantErr(t, a, "PUT", items, obj{"update": obj{"products": []any{obj{"id": "MLB1"}}}}, seller, 400, "bad_request", "products or domains are not of the item's site")
		wantErr(t, a, "PUT", items, obj{"update": obj{"products": []any{obj{"id": "MLA301"}}}}, seller, 400, "bad_request", "the item's domain is not compatible with the specified domains")
		wantErr(t, a, "PUT", items, obj{"update": obj{"products": []any{obj{}}}}, seller, 400, "bad_request", "required fields are incomplete")
		wantErr(t, a, "PUT", items, obj{"update": obj{"products": []any{obj{"id": "X1"}}}}, seller, 400, "bad_request", "ids are badly formatted")
		wantErr(t, a, "PUT", items, obj{}, seller, 400, "bad_request", "Invalid arguments for specific request")
		// PUT create + delete in one transaction.
		v = wantOK(t, a, "PUT", items, obj{"create": obj{"products": []any{obj{"id": "MLA102"}}}, "delete": obj{"products": []any{obj{"id": "MLA103"}}}}, seller)
		if get(v, "created_compatibilities_count") != float64(1) || len(get(v, "deleted_compatibilities").([]any)) != 1 {
			t.Fatalf("put create+delete = %v", v)
		}
		// A PUT whose create fails leaves the delete undone.
		wantErr(t, a, "PUT", items, obj{"delete": obj{"products": []any{obj{"id": "MLA102"}}}, "create": obj{"products": []any{obj{"id": "MLA9999"}}}}, seller, 404, "not_found", "product MLA9999 not found")
		l = wantOK(t, a, "GET", items, nil, seller)
		if get(l, "catalog_compatibilities_count") != float64(2) {
			t.Fatalf("failed PUT changed the item: %v", l)
		}
		// Summary.
		s := wantOK(t, a, "POST", "/items/compatibilities_summary", obj{"domain_id": "MLA-CARS_AND_VANS", "items": []string{"MLA1100", "MLA1104"}}, seller)
		wantS := []any{
			obj{"item_id": "MLA1100", "item_title": "Item MLA1100", "compatibilities_count": float64(2), "compatibilities_claims_count": float64(0), "notes_count": float64(0), "restrictions_count": float64(0)},
			obj{"item_id": "MLA1104", "item_title": "Item MLA1104", "compatibilities_count": float64(0), "compatibilities_claims_count": float64(0), "notes_count": float64(0), "restrictions_count": float64(0)},
		}
		if !reflect.DeepEqual(s, wantS) {
			t.Fatalf("summary = %v", s)
		}
		wantErr(t, a, "POST", "/items/compatibilities_summary", obj{"domain_id": "MLA-CARS_AND_VANS", "items": []string{}}, seller, 400, "bad_request", "required fields are incomplete")
		wantErr(t, a, "POST", "/items/compatibilities_summary", obj{"domain_id": "MLA-CARS_AND_VANS", "items": []string{"MLA777"}}, seller, 404, "not_found", "item MLA777 not found")
		// Delete one.
		v = wantOK(t, a, "DELETE", items+"/"+id, nil, seller)
		if !reflect.DeepEqual(v, obj{"deleted_compatibilities": []any{id}}) {
			t.Fatalf("delete one = %v", v)
		}
		wantErr(t, a, "DELETE", items+"/"+id, nil, seller, 404, "not_found", "compatibility "+id+" not found")
		// Item read (the world's): HAS_COMPATIBILITIES follows the rows.
		l = wantOK(t, a, "GET", items, nil, seller)
		if get(l, "catalog_compatibilities_count") != float64(1) {
			t.Fatalf("after delete one = %v", l)
		}
	})
}
