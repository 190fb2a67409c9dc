package compatapi_test

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/test/apptest"
	"github.com/google/go-cmp/cmp"
)

// Tests of the decisions of docs/decisions.md not covered elsewhere,
// and of the answer shapes and invariants the contract states for every path.

// consistent checks that the item read and the list agree with the stored
// compatibilities: catalog_compatibilities_count is the number listed, and
// HAS_COMPATIBILITIES is present exactly when the item has some (or is
// universal).
func consistent(t *testing.T, a *apptest.App, item string, want int, universal bool) {
	t.Helper()
	l := a.Do("GET", "/items/"+item+"/compatibilities", nil, apptest.Bearer(seller)...).OK(t, 200)
	if get(l, "catalog_compatibilities_count") != float64(want) || len(get(l, "products").([]any)) != want {
		t.Fatalf("%s: list %v, want %d compatibilities", item, l, want)
	}
	if _, ok := l.(map[string]any)["universal"]; ok != universal {
		t.Fatalf("%s: universal in list = %v, want %v: %v", item, ok, universal, l)
	}
	it := a.Do("GET", "/items/"+item, nil, apptest.Bearer(seller)...).OK(t, 200)
	var has any
	for _, at := range get(it, "attributes").([]any) {
		if get(at, "id") == "HAS_COMPATIBILITIES" {
			has = at
		}
	}
	if (has != nil) != (want > 0 || universal) {
		t.Fatalf("%s: HAS_COMPATIBILITIES = %v with %d compatibilities (universal %v)", item, has, want, universal)
	}
	if has != nil && get(has, "value_type") != "boolean" {
		t.Fatalf("%s: HAS_COMPATIBILITIES = %v, want value_type boolean", item, has)
	}
}

func TestCountsStayConsistentOnEveryPath(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		consistent(t, a, "MLA1100", 0, false)
		// create
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101"}, obj{"id": "MLA201"}},
			"products_families": []any{obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": []any{obj{"id": "BRAND", "value_id": "67"}}}}}, apptest.Bearer(seller)...).OK(t, 200)
		consistent(t, a, "MLA1100", 3, false)
		// PUT create + delete
		a.Do("PUT", items, obj{"create": obj{"products": []any{obj{"id": "MLA102"}}}, "delete": obj{"products": []any{obj{"id": "MLA201"}}}}, apptest.Bearer(seller)...).OK(t, 200)
		consistent(t, a, "MLA1100", 3, false)
		// PUT update leaves the count
		a.Do("PUT", items, obj{"update": obj{"products": []any{obj{"id": "MLA102", "note": "x"}}}}, apptest.Bearer(seller)...).OK(t, 200)
		consistent(t, a, "MLA1100", 3, false)
		// delete one
		a.Do("DELETE", items+"/"+compatID(t, a, "MLA1100", "MLA102"), nil, apptest.Bearer(seller)...).OK(t, 200)
		consistent(t, a, "MLA1100", 2, false)
		// delete by family (Fiat: MLA103)
		v := a.Do("DELETE", items, obj{"products_families": []any{obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": []any{obj{"id": "BRAND", "values": []any{obj{"id": "67", "name": "Fiat"}}}}}}}, apptest.Bearer(seller)...).OK(t, 200)
		if len(get(v, "deleted_compatibilities").([]any)) != 1 {
			t.Fatalf("delete by family = %v", v)
		}
		consistent(t, a, "MLA1100", 1, false)
		// copy (PUT, synchronous) onto an empty item
		a.Do("PUT", "/items/MLA1104/compatibilities", obj{"create": obj{"item_to_copy": obj{"item_id": "MLA1100", "extended_information": false}}}, apptest.Bearer(seller)...).OK(t, 200)
		consistent(t, a, "MLA1104", 1, false)
		// copy (POST, by the job)
		a.Do("POST", "/items/MLA1105/compatibilities", obj{"item_to_copy": obj{"item_id": "MLA1100", "extended_information": false}}, apptest.Bearer(seller)...).OK(t, 200)
		consistent(t, a, "MLA1105", 0, false)
		for _, task := range copyTasks(t, a) {
			if err := a.ProcessTask(context.Background(), task); err != nil {
				t.Fatal(err)
			}
		}
		consistent(t, a, "MLA1105", 1, false)
		// delete all
		v = a.Do("DELETE", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		if len(get(v, "deleted_compatibilities").([]any)) != 1 {
			t.Fatalf("delete all = %v", v)
		}
		consistent(t, a, "MLA1100", 0, false)
		// universal, and its reset by PUT and by DELETE
		a.Do("POST", items, obj{"universal": true}, apptest.Bearer(seller)...).OK(t, 200)
		consistent(t, a, "MLA1100", 0, true)
		v = a.Do("PUT", items, obj{"universal": false}, apptest.Bearer(seller)...).OK(t, 200)
		if get(v, "universal") != false {
			t.Fatalf("PUT universal false = %v", v)
		}
		consistent(t, a, "MLA1100", 0, false)
		a.Do("PUT", items, obj{"universal": true}, apptest.Bearer(seller)...).OK(t, 200)
		consistent(t, a, "MLA1100", 0, true)
		v = a.Do("DELETE", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		if diff := cmp.Diff(obj{"deleted_compatibilities": []any{}}, v); diff != "" {
			t.Fatalf("delete of a universal item (-want +got):\n%s", diff)
		}
		consistent(t, a, "MLA1100", 0, false)
	})
}

// TestSummaryCap: at most 100 items (decision), the 100th accepted.
func TestSummaryCap(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101", "note": "n"}}}, apptest.Bearer(seller)...).OK(t, 200)
		many := make([]string, compat.MaxSummaryItems+1)
		for i := range many {
			many[i] = []string{"MLA1100", "MLA1104"}[i%2]
		}
		a.Do("POST", "/items/compatibilities_summary", obj{"items": many}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", compat.ErrTooManyItems.Message, "items", fmt.Sprintf("at most %d items", compat.MaxSummaryItems)))
		v := a.Do("POST", "/items/compatibilities_summary", obj{"items": many[:compat.MaxSummaryItems]}, apptest.Bearer(seller)...).OK(t, 200)
		if len(v.([]any)) != compat.MaxSummaryItems {
			t.Fatalf("summary of %d items has %d entries", compat.MaxSummaryItems, len(v.([]any)))
		}
		want := obj{"item_id": "MLA1100", "item_title": "Item MLA1100", "compatibilities_count": float64(1),
			"compatibilities_claims_count": float64(0), "notes_count": float64(1), "restrictions_count": float64(0)}
		if diff := cmp.Diff(want, get(v, "0")); diff != "" {
			t.Fatalf("summary entry (-want +got):\n%s", diff)
		}
		// Without domain_id every vehicle domain counts; another domain none.
		v = a.Do("POST", "/items/compatibilities_summary", obj{"domain_id": "MLA-MOTOS", "items": []string{"MLA1100"}}, apptest.Bearer(seller)...).OK(t, 200)
		if get(v, "0.compatibilities_count") != float64(0) {
			t.Fatalf("summary of another domain = %v", v)
		}
		a.Do("POST", "/items/compatibilities_summary", obj{"domain_id": "MOTOS", "items": []string{"MLA1100"}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "ids are badly formatted", "domain_id", "domain_id must be <site_id>-<DOMAIN_NAME>"))
	})
}

// TestUniversalClearsException: becoming universal clears a reported
// exception for good (decision), not only while universal.
func TestUniversalClearsException(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		a.Do("POST", items+"/exception", obj{"comment": "no vehicle"}, apptest.Bearer(seller)...).OK(t, 200)
		a.Do("POST", items, obj{"universal": true}, apptest.Bearer(seller)...).OK(t, 200)
		if v := a.Do("GET", items+"/exception", nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"has_exception": false}) {
			t.Fatalf("universal item exception = %v", v)
		}
		l := a.Do("GET", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		want := obj{"products": []any{}, "catalog_compatibilities_count": float64(0),
			"universal": obj{"domain_ids": []any{"MLA-CARS_AND_VANS", "MLA-MOTOS", "MLA-BIG"}}}
		for i := 1; i <= 11; i++ {
			want["universal"].(obj)["domain_ids"] = append(want["universal"].(obj)["domain_ids"].([]any), fmt.Sprintf("MLA-V%d", i))
		}
		if diff := cmp.Diff(want, l); diff != "" {
			t.Fatalf("universal list (-want +got):\n%s", diff)
		}
		a.Do("DELETE", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		if v := a.Do("GET", items+"/exception", nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"has_exception": false}) {
			t.Fatalf("exception came back after the universal reset: %v", v)
		}
		// It can be reported again.
		a.Do("POST", items+"/exception", obj{"comment": "still none"}, apptest.Bearer(seller)...).OK(t, 200)
		if v := a.Do("GET", items+"/exception", nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"has_exception": true}) {
			t.Fatalf("exception = %v", v)
		}
	})
}

// TestCopySkipsDomainsTheTargetCannotTake: a moto-parts item takes the
// motorcycle of the source, not its cars (decision).
func TestCopySkipsDomainsTheTargetCannotTake(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		motoLink := link("MLA-MOTOS")
		a.MustLoad(obj{
			"domains": []any{obj{"id": "MLA-MOTO_PARTS", "site_id": "MLA", "main": false, "compatibilities": []any{motoLink}}},
			"items":   []any{item("MLA1106", 123, "MLA1747", "MLA-MOTO_PARTS", "active")},
		})
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101"}, obj{"id": "MLA102"}, obj{"id": "MLA201"}}}, apptest.Bearer(seller)...).OK(t, 200)
		v := a.Do("PUT", "/items/MLA1106/compatibilities", obj{"create": obj{"item_to_copy": obj{"item_id": "MLA1100", "extended_information": true}}}, apptest.Bearer(seller)...).OK(t, 200)
		if get(v, "catalog_compatibilities_count") != float64(1) || get(v, "products.0.catalog_product_id") != "MLA201" {
			t.Fatalf("copy onto moto parts = %v", v)
		}
		// The copied structure is the list shape with extended fields.
		var keys []string
		for k := range get(v, "products.0").(map[string]any) {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if fmt.Sprint(keys) != "[catalog_product_id catalog_product_name creation_source domain_id id note reputation restrictions source]" {
			t.Fatalf("copied entry fields = %v", keys)
		}
		consistent(t, a, "MLA1106", 1, false)
		// The reverse: nothing of a moto-only source fits... cars only.
		a.Do("DELETE", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101"}}}, apptest.Bearer(seller)...).OK(t, 200)
		v = a.Do("PUT", "/items/MLA1106/compatibilities", obj{"create": obj{"item_to_copy": obj{"item_id": "MLA1100"}}}, apptest.Bearer(seller)...).OK(t, 200)
		if diff := cmp.Diff(obj{"products": []any{}, "catalog_compatibilities_count": float64(0)}, v); diff != "" {
			t.Fatalf("copy of cars onto moto parts (-want +got):\n%s", diff)
		}
	})
}

// TestEveryItemRouteIsSellerOnly: 403 with body (a) for a valid token of
// someone who does not sell the item, on every item compatibility route.
func TestEveryItemRouteIsSellerOnly(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101", "note": "n"}}}, apptest.Bearer(seller)...).OK(t, 200)
		id := compatID(t, a, "MLA1100", "MLA101")
		const msg = "the caller has no permission on item MLA1100"
		for _, r := range []struct {
			method, path string
			body         any
		}{
			{"POST", items, obj{"products": []any{obj{"id": "MLA102"}}}},
			{"POST", items, obj{"item_to_copy": obj{"item_id": "MLA1104"}}},
			{"PUT", items, obj{"create": obj{"products": []any{obj{"id": "MLA102"}}}}},
			{"PUT", items, obj{"create": obj{"item_to_copy": obj{"item_id": "MLA1104"}}}},
			{"GET", items, nil},
			{"GET", items + "?extended=true", nil},
			{"DELETE", items, nil},
			{"DELETE", items, obj{"products_families": []any{obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": []any{obj{"id": "BRAND", "value_id": "9909"}}}}}},
			{"GET", items + "/" + id, nil},
			{"GET", items + "/" + id + "/note", nil},
			{"DELETE", items + "/" + id, nil},
			{"GET", items + "/extended/check", nil},
			{"POST", items + "/exception", obj{"comment": "x"}},
			{"GET", items + "/exception", nil},
			{"POST", "/items/catalog_domains/MLA-CARS_AND_VANS/compatibilities/cards", obj{"item_id": "MLA1100", "filters": []string{"SUGGESTED"}}},
			{"POST", "/catalog_domains/MLA-CARS_AND_VANS/compatibilities/cards", obj{"item_id": "MLA1100", "filters": []string{"REPUTATION"}}},
			{"POST", "/items/compatibilities_summary", obj{"items": []string{"MLA1100"}}},
		} {
			a.Do(r.method, r.path, r.body, apptest.Bearer(other)...).Is(t, 403, apptest.Err(403, "forbidden", msg))
		}
		// Copying FROM another seller's item is refused the same way.
		a.Do("PUT", "/items/MLA1104/compatibilities", obj{"create": obj{"item_to_copy": obj{"item_id": "MLA1200"}}}, apptest.Bearer(seller)...).Is(t, 403, apptest.Err(403, "forbidden", "the caller has no permission on item MLA1200"))
		// Nothing changed.
		consistent(t, a, "MLA1100", 1, false)
		if v := a.Do("GET", items+"/"+id+"/note", nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"note": "n"}) {
			t.Fatalf("note = %v", v)
		}
	})
}

// TestAnswerShapes checks field names and types of the answers exactly as
// the contract writes them.
func TestAnswerShapes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		pos := []any{obj{"attribute_id": "POSITION", "attribute_values": []any{obj{"values": []any{obj{"value_id": "1"}, obj{"value_name": "trasera"}}}}}}
		v := a.Do("POST", items, obj{"products_group": []any{obj{"ids": []string{"MLA101", "MLA102"}, "note": "g", "restrictions": pos}}}, apptest.Bearer(seller)...).OK(t, 200)
		if diff := cmp.Diff(obj{"created_compatibilities_count": float64(2)}, v); diff != "" {
			t.Fatalf("create (-want +got):\n%s", diff)
		}
		id := compatID(t, a, "MLA1100", "MLA101")
		// Restrictions in answers: attribute_code and value_code integers.
		wantR := []any{obj{"attribute_id": "POSITION", "attribute_code": float64(1), "attribute_values": []any{obj{"values": []any{
			obj{"value_id": "1", "value_name": "Delantera", "value_code": float64(1)},
			obj{"value_id": "2", "value_name": "Trasera", "value_code": float64(2)}}}}}}
		one := a.Do("GET", items+"/"+id, nil, apptest.Bearer(seller)...).OK(t, 200)
		wantOne := obj{"id": id, "domain_id": "MLA-CARS_AND_VANS", "catalog_product_id": "MLA101", "catalog_product_name": "Ford Ka 2018",
			"source": "SELLER", "creation_source": "MANUAL", "note": "g", "note_status": "PENDING", "restrictions": wantR,
			"reputation": obj{"level": "GREEN", "total_claims": float64(0)}}
		if diff := cmp.Diff(wantOne, one); diff != "" {
			t.Fatalf("one (-want +got):\n%s", diff)
		}
		// The list: note and restrictions only with extended=true, never note_status.
		l := a.Do("GET", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		if _, ok := get(l, "products.0").(map[string]any)["note"]; ok {
			t.Fatalf("plain list shows the note: %v", l)
		}
		l = a.Do("GET", items+"?extended=true", nil, apptest.Bearer(seller)...).OK(t, 200)
		e := get(l, "products.0").(map[string]any)
		if _, ok := e["note_status"]; ok || e["note"] != "g" || !reflect.DeepEqual(e["restrictions"], wantR) {
			t.Fatalf("extended list entry = %v", e)
		}
		// A list read again is written from its kept encoding; a change
		// (the note) is a new list, in both forms.
		a.Do("PUT", items, obj{"update": obj{"products": []any{obj{"id": "MLA101", "note": "h"}}}}, apptest.Bearer(seller)...).OK(t, 200)
		l = a.Do("GET", items+"?extended=true", nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(l, "products.0.note") != "h" {
			t.Fatalf("the extended list after the note changed: %v", l)
		}
		if l = a.Do("GET", items, nil, apptest.Bearer(seller)...).OK(t, 200); get(l, "products.0.id") != id {
			t.Fatalf("the plain list after the note changed: %v", l)
		}
		a.Do("PUT", items, obj{"update": obj{"products": []any{obj{"id": "MLA101", "note": "g"}}}}, apptest.Bearer(seller)...).OK(t, 200)
		// Extended check: the strings "true" / "false".
		if v := a.Do("GET", items+"/extended/check", nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"note": "true", "restrictions": "true"}) {
			t.Fatalf("extended check = %v", v)
		}
		// Note.
		if v := a.Do("GET", items+"/"+id+"/note", nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"note": "g"}) {
			t.Fatalf("note = %v", v)
		}
		// Count: {count} integer.
		if v := a.Do("POST", "/catalog_compatibilities/products_search/count_family_products", obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": []any{obj{"id": "BRAND", "value_id": "9909"}}}, apptest.Bearer("")...).OK(t, 200); !reflect.DeepEqual(v, obj{"count": float64(2)}) {
			t.Fatalf("count = %v", v)
		}
		// Delete answers: {deleted_compatibilities: [ids]}.
		if v := a.Do("DELETE", items+"/"+id, nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"deleted_compatibilities": []any{id}}) {
			t.Fatalf("delete one = %v", v)
		}
		rest := compatID(t, a, "MLA1100", "MLA102")
		if v := a.Do("DELETE", items, nil, apptest.Bearer(seller)...).OK(t, 200); !reflect.DeepEqual(v, obj{"deleted_compatibilities": []any{rest}}) {
			t.Fatalf("delete all = %v", v)
		}
		// 404 rows: compatibility, on read, note and delete.
		a.Do("GET", items+"/"+id, nil, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "compatibility "+id+" not found"))
		a.Do("GET", items+"/"+id+"/note", nil, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "compatibility "+id+" not found"))
		a.Do("DELETE", items+"/"+id, nil, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "compatibility "+id+" not found"))
		a.Do("GET", "/items/MLA999/compatibilities/exception", nil, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "item MLA999 not found"))
	})
}

// TestDeleteFormatErrors: the delete row "wrong format" of the error table.
func TestDeleteFormatErrors(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101"}}}, apptest.Bearer(seller)...).OK(t, 200)
		a.Do("DELETE", items, `{"products_families": "MLA-CARS_AND_VANS"}`, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "field products_families must be an array, got string", "products_families", "products_families must be an array"))
		a.Do("DELETE", items, `{"products_families": [`, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "invalid JSON body: unexpected end of JSON input", "body", "unexpected end of JSON input"))
		a.Do("DELETE", items, obj{"products_families": []any{obj{"domain_id": "CARS", "attributes": []any{obj{"id": "BRAND", "value_id": "9909"}}}}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "ids are badly formatted", "products_families.domain_id", "domain_id must be <site_id>-<DOMAIN_NAME>"))
		a.Do("DELETE", items, obj{"products_families": []any{obj{"domain_id": "MLA-CARS_AND_VANS", "attributes": []any{obj{"values": []any{obj{"id": "9909"}}}}}}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "required fields are incomplete", "products_families.attributes.id", "attribute id is required"))
		a.Do("DELETE", items, obj{"products_families": []any{obj{"domain_id": "MLA-NOPE", "attributes": []any{obj{"id": "BRAND", "value_id": "1"}}}}}, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "domain MLA-NOPE not found"))
		consistent(t, a, "MLA1100", 1, false)
	})
}

// Each compatibility shows its vehicle's name as it is now: the name is
// kept on the compatibility's row (a trigger) and follows a rename of the
// product, in the list and in the one-compatibility read.
func TestListShowsTheVehicleNameOfNow(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101"}, obj{"id": "MLA102"}}}, apptest.Bearer(seller)...).OK(t, 200)
		names := func() map[string]any {
			t.Helper()
			out := map[string]any{}
			l := a.Do("GET", items, nil, apptest.Bearer(seller)...).OK(t, 200)
			for _, p := range get(l, "products").([]any) {
				out[get(p, "catalog_product_id").(string)] = get(p, "catalog_product_name")
			}
			return out
		}
		if got := names(); !reflect.DeepEqual(got, map[string]any{"MLA101": "Ford Ka 2018", "MLA102": "Ford Ka 2019"}) {
			t.Fatalf("names = %v", got)
		}
		renamed := product("MLA101", "MLA-CARS_AND_VANS", "Ford Ka 2018 SE", "MLA100", [3]string{"BRAND", "9909", "Ford"}, [3]string{"VEHICLE_YEAR", "18503", "2018"})
		delete(renamed, "id")
		a.Sandbox("PUT", "/products/MLA101", renamed).OK(t, 200)
		if got := names(); !reflect.DeepEqual(got, map[string]any{"MLA101": "Ford Ka 2018 SE", "MLA102": "Ford Ka 2019"}) {
			t.Fatalf("names after the rename = %v", got)
		}
		one := a.Do("GET", items+"/"+compatID(t, a, "MLA1100", "MLA101"), nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(one, "catalog_product_name") != "Ford Ka 2018 SE" {
			t.Fatalf("one compatibility after the rename: %v", one)
		}
	})
}
