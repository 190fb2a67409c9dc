package compatapi_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/test/apptest"
	"github.com/google/go-cmp/cmp"
)

const items = "/items/MLA1100/compatibilities"

func catalogReads(t *testing.T, a *apptest.App) {
	v := a.Do("GET", "/catalog/dumps/domains/MLA/compatibilities", nil, apptest.Bearer("")...).OK(t, 200)
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
	// Exactly the contract's fields: the sandbox's restriction_values feed
	// stays out, and a domain without links answers an empty array.
	wantLink := obj{"compatible_domain_id": "MLA-CARS_AND_VANS", "type": "EXTENSION", "required": true, "restrictions": []any{},
		"categories": []any{obj{"id": "MLA1747", "required": true, "note_status": "ENABLED", "restrictions_status": "ENABLED", "universal_status": "ENABLED"}}}
	if diff := cmp.Diff(wantLink, get(shock, "compatibilities.0")); diff != "" {
		t.Fatalf("dump link (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(obj{"domain_id": "MLA-BIG", "main": true, "compatibilities": []any{}}, get(v, "0")); diff != "" {
		t.Fatalf("dump entry without links (-want +got):\n%s", diff)
	}
	a.Do("GET", "/catalog/dumps/domains/XXX/compatibilities", nil, apptest.Bearer("")...).Is(t, 400, apptest.Err(400, "bad_request", "invalid site_id XXX", "site_id", "unknown site"))

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
		v := a.Do("POST", count, obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": c.attrs}, apptest.Bearer("")...).OK(t, 200)
		if !reflect.DeepEqual(v, obj{"count": c.want}) {
			t.Errorf("count %v = %v, want %v", c.attrs, v, c.want)
		}
	}
	v = a.Do("POST", count, obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "BRAND", "value_id": "77"}}}, apptest.Bearer("")...).OK(t, 200)
	if get(v, "count") != float64(250) {
		t.Fatalf("big count = %v", v)
	}
	a.Do("POST", count, obj{"attributes": []any{obj{"id": "BRAND", "value_id": "1"}}}, apptest.Bearer("")...).Is(t, 400, apptest.Err(400, "bad_request", "required fields are incomplete", ".domain_id", "domain_id is required"))
	a.Do("POST", count, obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": []any{}}, apptest.Bearer("")...).Is(t, 400, apptest.Err(400, "bad_request", "required fields are incomplete", ".attributes", "at least one attribute is required"))
	a.Do("POST", count, obj{"domain_id": "MLA-NOPE", "attributes": []any{obj{"id": "BRAND", "value_id": "1"}}}, apptest.Bearer("")...).Is(t, 404, apptest.Err(404, "not_found", "domain MLA-NOPE not found"))
	a.Do("POST", count, obj{"domain_id": "nope", "attributes": []any{obj{"id": "BRAND", "value_id": "1"}}}, apptest.Bearer("")...).Is(t, 400, apptest.Err(400, "bad_request", "ids are badly formatted", ".domain_id", "domain_id must be <site_id>-<DOMAIN_NAME>"))
	a.Do("POST", count, `{"domain_id": 5}`, apptest.Bearer("")...).Is(t, 400, apptest.Err(400, "bad_request", "field domain_id must be a string, got number", "domain_id", "domain_id must be a string"))

	rv := "/catalog_compatibilities/restrictions/values?main_domain_id=MLA-CARS_AND_VANS&secondary_domain_id=MLA-CAR_SHOCK_ABSORBERS"
	v = a.Do("GET", rv, nil, apptest.Bearer("")...).OK(t, 200)
	want := obj{"attributes_values": []any{obj{"attribute_id": "POSITION", "values": []any{
		obj{"value_id": "1", "value_name": "Delantera"}, obj{"value_id": "2", "value_name": "Trasera"}}}}}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Fatalf("restriction values (-want +got):\n%s", diff)
	}
	v = a.Do("GET", "/catalog_compatibilities/restrictions/values?main_domain_id=MLA-TRUCKS&secondary_domain_id=MLA-CAR_SHOCK_ABSORBERS", nil, apptest.Bearer("")...).OK(t, 200)
	if diff := cmp.Diff(obj{"attributes_values": []any{}}, v); diff != "" {
		t.Fatalf("unlinked restriction values (-want +got):\n%s", diff)
	}
	a.Do("GET", "/catalog_compatibilities/restrictions/values?main_domain_id=MLA-CARS_AND_VANS", nil, apptest.Bearer("")...).Is(t, 400, apptest.Err(400, "bad_request", "required fields are incomplete", "main_domain_id", "main_domain_id and secondary_domain_id are required"))
	a.Do("GET", "/catalog_compatibilities/restrictions/values?main_domain_id=MLA-X&secondary_domain_id=MLA-CAR_SHOCK_ABSORBERS", nil, apptest.Bearer("")...).Is(t, 404, apptest.Err(404, "not_found", "domain MLA-X not found"))
}

func authAndPermission(t *testing.T, a *apptest.App) {
	body := obj{"products": []any{obj{"id": "MLA101"}}}
	for _, r := range []struct{ method, path string }{
		{"POST", items}, {"PUT", items}, {"GET", items}, {"DELETE", items}, {"GET", items + "/x"},
		{"GET", items + "/x/note"}, {"DELETE", items + "/x"}, {"GET", items + "/extended/check"},
		{"POST", items + "/exception"}, {"GET", items + "/exception"},
		{"POST", "/items/compatibilities_summary"}, {"POST", "/items/catalog_domains/MLA-CARS_AND_VANS/compatibilities/cards"},
	} {
		a.Do(r.method, r.path, body, apptest.Bearer("")...).Is(t, 403, apptest.Err(403, "forbidden", "invalid access token"))
		a.Do(r.method, r.path, body, apptest.Bearer("APP_USR-nope")...).Is(t, 403, apptest.Err(403, "forbidden", "invalid access token"))
	}
	// Only the item's seller.
	a.Do("POST", items, body, apptest.Bearer(other)...).Is(t, 403, apptest.Err(403, "forbidden", "the caller has no permission on item MLA1100"))
	a.Do("GET", items, nil, apptest.Bearer(other)...).Is(t, 403, apptest.Err(403, "forbidden", "the caller has no permission on item MLA1100"))
	a.Do("GET", items+"/exception", nil, apptest.Bearer(other)...).Is(t, 403, apptest.Err(403, "forbidden", "the caller has no permission on item MLA1100"))
	a.Do("POST", "/items/compatibilities_summary", obj{"domain_id": "MLA-CARS_AND_VANS", "items": []string{"MLA1200"}}, apptest.Bearer(seller)...).Is(t, 403, apptest.Err(403, "forbidden", "the caller has no permission on item MLA1200"))
	// Unknown and badly formatted items.
	a.Do("POST", "/items/MLA999/compatibilities", body, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "item MLA999 not found"))
	a.Do("GET", "/items/MLA999/compatibilities", nil, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "item MLA999 not found"))
	a.Do("POST", "/items/abc/compatibilities", body, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "ids are badly formatted", "item_id", "item id abc is badly formatted"))
}

// Answers past the limits of core/compat, built from its constants.
var (
	tooManyProducts = apptest.Err(400, "bad_request", compat.ErrTooManyProducts.Message,
		"products", fmt.Sprintf("%d products specified; at most %d", compat.MaxProducts+1, compat.MaxProducts))
	tooManyWithFamilies = apptest.Err(400, "bad_request", compat.ErrTooManyProducts.Message,
		"products", fmt.Sprintf("more than %d products in the request, families included", compat.MaxProducts))
	tooManyDomains = apptest.Err(400, "bad_request", compat.ErrTooManyDomains.Message,
		"domains", fmt.Sprintf("%d product domains; at most %d", compat.MaxDomains+1, compat.MaxDomains))
)

func createErrors(t *testing.T, a *apptest.App) {
	bad := func(body any, status int, want string) {
		t.Helper()
		a.Do("POST", items, body, apptest.Bearer(seller)...).Is(t, status, want)
	}
	p := func(entries ...any) obj { return obj{"products": entries} }
	// Required fields incomplete.
	bad(p(obj{"note": "x"}), 400, apptest.Err(400, "bad_request", "required fields are incomplete", "products.id", "product id is required"))
	bad(obj{"products_group": []any{obj{"ids": []string{}}}}, 400, apptest.Err(400, "bad_request", "required fields are incomplete", "products_group.ids", "ids are required"))
	bad(obj{"products_families": []any{obj{"attributes": []any{obj{"id": "BRAND", "value_id": "9909"}}}}}, 400, apptest.Err(400, "bad_request", "required fields are incomplete", "products_families.domain_id", "domain_id is required"))
	bad(obj{"products_families": []any{obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": []any{obj{"id": "BRAND"}}}}}, 400, apptest.Err(400, "bad_request", "required fields are incomplete", "products_families.attributes.BRAND", "value_id, value_name or value_ids is required"))
	bad(`{"products": "MLA101"}`, 400, apptest.Err(400, "bad_request", "field products must be an array, got string", "products", "products must be an array"))
	bad("", 400, apptest.Err(400, "bad_request", "request body is empty", "body", "a JSON body is required"))
	// Ids badly formatted.
	bad(p(obj{"id": "101"}), 400, apptest.Err(400, "bad_request", "ids are badly formatted", "products.id", "product id 101 is badly formatted"))
	bad(obj{"products_group": []any{obj{"ids": []string{"MLA101", "x"}}}}, 400, apptest.Err(400, "bad_request", "ids are badly formatted", "products_group.ids", "product id x is badly formatted"))
	bad(obj{"products_families": []any{obj{"domain_id": "CARS", "attributes": []any{obj{"id": "BRAND", "value_id": "1"}}}}}, 400, apptest.Err(400, "bad_request", "ids are badly formatted", "products_families.domain_id", "domain_id must be <site_id>-<DOMAIN_NAME>"))
	bad(p(obj{"id": "MLA101", "creation_source": "ROBOT"}), 400, apptest.Err(400, "bad_request", "creation_source is not valid", "products.creation_source", "creation_source must be MANUAL or ITEM_SUGGESTIONS"))
	// More than 200 products: specified, found by a family, and both.
	bad(obj{"products": ids(5000, 0, compat.MaxProducts+1)}, 400, tooManyProducts)
	bad(obj{"products_families": []any{obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "BRAND", "value_id": "77"}}}}}, 400, tooManyWithFamilies)
	bad(obj{"products": odd(76), "products_families": []any{obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "VEHICLE_YEAR", "value_id": "0"}}}}}, 400, tooManyWithFamilies)
	// More than 10 product domains.
	bad(obj{"products": ids(400, 1, 1+compat.MaxDomains+1)}, 400, tooManyDomains)
	// Products or domains of another site.
	bad(p(obj{"id": "MLB1"}), 400, apptest.Err(400, "bad_request", "products or domains are not of the item's site", "products", "product MLB1 is not of site MLA"))
	bad(obj{"products_families": []any{obj{"domain_id": "MLB-CARS", "attributes": []any{obj{"id": "BRAND", "value_id": "3"}}}}}, 400, apptest.Err(400, "bad_request", "products or domains are not of the item's site", "products_families.domain_id", "domain MLB-CARS is not of site MLA"))
	// Not all children.
	bad(p(obj{"id": "MLA101"}, obj{"id": "MLA100"}), 400, apptest.Err(400, "bad_request", "products are not all children", "products", "product MLA100 is a parent product"))
	// Item's domain not compatible.
	bad(p(obj{"id": "MLA301"}), 400, apptest.Err(400, "bad_request", "the item's domain is not compatible with the specified domains", "domain_id", "item domain MLA-CAR_SHOCK_ABSORBERS is not compatible with MLA-TRUCKS"))
	// Unknown product and domain.
	bad(p(obj{"id": "MLA9999"}), 404, apptest.Err(404, "not_found", "product MLA9999 not found", "products", "product MLA9999 does not exist"))
	bad(obj{"products_families": []any{obj{"domain_id": "MLA-NOPE", "attributes": []any{obj{"id": "BRAND", "value_id": "1"}}}}}, 404, apptest.Err(404, "not_found", "domain MLA-NOPE not found"))
	// Notes and restrictions only where the category allows them.
	a.Do("POST", "/items/MLA1101/compatibilities", p(obj{"id": "MLA101", "note": "x"}), apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "the item's category does not allow notes", "note", "category MLA1748 does not allow notes"))
	a.Do("POST", "/items/MLA1101/compatibilities", p(obj{"id": "MLA101", "restrictions": []any{obj{"attribute_id": "POSITION", "attribute_values": []any{obj{"values": []any{obj{"value_id": "1"}}}}}}}), apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "the item's category does not allow restrictions", "restrictions", "category MLA1748 does not allow restrictions"))
	bad(p(obj{"id": "MLA101", "restrictions": []any{obj{"attribute_id": "POSITION", "attribute_values": []any{obj{"values": []any{obj{"value_id": "9"}}}}}}}), 400, apptest.Err(400, "bad_request", "restrictions are not valid for the domains", "restrictions.attribute_values", "value 9 is not allowed for POSITION"))
	a.Do("POST", "/items/MLA1102/compatibilities", p(obj{"id": "MLA101"}), apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "no compatibility is configured for the item's category", "category_id", "category MLA1749 takes no compatibilities"))
	// Nothing of a refused request was written.
	v := a.Do("GET", items, nil, apptest.Bearer(seller)...).OK(t, 200)
	if get(v, "catalog_compatibilities_count") != float64(0) {
		t.Fatalf("refused creates left %v", v)
	}
}

func TestLimitsAtTheEdge(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newBigApp(t, be)
		// 200 products exactly, family included.
		v := a.Do("POST", items, obj{"products": odd(75), "products_families": []any{
			obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "VEHICLE_YEAR", "value_id": "0"}}}}}, apptest.Bearer(seller)...).OK(t, 200)
		if diff := cmp.Diff(obj{"created_compatibilities_count": float64(200)}, v); diff != "" {
			t.Fatalf("200 (-want +got):\n%s", diff)
		}
		l := a.Do("GET", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(l, "catalog_compatibilities_count") != float64(200) || len(get(l, "products").([]any)) != 200 {
			t.Fatalf("list count = %v", get(l, "catalog_compatibilities_count"))
		}
		// 10 domains exactly on another item.
		v = a.Do("POST", "/items/MLA1104/compatibilities", obj{"products": ids(400, 1, 11)}, apptest.Bearer(seller)...).OK(t, 200)
		if diff := cmp.Diff(obj{"created_compatibilities_count": float64(10)}, v); diff != "" {
			t.Fatalf("10 domains (-want +got):\n%s", diff)
		}
		// Update has no 10-domain rule: 11 domains update fine (those not on
		// the item are 404, so add the 11th first).
		a.Do("POST", "/items/MLA1104/compatibilities", obj{"products": ids(400, 11, 12)}, apptest.Bearer(seller)...).OK(t, 200)
		upd := []any{}
		for i := 1; i <= 11; i++ {
			upd = append(upd, obj{"id": fmt.Sprintf("MLA%d", 400+i), "note": "ok"})
		}
		v = a.Do("PUT", "/items/MLA1104/compatibilities", obj{"update": obj{"products": upd}}, apptest.Bearer(seller)...).OK(t, 200)
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
		a.Do("DELETE", "/items/MLA1104/compatibilities", obj{"products_families": fam(1, 11)}, apptest.Bearer(seller)...).Is(t, 400, tooManyDomains)
		v = a.Do("DELETE", "/items/MLA1104/compatibilities", obj{"products_families": fam(1, 10)}, apptest.Bearer(seller)...).OK(t, 200)
		if n := len(get(v, "deleted_compatibilities").([]any)); n != 10 {
			t.Fatalf("deleted %d, want 10", n)
		}
		// Delete: 200 products at the edge, 201 one past it.
		a.Do("DELETE", items, obj{"products_families": []any{obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "BRAND", "value_id": "77"}}}}}, apptest.Bearer(seller)...).Is(t, 400, tooManyWithFamilies)
		a.Do("DELETE", items, obj{"products_families": []any{obj{"domain_id": "MLA-BIG"}}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "required fields are incomplete", "products_families.attributes", "at least one attribute is required"))
		v = a.Do("DELETE", items, obj{"products_families": []any{obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "VEHICLE_YEAR", "value_name": "0"}}}}}, apptest.Bearer(seller)...).OK(t, 200)
		if n := len(get(v, "deleted_compatibilities").([]any)); n != 125 {
			t.Fatalf("deleted %d, want 125", n)
		}
		// Update: more than 200 products per request.
		a.Do("PUT", items, obj{"update": obj{"products": ids(5000, 0, compat.MaxProducts+1)}}, apptest.Bearer(seller)...).Is(t, 400, tooManyProducts)
		// ... and the same through create+update in one PUT.
		a.Do("PUT", items, obj{"update": obj{"products": odd(75)}, "create": obj{"products": []any{obj{"id": "MLA5151"}},
			"products_families": []any{obj{"domain_id": "MLA-BIG", "attributes": []any{obj{"id": "VEHICLE_YEAR", "value_id": "0"}}}}}}, apptest.Bearer(seller)...).Is(t, 400, tooManyWithFamilies)
	})
}

func TestStateTable(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		// none + exception → exception reported; GET → true.
		a.Do("POST", items+"/exception", obj{"comment": "no vehicle in the catalog"}, apptest.Bearer(seller)...).OK(t, 200)
		if v := a.Do("GET", items+"/exception", nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"has_exception": true}) {
			t.Fatalf("exception = %v", v)
		}
		// none + POST products → has compatibilities; GET exception → false regardless.
		v := a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101"}}, "products_group": []any{obj{"ids": []string{"MLA102", "MLA201"}}}}, apptest.Bearer(seller)...).OK(t, 200)
		if diff := cmp.Diff(obj{"created_compatibilities_count": float64(3)}, v); diff != "" {
			t.Fatalf("create (-want +got):\n%s", diff)
		}
		if v := a.Do("GET", items+"/exception", nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"has_exception": false}) {
			t.Fatalf("exception with compatibilities = %v", v)
		}
		// Re-sent vehicles are not created twice.
		v = a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101"}, obj{"id": "MLA103"}}}, apptest.Bearer(seller)...).OK(t, 200)
		if diff := cmp.Diff(obj{"created_compatibilities_count": float64(1)}, v); diff != "" {
			t.Fatalf("re-create (-want +got):\n%s", diff)
		}
		// has compatibilities + universal → 400; + exception → 400.
		a.Do("POST", items, obj{"universal": true}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "the item has compatibilities that must be removed first"))
		a.Do("POST", items+"/exception", obj{"comment": "x"}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "the item has compatibilities"))
		// has compatibilities + DELETE → none; deleted ids returned.
		v = a.Do("DELETE", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		if n := len(get(v, "deleted_compatibilities").([]any)); n != 4 {
			t.Fatalf("deleted = %v", v)
		}
		// none + universal → universal, count 1; list shows the top domains.
		v = a.Do("POST", items, obj{"universal": true, "products": []any{}}, apptest.Bearer(seller)...).OK(t, 200)
		if diff := cmp.Diff(obj{"created_compatibilities_count": float64(1)}, v); diff != "" {
			t.Fatalf("universal (-want +got):\n%s", diff)
		}
		v = a.Do("GET", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(v, "catalog_compatibilities_count") != float64(0) || get(v, "universal.domain_ids.0") != "MLA-CARS_AND_VANS" || len(get(v, "universal.domain_ids").([]any)) != 14 {
			t.Fatalf("universal list = %v", v)
		}
		// universal + create → 400, by POST and by PUT.
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101"}}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "the item is universal and must be reset before creating compatibilities"))
		a.Do("PUT", items, obj{"create": obj{"products": []any{obj{"id": "MLA101"}}}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "the item is universal and must be reset before creating compatibilities"))
		// Universal with products, and nothing sent.
		a.Do("POST", items, obj{"universal": true, "products": []any{obj{"id": "MLA101"}}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "Invalid arguments for specific request", "body", "at least one of products, products_groups, products_families or universal must be sent", "universal", "with universal no products may be sent"))
		a.Do("POST", items, obj{}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "Invalid arguments for specific request", "body", "at least one of products, products_groups, products_families or universal must be sent", "universal", "with universal no products may be sent"))
		a.Do("POST", items, obj{"universal": false}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "Invalid arguments for specific request", "body", "at least one of products, products_groups, products_families or universal must be sent", "universal", "with universal no products may be sent"))
		// Categories without universal or without compatibilities.
		a.Do("POST", "/items/MLA1101/compatibilities", obj{"universal": true}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "no universal compatibility is configured for the item's category", "category_id", "category MLA1748 does not allow universal compatibilities"))
		a.Do("POST", "/items/MLA1102/compatibilities", obj{"universal": true}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "no compatibility is configured for the item's category", "category_id", "category MLA1749 takes no compatibilities"))
		// PUT universal false resets it; then creating works.
		v = a.Do("PUT", items, obj{"universal": false}, apptest.Bearer(seller)...).OK(t, 200)
		if get(v, "universal") != false {
			t.Fatalf("put universal false = %v", v)
		}
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101"}}}, apptest.Bearer(seller)...).OK(t, 200)
		// PUT universal true beside products is refused.
		a.Do("PUT", items, obj{"create": obj{"universal": true, "products": []any{obj{"id": "MLA102"}}}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "Invalid arguments for specific request", "body", "at least one of products, products_groups, products_families or universal must be sent", "universal", "with universal no products may be sent"))
	})
}

func TestExceptionErrors(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		a.Do("POST", "/items/MLA1103/compatibilities/exception", obj{"comment": "x"}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "item MLA1103 is closed"))
		a.Do("POST", "/items/MLA1102/compatibilities/exception", obj{"comment": "x"}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "the item's category has no compatibilities"))
		a.Do("POST", "/items/MLA1101/compatibilities/exception", obj{"comment": "x"}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "the item's category has no compatibilities"))
		a.Do("POST", items+"/exception", obj{}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "comment is required", "comment", "comment is required"))
		a.Do("POST", items+"/exception", nil, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "comment is required", "comment", "comment is required"))
		a.Do("POST", items+"/exception", obj{"comment": "  "}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "comment is required", "comment", "comment is required"))
		a.Do("POST", items+"/exception", obj{"comment": strings.Repeat("ñ", compat.MaxExceptionComment+1)}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", fmt.Sprintf("comment has %d characters; at most %d are allowed", compat.MaxExceptionComment+1, compat.MaxExceptionComment), "comment", compat.ErrCommentTooLong.Message))
		v := a.Do("POST", items+"/exception", obj{"comment": strings.Repeat("ñ", compat.MaxExceptionComment)}, apptest.Bearer(seller)...).OK(t, 200)
		if diff := cmp.Diff(obj{"has_exception": true}, v); diff != "" {
			t.Fatalf("exception (-want +got):\n%s", diff)
		}
		a.Do("POST", items+"/exception", obj{"comment": "again"}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "the item already has an exception"))
		if v := a.Do("GET", "/items/MLA1104/compatibilities/exception", nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"has_exception": false}) {
			t.Fatalf("no exception = %v", v)
		}
	})
}

func TestReadsUpdatesAndDeletes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		pos := []any{obj{"attribute_id": "POSITION", "attribute_values": []any{obj{"values": []any{obj{"value_id": "2"}}}}}}
		a.Do("POST", items, obj{
			"products":          []any{obj{"id": "MLA101", "note": "solo 5 puertas", "restrictions": pos}},
			"products_families": []any{obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": []any{obj{"id": "BRAND", "value_id": "67"}}, "creation_source": "ITEM_SUGGESTIONS"}},
		}, apptest.Bearer(seller)...).OK(t, 200)
		l := a.Do("GET", items+"?extended=true", nil, apptest.Bearer(seller)...).OK(t, 200)
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
		if diff := cmp.Diff(wantFirst, first); diff != "" {
			t.Fatalf("extended entry (-want +got):\n%s", diff)
		}
		if get(l, "products.1.creation_source") != "ITEM_SUGGESTIONS" || get(l, "products.1.catalog_product_id") != "MLA103" {
			t.Fatalf("family entry = %v", get(l, "products.1"))
		}
		// Without extended: no note, no restrictions.
		l = a.Do("GET", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		if _, ok := get(l, "products.0").(map[string]any)["note"]; ok {
			t.Fatalf("plain list shows notes: %v", l)
		}
		// One compatibility, its note, the extended check.
		one := a.Do("GET", items+"/"+id, nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(one, "note_status") != "PENDING" || get(one, "note") != "solo 5 puertas" {
			t.Fatalf("one = %v", one)
		}
		if v := a.Do("GET", items+"/"+id+"/note", nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"note": "solo 5 puertas"}) {
			t.Fatalf("note = %v", v)
		}
		a.Do("GET", items+"/nope", nil, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "compatibility nope not found"))
		a.Do("GET", items+"/nope/note", nil, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "compatibility nope not found"))
		if v := a.Do("GET", items+"/extended/check", nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"note": "true", "restrictions": "true"}) {
			t.Fatalf("check = %v", v)
		}
		if v := a.Do("GET", "/items/MLA1101/compatibilities/extended/check", nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"note": "false", "restrictions": "false"}) {
			t.Fatalf("check = %v", v)
		}
		// Update: empty note and restrictions remove them.
		v := a.Do("PUT", items, obj{"update": obj{"products": []any{obj{"id": "MLA101", "note": "", "restrictions": []any{}}}}}, apptest.Bearer(seller)...).OK(t, 200)
		want := obj{"update": obj{"products": []any{obj{"id": "MLA101", "note": "", "restrictions": []any{}}}}, "universal": false,
			"created_compatibilities_count": float64(0), "updated_compatibilities_count": float64(1), "deleted_compatibilities": []any{}}
		if diff := cmp.Diff(want, v); diff != "" {
			t.Fatalf("put (-want +got):\n%s", diff)
		}
		one = a.Do("GET", items+"/"+id, nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(one, "note") != "" || get(one, "note_status") != "NONE" || len(get(one, "restrictions").([]any)) != 0 {
			t.Fatalf("after removal = %v", one)
		}
		// Update of a vehicle the item lacks → 404; update errors as create.
		a.Do("PUT", items, obj{"update": obj{"products": []any{obj{"id": "MLA102", "note": "x"}}}}, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "the item has no compatibility with product MLA102"))
		a.Do("PUT", items, obj{"update": obj{"products": []any{obj{"id": "MLB1"}}}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "products or domains are not of the item's site", "products", "product MLB1 is not of site MLA"))
		a.Do("PUT", items, obj{"update": obj{"products": []any{obj{"id": "MLA301"}}}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "the item's domain is not compatible with the specified domains", "domain_id", "item domain MLA-CAR_SHOCK_ABSORBERS is not compatible with MLA-TRUCKS"))
		a.Do("PUT", items, obj{"update": obj{"products": []any{obj{}}}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "required fields are incomplete", "update.products.id", "product id is required"))
		a.Do("PUT", items, obj{"update": obj{"products": []any{obj{"id": "X1"}}}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "ids are badly formatted", "update.products.id", "product id X1 is badly formatted"))
		a.Do("PUT", items, obj{}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "Invalid arguments for specific request", "body", "at least one of products, products_groups, products_families or universal must be sent", "universal", "with universal no products may be sent"))
		// PUT create + delete in one transaction.
		v = a.Do("PUT", items, obj{"create": obj{"products": []any{obj{"id": "MLA102"}}}, "delete": obj{"products": []any{obj{"id": "MLA103"}}}}, apptest.Bearer(seller)...).OK(t, 200)
		if get(v, "created_compatibilities_count") != float64(1) || len(get(v, "deleted_compatibilities").([]any)) != 1 {
			t.Fatalf("put create+delete = %v", v)
		}
		// A PUT whose create fails leaves the delete undone.
		a.Do("PUT", items, obj{"delete": obj{"products": []any{obj{"id": "MLA102"}}}, "create": obj{"products": []any{obj{"id": "MLA9999"}}}}, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "product MLA9999 not found", "products", "product MLA9999 does not exist"))
		l = a.Do("GET", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(l, "catalog_compatibilities_count") != float64(2) {
			t.Fatalf("failed PUT changed the item: %v", l)
		}
		// Summary.
		s := a.Do("POST", "/items/compatibilities_summary", obj{"domain_id": "MLA-CARS_AND_VANS", "items": []string{"MLA1100", "MLA1104"}}, apptest.Bearer(seller)...).OK(t, 200)
		wantS := []any{
			obj{"item_id": "MLA1100", "item_title": "Item MLA1100", "compatibilities_count": float64(2), "compatibilities_claims_count": float64(0), "notes_count": float64(0), "restrictions_count": float64(0)},
			obj{"item_id": "MLA1104", "item_title": "Item MLA1104", "compatibilities_count": float64(0), "compatibilities_claims_count": float64(0), "notes_count": float64(0), "restrictions_count": float64(0)},
		}
		if diff := cmp.Diff(wantS, s); diff != "" {
			t.Fatalf("summary (-want +got):\n%s", diff)
		}
		a.Do("POST", "/items/compatibilities_summary", obj{"domain_id": "MLA-CARS_AND_VANS", "items": []string{}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "required fields are incomplete", "items", "items are required"))
		a.Do("POST", "/items/compatibilities_summary", obj{"domain_id": "MLA-CARS_AND_VANS", "items": []string{"MLA777"}}, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "item MLA777 not found"))
		// Delete one.
		v = a.Do("DELETE", items+"/"+id, nil, apptest.Bearer(seller)...).OK(t, 200)
		if diff := cmp.Diff(obj{"deleted_compatibilities": []any{id}}, v); diff != "" {
			t.Fatalf("delete one (-want +got):\n%s", diff)
		}
		a.Do("DELETE", items+"/"+id, nil, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "compatibility "+id+" not found"))
		// Item read (the world's): HAS_COMPATIBILITIES follows the rows.
		l = a.Do("GET", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(l, "catalog_compatibilities_count") != float64(1) {
			t.Fatalf("after delete one = %v", l)
		}
	})
}
