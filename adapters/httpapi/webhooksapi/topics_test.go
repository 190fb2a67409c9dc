package webhooksapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
)

var (
	seller = apptest.Bearer("APP_USR-seller") // 123
	other  = apptest.Bearer("APP_USR-other")  // 124
	buyer  = apptest.Bearer("APP_USR-buyer")  // 456
)

// world adds to apptest.Sample what every topic's trigger needs: buyer 456
// with a token, category MLA2000 whose me2 logistics offer self_service and
// its item MLA2100, seller 123's FLEX subscription, and order 2000001 of
// MLA1100 sold by 123 to 456. It loads before any application exists, so
// it notifies nobody.
func world() map[string]any {
	return map[string]any{
		"users": []map[string]any{{"id": 456, "nickname": "BUYER", "site_id": "MLA", "access_token": "APP_USR-buyer"}},
		"categories": []map[string]any{{"id": "MLA2000", "site_id": "MLA", "name": "Auriculares", "domain_id": "MLA-HEADPHONES", "compatibilities": nil,
			"shipping_preferences": map[string]any{"dimensions": map[string]any{"height": 10, "width": 10, "length": 10, "weight": 200},
				"logistics": []any{map[string]any{"mode": "me2", "types": []string{"drop_off", "self_service"}}}, "restricted": false}}},
		"items": []map[string]any{{"id": "MLA2100", "site_id": "MLA", "seller_id": 123, "title": "Auriculares", "category_id": "MLA2000",
			"price": 100, "shipping": map[string]any{"mode": "me2", "logistic_type": "drop_off"}}},
		"orders":             []map[string]any{order("paid", 1)},
		"flex_subscriptions": []map[string]any{{"id": 3001, "site_id": "MLA", "user_id": 123, "mode": "FLEX", "status": "in"}},
	}
}

func order(status string, quantity int) map[string]any {
	return map[string]any{"id": 2000001, "site_id": "MLA", "seller_id": 123, "buyer_id": 456, "pack_id": nil, "status": status,
		"items": []any{map[string]any{"item_id": "MLA1100", "quantity": quantity, "unit_price": 15000}}, "shipping": map[string]any{"id": 40001}, "has_claim": false}
}

// key names a notification by application, topic and resource.
func key(n notification) string { return fmt.Sprintf("%d %s %s", n.ApplicationID, n.Topic, n.Resource) }

// Every trigger of docs/sandbox.md's topic table makes its notifications, for
// the applications that chose the topic and that the user granted, and
// nothing when the change changes nothing; each is posted once, with the
// exact body, and its resource reads with the user's token.
func TestEveryTopic(t *testing.T) {
	a := apptest.NewSample(t, apptest.Real)
	a.MustLoad(world())
	rx := newReceiver(t)
	cb := rx.srv.URL + "/notifications"
	everything := []string{"items", "questions", "orders_v2", "messages", "shipments", "flex-handshakes"}
	a.Sandbox("PUT", "/applications/789", application(cb, 123, everything, []int64{456}, fast, 500)).OK(t, 200)
	// 790 chose items, but 123 never granted it; 791 has 123's grant but
	// only orders.
	a.Sandbox("PUT", "/applications/790", application(cb, 124, []string{"items"}, nil, fast, 500)).OK(t, 200)
	a.Sandbox("PUT", "/applications/791", application(cb, 124, []string{"orders_v2"}, []int64{123}, fast, 500)).OK(t, 200)
	a.StartWorkers()

	seen := 0
	var questionID, messageID, sentID string
	step := func(name string, do func(), want ...string) {
		t.Helper()
		do()
		ns := notifications(t, a, "")
		for i := range want {
			want[i] = strings.NewReplacer("{message}", messageID, "{sent}", sentID).Replace(want[i])
		}
		var got []string
		for _, n := range ns[seen:] {
			got = append(got, key(n))
		}
		seen = len(ns)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: notified %q, want %q", name, got, want)
		}
	}
	ok := func(r apptest.Response, status int) {
		t.Helper()
		r.HasStatus(t, status)
	}
	item := apptest.Item("MLA1100", "PN-1", "active")
	item["title"] = "Amortiguador nuevo"
	step("an item changed by the sandbox", func() { ok(a.Sandbox("PUT", "/items/MLA1100", item), 200) }, "789 items /items/MLA1100")
	step("the same item again", func() { ok(a.Sandbox("PUT", "/items/MLA1100", item), 200) })
	step("an exception changes an item's tags", func() {
		ok(a.Do("POST", "/items/MLA1101/compatibilities/exception", map[string]string{"comment": "no vehicle in the catalog"}, seller...), 200)
	}, "789 items /items/MLA1101")
	step("local delivery enabled", func() { ok(a.Do("POST", "/sites/MLA/shipping/selfservice/items/MLA2100", nil, seller...), 204) }, "789 items /items/MLA2100")
	step("local delivery disabled", func() { ok(a.Do("DELETE", "/sites/MLA/shipping/selfservice/items/MLA2100", nil, seller...), 204) }, "789 items /items/MLA2100")
	step("local delivery enabled again", func() { ok(a.Do("POST", "/sites/MLA/shipping/selfservice/items/MLA2100", nil, seller...), 204) }, "789 items /items/MLA2100")
	step("a question", func() {
		r := a.Do("POST", "/questions", map[string]string{"item_id": "MLA1100", "text": "¿Tiene garantía?"}, buyer...)
		ok(r, 201)
		var q struct {
			ID int64 `json:"id"`
		}
		r.JSON(t, &q)
		questionID = fmt.Sprint(q.ID)
	}, "789 questions /questions/1")
	step("an answer", func() {
		ok(a.Do("POST", "/answers", map[string]any{"question_id": 1, "text": "Sí, 12 meses."}, seller...), 200)
	}, "789 questions /questions/1")
	step("an order changed", func() { ok(a.Sandbox("PUT", "/orders/2000001", order("cancelled", 2)), 200) },
		"789 orders_v2 /orders/2000001", "791 orders_v2 /orders/2000001")
	step("the same order again", func() { ok(a.Sandbox("PUT", "/orders/2000001", order("cancelled", 2)), 200) })
	step("a billing message", func() {
		r := a.Do("POST", "/packs/2000001/fiscal_documents/billing_info", `{"text":"Necesito tu CUIT"}`, seller...)
		ok(r, 201)
		var m struct {
			Message string `json:"message"`
		}
		r.JSON(t, &m)
		messageID = strings.Fields(m.Message)[1]
	}, "789 messages /messages/{message}")
	if ns := notifications(t, a, "?topic=messages"); len(ns) != 1 || !slices.Equal(ns[0].Actions, []string{"created"}) {
		t.Fatalf("message notification: %+v", ns)
	}
	step("an after-sale message of the buyer", func() {
		r := a.Do("POST", "/messages/packs/2000001/sellers/123?tag=post_sale", map[string]any{"from": map[string]any{"user_id": 456},
			"to": map[string]any{"user_id": 123}, "text": "¿Cuándo llega?"}, buyer...)
		ok(r, 201)
		var m struct {
			ID string `json:"id"`
		}
		r.JSON(t, &m)
		sentID = m.ID
	}, "789 messages /messages/{sent}")
	step("a new shipment with a driver", func() {
		ok(a.Sandbox("PUT", "/shipments/40001", map[string]any{"site_id": "MLA", "order_id": 2000001, "driver_id": 777}), 200)
	}, "789 shipments /shipments/40001", "789 flex-handshakes /flex/sites/MLA/shipments/40001/assignment/v1")
	step("a new shipment without a driver", func() {
		ok(a.Sandbox("PUT", "/shipments/40002", map[string]any{"site_id": "MLA", "order_id": 2000001, "driver_id": nil}), 200)
	}, "789 shipments /shipments/40002")
	step("the same shipment again", func() {
		ok(a.Sandbox("PUT", "/shipments/40002", map[string]any{"site_id": "MLA", "order_id": 2000001, "driver_id": nil}), 200)
	})
	step("a driver assigned", func() {
		ok(a.Sandbox("PUT", "/shipments/40002", map[string]any{"site_id": "MLA", "order_id": 2000001, "driver_id": 778}), 200)
	}, "789 shipments /shipments/40002", "789 flex-handshakes /flex/sites/MLA/shipments/40002/assignment/v1")
	if questionID != "1" {
		t.Fatalf("question id %s", questionID)
	}

	// Every notification is delivered, once, to the one callback.
	ns := waitFor(t, a, "", 20*time.Second, all(seen, "delivered"))
	posts := rx.posts()
	if len(posts) != len(ns) {
		t.Fatalf("%d posts for %d notifications", len(posts), len(ns))
	}
	byID := map[string]string{}
	for _, p := range posts {
		var b struct {
			ID string `json:"_id"`
		}
		_ = jsonUnmarshal(p.Body, &b)
		byID[b.ID] = p.Body
	}
	for _, n := range ns {
		body, ok := byID[n.ID]
		if !ok {
			t.Errorf("notification %s was never posted", key(n))
			continue
		}
		actions := ""
		if n.Topic == "messages" {
			actions = `"actions":["created"],`
		}
		want := fmt.Sprintf(`{"_id":"%s","resource":"%s","user_id":123,"topic":"%s",%s"application_id":%d,"attempts":1,"sent":"2026-11-20T12:00:00.000Z","received":"2026-11-20T12:00:00.000Z"}`,
			n.ID, n.Resource, n.Topic, actions, n.ApplicationID)
		if body != want {
			t.Errorf("posted body of %s:\n got %s\nwant %s", key(n), body, want)
		}
		if len(n.Deliveries) != 1 || n.Deliveries[0].Attempt != 1 || *n.Deliveries[0].HTTPCode != 200 || n.Deliveries[0].Error != nil ||
			n.Deliveries[0].At != "2026-11-20T12:00:00.000Z" {
			t.Errorf("deliveries of %s: %+v", key(n), n.Deliveries)
		}
	}
	noSecrets(t, rx)

	// Every notified resource reads with the seller's token, and only for
	// the users it concerns.
	for _, n := range ns {
		a.Do("GET", n.Resource, nil, seller...).HasStatus(t, 200)
	}
	a.Do("GET", "/orders/2000001", nil, buyer...).Is(t, 200, `{"id":2000001,"status":"cancelled","date_created":"2026-11-20T12:00:00Z","pack_id":null,
		"order_items":[{"item":{"id":"MLA1100"},"quantity":2,"unit_price":15000,"currency_id":"ARS"}],"total_amount":30000,"currency_id":"ARS",
		"buyer":{"id":456},"seller":{"id":123},"shipping":{"id":40001}}`)
	a.Do("GET", "/shipments/40002", nil, buyer...).Is(t, 200, `{"id":40002,"site_id":"MLA","order_id":2000001,"driver_id":778}`)
	a.Do("GET", "/questions/1", nil, buyer...).Is(t, 200, `{"id":1,"item_id":"MLA1100","seller_id":123,"from":{"id":456},"text":"¿Tiene garantía?","status":"ANSWERED","date_created":"2026-11-20T12:00:00Z",
		"answer":{"text":"Sí, 12 meses.","status":"ACTIVE","date_created":"2026-11-20T12:00:00Z"}}`)
	if r := a.Do("GET", "/messages/"+messageID, nil, buyer...).HasStatus(t, 200); !strings.Contains(string(r.Body), `"text":"Necesito tu CUIT"`) {
		t.Errorf("message for its buyer: %d %s", r.Status, r.Body)
	}
	for _, c := range []struct{ path, what string }{
		{"/orders/2000001", "the caller is neither the seller nor the buyer of order 2000001"},
		{"/shipments/40001", "the caller is neither the seller nor the buyer of the order of shipment 40001"},
		{"/questions/1", "question 1 is neither asked by the caller nor on the caller's item"},
		{"/messages/" + messageID, "the caller is neither the seller nor the buyer of the message's pack"},
	} {
		a.Do("GET", c.path, nil, other...).Is(t, 403, apptest.Err(403, "forbidden", c.what))
		a.Do("GET", c.path, nil).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
	}
	a.Do("GET", "/orders/4242", nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "order not found"))
	a.Do("GET", "/shipments/4242", nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "shipment not found"))
	a.Do("GET", "/questions/4242", nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "question not found"))
	a.Do("GET", "/messages/nope", nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "message not found"))
	a.Do("GET", "/orders/x", nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", `order_id must be a positive integer, got "x"`, "order_id", "order_id must be a positive integer"))
	a.Do("GET", "/questions/0", nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", `question_id must be a positive integer, got "0"`, "question_id", "question_id must be a positive integer"))
}
