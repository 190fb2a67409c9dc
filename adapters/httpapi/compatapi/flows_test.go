package compatapi_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hibiken/asynq"

	"github.com/feria/feria/test/apptest"
)

func order(id int, sel any, claim bool) obj {
	return obj{"id": id, "site_id": "MLA", "seller_id": 123, "buyer_id": 789, "pack_id": nil, "status": "paid",
		"items":    []any{obj{"item_id": "MLA1100", "quantity": 1, "unit_price": 1000}},
		"shipping": obj{"id": 40000 + id, "logistic_type": "drop_off"}, "has_claim": claim, "compatibility_selection": sel}
}

func selection(product string) obj {
	return obj{"product_id": product, "label_values": []any{obj{"label": "Marca", "value_name": "Ford",
		"values": []any{obj{"attribute_id": "BRAND", "value_id": "9909"}}}}}
}

func compatID(t *testing.T, a *apptest.App, item, product string) string {
	t.Helper()
	l := a.Do("GET", "/items/"+item+"/compatibilities", nil, apptest.Bearer(seller)...).OK(t, 200)
	for _, e := range get(l, "products").([]any) {
		if get(e, "catalog_product_id") == product {
			return get(e, "id").(string)
		}
	}
	t.Fatalf("%s has no compatibility with %s: %v", item, product, l)
	return ""
}

// has reports whether the object v has (want true) or lacks (want false) key.
func has(v any, key string, want bool) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, found := m[key]
	return found == want
}

func TestSnapshotsAndReputation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		pos := []any{obj{"attribute_id": "POSITION", "attribute_values": []any{obj{"values": []any{obj{"value_id": "1"}}}}}}
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101", "restrictions": pos}, obj{"id": "MLA103"}}}, apptest.Bearer(seller)...).OK(t, 200)
		id := compatID(t, a, "MLA1100", "MLA101")
		a.MustLoad(obj{"orders": []any{
			order(9001, selection("MLA101"), true), order(9002, selection("MLA101"), true), order(9003, selection("MLA101"), true),
			order(9004, selection("MLA102"), true), order(9005, nil, true), order(9006, selection("MLA101"), false),
			order(9007, selection("MLA103"), true), order(9008, selection("MLA103"), true),
		}})
		snap := "/compats-snapshots/orders/"
		v := a.Do("GET", snap+"9001", nil, apptest.Bearer(seller)...).OK(t, 200)
		created := get(v, "date_created")
		want := obj{"item_id": "MLA1100", "seller_id": "123", "product_id": "MLA101",
			"user_selection":        obj{"label_values": []any{obj{"label": "Marca", "value_name": "Ford", "values": []any{obj{"attribute_id": "BRAND", "value_id": "9909"}}}}},
			"compatibility_status":  obj{"compatibility": "CONFIRMED", "compatibility_id": id},
			"compatibility_deleted": false, "date_created": created, "date_updated": created}
		if diff := cmp.Diff(want, v); diff != "" {
			t.Fatalf("confirmed (-want +got):\n%s", diff)
		}
		v = a.Do("GET", snap+"9004", nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(v, "compatibility_status") == nil || !reflect.DeepEqual(get(v, "compatibility_status"), obj{"compatibility": "INCOMPATIBLE"}) || get(v, "product_id") != "MLA102" ||
			get(v, "user_selection.label_values.0.label") != "Marca" {
			t.Fatalf("incompatible = %v", v)
		}
		v = a.Do("GET", snap+"9005", nil, apptest.Bearer(seller)...).OK(t, 200)
		if !reflect.DeepEqual(get(v, "compatibility_status"), obj{"compatibility": "NO_USER_SELECTION", "note": "", "restrictions": []any{}}) || !has(v, "product_id", false) || !reflect.DeepEqual(get(v, "user_selection"), obj{"label_values": []any{}}) {
			t.Fatalf("no selection = %v", v)
		}
		// The four error rows.
		a.Do("GET", snap+"1", nil, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "snapshot for the order id not found"))
		a.Do("GET", snap+"abc", nil, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "snapshot for the order id not found", "order_id", "order id must be a positive integer"))
		a.Do("GET", snap+"9001", nil, apptest.Bearer("APP_USR-nope")...).Is(t, 401, apptest.Err(401, "unauthorized", "Invalid access token"))
		a.Do("GET", snap+"9001", nil, apptest.Bearer("")...).Is(t, 401, apptest.Err(401, "unauthorized", "Invalid access token"))
		a.Do("GET", snap+"9006", nil, apptest.Bearer(seller)...).Is(t, 403, apptest.Err(403, "forbidden", "snapshot only for orders with claims"))
		a.Do("GET", snap+"9001", nil, apptest.Bearer(other)...).Is(t, 403, apptest.Err(403, "forbidden", "caller must be the seller of the item"))
		a.Do("GET", snap+"9001", nil, apptest.Bearer(buyer)...).Is(t, 403, apptest.Err(403, "forbidden", "caller must be the seller of the item"))

		// Reputation: 3 claims confirmed MLA101 (RED above 2); MLA103 has 2.
		l := a.Do("GET", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		if !reflect.DeepEqual(get(l, "products.0.reputation"), obj{"level": "RED", "total_claims": float64(3)}) ||
			!reflect.DeepEqual(get(l, "products.1.reputation"), obj{"level": "GREEN", "total_claims": float64(2)}) {
			t.Fatalf("reputation = %v", l)
		}
		for _, path := range []string{"/items/catalog_domains/MLA-CAR_SHOCK_ABSORBERS/compatibilities/cards", "/catalog_domains/MLA-CAR_SHOCK_ABSORBERS/compatibilities/cards"} {
			v = a.Do("POST", path, obj{"item_id": "MLA1100", "filters": []string{"REPUTATION"}}, apptest.Bearer(seller)...).OK(t, 200)
			if !reflect.DeepEqual(v, []any{obj{"title": "Compatibilities with claims", "subtitle": "Vehicles buyers reported as not fitting this item", "filter": "REPUTATION", "quantity": float64(1)}}) {
				t.Fatalf("cards %s = %v", path, v)
			}
		}
		s := a.Do("POST", "/items/compatibilities_summary", obj{"domain_id": "MLA-CARS_AND_VANS", "items": []string{"MLA1100"}}, apptest.Bearer(seller)...).OK(t, 200)
		if get(s, "0.compatibilities_claims_count") != float64(5) || get(s, "0.restrictions_count") != float64(1) {
			t.Fatalf("summary = %v", s)
		}
		// A second store of an order keeps its snapshot.
		a.Sandbox("PUT", "/orders/9006", order(9006, nil, true)).HasStatus(t, 200)
		v = a.Do("GET", snap+"9006", nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(v, "compatibility_status.compatibility") != "CONFIRMED" {
			t.Fatalf("re-stored order snapshot = %v", v)
		}
		// Deleting the compatibility marks its snapshots.
		a.Do("DELETE", items+"/"+id, nil, apptest.Bearer(seller)...).OK(t, 200)
		v = a.Do("GET", snap+"9001", nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(v, "compatibility_deleted") != true || get(v, "compatibility_status.compatibility_id") != id {
			t.Fatalf("after delete = %v", v)
		}
		if v = a.Do("GET", snap+"9007", nil, apptest.Bearer(seller)...).OK(t, 200); get(v, "compatibility_deleted") != false {
			t.Fatalf("other snapshot touched: %v", v)
		}
	})
}

func TestSuggestionsAndCards(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		cards := "/items/catalog_domains/MLA-CAR_SHOCK_ABSORBERS/compatibilities/cards"
		suggested := func(item string, want float64) {
			t.Helper()
			v := a.Do("POST", cards, obj{"item_id": item, "product_id": "MLA9000", "filters": []string{"SUGGESTED", "REPUTATION"}}, apptest.Bearer(seller)...).OK(t, 200)
			if get(v, "0.filter") != "SUGGESTED" || get(v, "0.quantity") != want || get(v, "1.filter") != "REPUTATION" {
				t.Fatalf("cards of %s = %v, want %v suggested", item, v, want)
			}
			// The item read (the world's) agrees on pending_compatibilities.
			it := a.Do("GET", "/items/"+item, nil, apptest.Bearer("")...).OK(t, 200)
			pending := false
			for _, tag := range get(it, "tags").([]any) {
				pending = pending || tag == "pending_compatibilities"
			}
			if pending != (want > 0) {
				t.Fatalf("item %s tags %v, want pending %v", item, get(it, "tags"), want > 0)
			}
		}
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101"}}}, apptest.Bearer(seller)...).OK(t, 200)
		suggested("MLA1100", 0)
		// Another seller's active item with the same catalog product.
		a.Do("POST", "/items/MLA1200/compatibilities", obj{"products": []any{obj{"id": "MLA101"}, obj{"id": "MLA102"}, obj{"id": "MLA103"}}}, apptest.Bearer(other)...).OK(t, 200)
		suggested("MLA1100", 2)
		// Accepting a suggestion.
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA102", "creation_source": "ITEM_SUGGESTIONS"}}}, apptest.Bearer(seller)...).OK(t, 200)
		suggested("MLA1100", 1)
		v := a.Do("GET", items+"/"+compatID(t, a, "MLA1100", "MLA102"), nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(v, "creation_source") != "ITEM_SUGGESTIONS" {
			t.Fatalf("accepted = %v", v)
		}
		// By part number.
		a.Do("POST", "/items/MLA1104/compatibilities", obj{"products": []any{obj{"id": "MLA201"}}}, apptest.Bearer(seller)...).OK(t, 200)
		suggested("MLA1105", 1)
		suggested("MLA1104", 0)
		// Errors.
		a.Do("POST", cards, obj{"item_id": "MLA1100"}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "filters must be REPUTATION, SUGGESTED or both", "filters", "filters are required"))
		a.Do("POST", cards, obj{"item_id": "MLA1100", "filters": []string{"OTHER"}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "filters must be REPUTATION, SUGGESTED or both", "filters", "unknown filter OTHER"))
		a.Do("POST", cards, obj{"filters": []string{"SUGGESTED"}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "required fields are incomplete", "item_id", "item_id is required"))
		a.Do("POST", cards, obj{"item_id": "MLA1200", "filters": []string{"SUGGESTED"}}, apptest.Bearer(seller)...).Is(t, 403, apptest.Err(403, "forbidden", "the caller has no permission on item MLA1200"))
		a.Do("POST", "/items/catalog_domains/MLA-NOPE/compatibilities/cards", obj{"item_id": "MLA1100", "filters": []string{"SUGGESTED"}}, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "domain MLA-NOPE not found"))
	})
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestNoteModeration(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		a.StartWorkers()
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101", "note": "Solo versión 5 puertas"},
			obj{"id": "MLA102", "note": "mirá instagram.com/tienda"}}}, apptest.Bearer(seller)...).OK(t, 200)
		good, bad := compatID(t, a, "MLA1100", "MLA101"), compatID(t, a, "MLA1100", "MLA102")
		status := func(id string) any {
			return get(a.Do("GET", items+"/"+id, nil, apptest.Bearer(seller)...).OK(t, 200), "note_status")
		}
		waitFor(t, "moderation", func() bool { return status(good) == "APPROVED" && status(bad) == "REJECTED" })
		// A changed note goes back to PENDING and is moderated again.
		a.Do("PUT", items, obj{"update": obj{"products": []any{obj{"id": "MLA102", "note": "Solo 3 puertas"}}}}, apptest.Bearer(seller)...).OK(t, 200)
		waitFor(t, "second moderation", func() bool { return status(bad) == "APPROVED" })
	})
}

// copyTasks returns the copy tasks written to the outbox.
func copyTasks(t *testing.T, a *apptest.App) []*asynq.Task {
	t.Helper()
	var rows []struct {
		TaskType string `bun:"task_type"`
		Payload  string `bun:"payload"`
	}
	if err := a.Deps.DB.NewRaw(`SELECT task_type, payload FROM outbox WHERE task_type = 'compat:copy' ORDER BY created_at`).Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	out := make([]*asynq.Task, len(rows))
	for i, r := range rows {
		out[i] = asynq.NewTask(r.TaskType, []byte(r.Payload))
	}
	return out
}

func count(t *testing.T, a *apptest.App, item string) float64 {
	t.Helper()
	return get(a.Do("GET", "/items/"+item+"/compatibilities", nil, apptest.Bearer(seller)...).OK(t, 200), "catalog_compatibilities_count").(float64)
}

func TestCopies(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		pos := []any{obj{"attribute_id": "POSITION", "attribute_values": []any{obj{"values": []any{obj{"value_id": "1"}}}}}}
		a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101", "note": "n1", "restrictions": pos},
			obj{"id": "MLA102", "note": "n2"}, obj{"id": "MLA201"}}}, apptest.Bearer(seller)...).OK(t, 200)

		// POST: 200 at once with no body; the job copies.
		r := a.Do("POST", "/items/MLA1104/compatibilities", obj{"item_to_copy": obj{"item_id": "MLA1100", "extended_information": false}}, apptest.Bearer(seller)...)
		r.HasStatus(t, 200)
		if ct := r.Header.Get("Content-Type"); len(r.Body) != 0 || ct != "text/plain; charset=utf-8" {
			t.Fatalf("copy = %d %q %q, want no body as docs/openapi.yaml declares it", r.Status, ct, r.Body)
		}
		if n := count(t, a, "MLA1104"); n != 0 {
			t.Fatalf("copied before the job ran: %v", n)
		}
		tasks := copyTasks(t, a)
		if len(tasks) != 1 {
			t.Fatalf("%d copy tasks", len(tasks))
		}
		if err := a.ProcessTask(context.Background(), tasks[0]); err != nil {
			t.Fatal(err)
		}
		// Onto an item without compatibilities everything is copied, and
		// without extended information no note or restriction travels.
		l := a.Do("GET", "/items/MLA1104/compatibilities?extended=true", nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(l, "catalog_compatibilities_count") != float64(3) || get(l, "products.0.note") != "" || len(get(l, "products.0.restrictions").([]any)) != 0 ||
			get(l, "products.0.creation_source") != "ITEM_COPY" {
			t.Fatalf("copied = %v", l)
		}
		// The worker crashed before acknowledging: the task runs again, even
		// after the seller deleted a copied vehicle, and copies nothing twice.
		a.Do("DELETE", "/items/MLA1104/compatibilities/"+compatID(t, a, "MLA1104", "MLA201"), nil, apptest.Bearer(seller)...).OK(t, 200)
		if err := a.ProcessTask(context.Background(), tasks[0]); err != nil {
			t.Fatal(err)
		}
		if n := count(t, a, "MLA1104"); n != 2 {
			t.Fatalf("after retry %v compatibilities, want 2", n)
		}
		// A malformed payload is archived, not retried.
		if err := a.ProcessTask(context.Background(), asynq.NewTask("compat:copy", []byte("{"))); err == nil || !errorsIsSkip(err) {
			t.Fatalf("bad payload: %v", err)
		}

		// PUT: synchronous, onto an item with compatibilities only vehicles
		// not yet present, with notes and restrictions (extended).
		a.Do("POST", "/items/MLA1105/compatibilities", obj{"products": []any{obj{"id": "MLA101", "note": "mine"}}}, apptest.Bearer(seller)...).OK(t, 200)
		v := a.Do("PUT", "/items/MLA1105/compatibilities", obj{"create": obj{"item_to_copy": obj{"item_id": "MLA1100", "extended_information": true}}}, apptest.Bearer(seller)...).OK(t, 200)
		if get(v, "catalog_compatibilities_count") != float64(2) || get(v, "products.0.catalog_product_id") != "MLA102" ||
			get(v, "products.0.note") != "n2" || get(v, "products.1.catalog_product_id") != "MLA201" {
			t.Fatalf("PUT copy = %v", v)
		}
		one := a.Do("GET", "/items/MLA1105/compatibilities/"+compatID(t, a, "MLA1105", "MLA101"), nil, apptest.Bearer(seller)...).OK(t, 200)
		if get(one, "note") != "mine" {
			t.Fatalf("existing vehicle overwritten: %v", one)
		}
		if n := count(t, a, "MLA1105"); n != 3 {
			t.Fatalf("MLA1105 has %v, want 3", n)
		}
		// Extended copy onto a category without notes and restrictions drops them.
		v = a.Do("PUT", "/items/MLA1101/compatibilities", obj{"create": obj{"item_to_copy": obj{"item_id": "MLA1100", "extended_information": true}}}, apptest.Bearer(seller)...).OK(t, 200)
		if get(v, "products.0.note") != "" {
			t.Fatalf("note copied into a category without notes: %v", v)
		}

		// Errors.
		a.Do("POST", "/items/MLA1104/compatibilities", obj{"item_to_copy": obj{}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "required fields are incomplete", "item_to_copy.item_id", "item_id is required"))
		a.Do("POST", "/items/MLA1104/compatibilities", obj{"item_to_copy": obj{"item_id": "MLA1200"}}, apptest.Bearer(seller)...).Is(t, 403, apptest.Err(403, "forbidden", "the caller has no permission on item MLA1200"))
		a.Do("PUT", "/items/MLA1104/compatibilities", obj{"create": obj{"item_to_copy": obj{"item_id": "MLA777"}}}, apptest.Bearer(seller)...).Is(t, 404, apptest.Err(404, "not_found", "item MLA777 not found"))
		a.Do("DELETE", "/items/MLA1104/compatibilities", nil, apptest.Bearer(seller)...).OK(t, 200)
		a.Do("POST", "/items/MLA1104/compatibilities", obj{"universal": true}, apptest.Bearer(seller)...).OK(t, 200)
		a.Do("POST", "/items/MLA1104/compatibilities", obj{"item_to_copy": obj{"item_id": "MLA1100"}}, apptest.Bearer(seller)...).Is(t, 400, apptest.Err(400, "bad_request", "the item is universal and must be reset before creating compatibilities"))

		// Through the real workers and relay, on the bulk queue.
		a.StartWorkers()
		r = a.Do("POST", "/items/MLA1103/compatibilities", obj{"item_to_copy": obj{"item_id": "MLA1100", "extended_information": true}}, apptest.Bearer(seller)...)
		r.HasStatus(t, 200)
		waitFor(t, "copy by the workers", func() bool { return count(t, a, "MLA1103") == 3 })
	})
}

func errorsIsSkip(err error) bool { return errors.Is(err, asynq.SkipRetry) }
