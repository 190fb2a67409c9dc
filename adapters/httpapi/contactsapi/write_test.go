package contactsapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/test/apptest"
)

const total19to21 = "date_from=2026-11-19T00:00:00Z&date_to=2026-11-21T00:00:00Z"

func total(t *testing.T, a *apptest.App, path string) int {
	t.Helper()
	r := a.Do("GET", path+"?"+total19to21, nil)
	var v struct{ Total int }
	r.JSON(t, &v)
	r.HasStatus(t, 200)
	return v.Total
}

func TestContactEvents(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		// The same ids again, and one new: only the new one counts.
		r := a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]string{
			{"id": "q1", "item_id": "MLA1", "type": "question", "date": "2026-11-19T23:30:00Z"},
			{"id": "q1", "item_id": "MLA1", "type": "question", "date": "2026-11-19T23:30:00Z"},
			{"id": "q4", "item_id": "MLA1", "type": "question", "date": "2026-11-20T01:00:00Z"},
			{"id": "q4", "item_id": "MLA1", "type": "question", "date": "2026-11-20T01:00:00Z"},
		}})
		r.Is(t, 200, `{"accepted":1,"duplicates":3}`)
		if n := total(t, a, "/items/MLA1/contacts/questions"); n != 3 {
			t.Errorf("MLA1 questions = %d, want 3", n)
		}

		// An unknown item refuses the whole batch, in shape (a).
		r = a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]string{
			{"id": "n1", "item_id": "MLA1", "type": "question", "date": "2026-11-20T01:00:00Z"},
			{"id": "n2", "item_id": "MLA404", "type": "question", "date": "2026-11-20T01:00:00Z"},
		}})
		r.Is(t, 404, `{"message":"item MLA404 not found","error":"not_found","status":404,"cause":[]}`)
		// A bad field refuses it too, naming the field.
		r = a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]string{
			{"id": "n1", "item_id": "MLA1", "type": "question", "date": "2026-11-20T01:00:00Z"},
			{"id": "n3", "item_id": "MLA1", "type": "call", "date": "2026-11-20T01:00:00Z"},
		}})
		r.Is(t, 400, `{"message":"events[1].type: type must be question, phone_view or msgapp, got \"call\"","error":"bad_request","status":400,
				"cause":[{"code":"events[1].type","message":"type must be question, phone_view or msgapp, got \"call\""}]}`)
		r = a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]any{
			{"id": "n1", "item_id": "MLA1", "type": "question", "date": "2026-11-20T01:00:00Z"},
			{"id": "n4", "item_id": "MLA1", "type": "question", "date": "tomorrow"},
		}})
		r.Is(t, 400, `{"message":"events[1].date: date \"tomorrow\" is not an ISO 8601 date-time such as 2026-11-20T00:00:00Z or 2026-11-20T00:00:00-03:00","error":"bad_request","status":400,
				"cause":[{"code":"events[1].date","message":"date \"tomorrow\" is not an ISO 8601 date-time such as 2026-11-20T00:00:00Z or 2026-11-20T00:00:00-03:00"}]}`)
		r = a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]any{{"id": 5, "item_id": "MLA1", "type": "question", "date": "2026-11-20"}}})
		r.Is(t, 400, `{"message":"events[0].id must be a string","error":"bad_request","status":400,"cause":[{"code":"events[0].id","message":"events[0].id must be a string"}]}`)
		r = a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]any{{"item_id": "MLA1", "type": "question", "date": "2026-11-20"}}})
		r.Is(t, 400, `{"message":"events[0].id: id is required: a non-empty string","error":"bad_request","status":400,"cause":[{"code":"events[0].id","message":"id is required: a non-empty string"}]}`)
		r = a.Sandbox("POST", "/contact_events", map[string]any{})
		r.Is(t, 400, `{"message":"events is required: an array of events","error":"bad_request","status":400,"cause":[{"code":"events","message":"events is required"}]}`)
		if r := a.Sandbox("POST", "/contact_events", `{"events": "x"}`).HasStatus(t, 400); !strings.Contains(string(r.Body), `"events`) {
			t.Errorf("events not an array: %d %s", r.Status, r.Body)
		}
		if n := total(t, a, "/items/MLA1/contacts/questions"); n != 3 {
			t.Errorf("a refused batch counted: MLA1 questions = %d, want 3", n)
		}
		a.Sandbox("POST", "/contact_events", map[string]any{"events": []any{}}).Is(t, 200, `{"accepted":0,"duplicates":0}`)

		// PUT one event, again (a duplicate), GET it.
		body := map[string]string{"item_id": "MLA2", "type": "msgapp", "date": "2026-11-20T08:00:00-03:00"}
		a.Sandbox("PUT", "/contact_events/e-put", body).Is(t, 200, `{"id":"e-put","item_id":"MLA2","type":"msgapp","date":"2026-11-20T11:00:00Z","duplicate":false}`)
		a.Sandbox("PUT", "/contact_events/e-put", body).Is(t, 200, `{"id":"e-put","item_id":"MLA2","type":"msgapp","date":"2026-11-20T11:00:00Z","duplicate":true}`)
		a.Sandbox("GET", "/contact_events/e-put", nil).Is(t, 200, `{"id":"e-put","item_id":"MLA2","type":"msgapp","date":"2026-11-20T11:00:00Z"}`)
		a.Sandbox("GET", "/contact_events/nope", nil).Is(t, 404, `{"message":"contact event \"nope\" not found","error":"not_found","status":404,"cause":[]}`)
		if n := total(t, a, "/users/7/contacts/msgapp"); n != 2 {
			t.Errorf("seller 7 msgapp = %d, want 2", n)
		}

		// Fixtures: counted once every entry is valid; a bad entry
		// leaves nothing counted.
		r = a.Sandbox("POST", "/fixtures", map[string]any{"contact_events": []map[string]string{
			{"id": "f1", "item_id": "MLA3", "type": "phone_view", "date": "2026-11-20T05:00:00Z"},
			{"id": "f2", "item_id": "MLA404", "type": "phone_view", "date": "2026-11-20T05:00:00Z"},
		}})
		r.Is(t, 400, `{"message":"contact_events[1]: item MLA404 not found","error":"bad_request","status":400,
				"cause":[{"code":"contact_events[1]","message":"item MLA404 not found"}]}`)
		if n := total(t, a, "/items/MLA3/contacts/phone_views"); n != 0 {
			t.Errorf("a refused fixtures load counted %d events", n)
		}
		a.MustLoad(map[string]any{"contact_events": []map[string]string{
			{"id": "f1", "item_id": "MLA3", "type": "phone_view", "date": "2026-11-20T05:00:00Z"},
			{"id": "f3", "item_id": "MLA3", "type": "phone_view", "date": "2026-11-20T06:00:00Z"},
		}})
		if n := total(t, a, "/items/MLA3/contacts/phone_views"); n != 2 {
			t.Errorf("fixtures: MLA3 phone views = %d, want 2", n)
		}

		// DELETE /sandbox forgets every counter and event id.
		a.Sandbox("DELETE", "", nil).HasStatus(t, 204)
		seed(t, a)
		if n := total(t, a, "/users/7/contacts/questions"); n != 0 {
			t.Errorf("after reset seller 7 questions = %d, want 0", n)
		}
		a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]string{
			{"id": "q1", "item_id": "MLA1", "type": "question", "date": "2026-11-19T23:30:00Z"}}}).Is(t, 200, `{"accepted":1,"duplicates":0}`)
	})
}

func TestQuestions(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		buyer, seller := apptest.Bearer(buyerToken), apptest.Bearer(sellerToken)
		r := a.Do("POST", "/questions", map[string]string{"item_id": "MLA1", "text": "  ¿Hacen envíos?  "}, buyer...)
		var q struct{ ID int64 }
		r.JSON(t, &q)
		r.Is(t, 201, fmt.Sprintf(`{"id":%d,"item_id":"MLA1","seller_id":7,"from":{"id":9},"text":"¿Hacen envíos?","status":"UNANSWERED","date_created":"2026-11-20T12:00:00Z","answer":null}`, q.ID))
		r2 := a.Do("POST", "/questions", map[string]string{"item_id": "MLA1", "text": "¿Color?"}, buyer...)
		var q2 struct{ ID int64 }
		r2.JSON(t, &q2)
		r2.HasStatus(t, 201)
		if q2.ID == q.ID {
			t.Fatalf("second ask: %d %s", r2.Status, r2.Body)
		}
		// Counted as question events of the item and its seller.
		if n := total(t, a, "/items/MLA1/contacts/questions"); n != 4 {
			t.Errorf("MLA1 questions = %d, want 4", n)
		}
		if n := total(t, a, "/users/7/contacts/questions"); n != 5 {
			t.Errorf("seller 7 questions = %d, want 5", n)
		}
		a.Sandbox("GET", fmt.Sprintf("/contact_events/question-%d", q.ID), nil).Is(t, 200, fmt.Sprintf(`{"id":"question-%d","item_id":"MLA1","type":"question","date":"2026-11-20T12:00:00Z"}`, q.ID))

		a.Do("GET", "/questions/search?item_id=MLA1", nil, seller...).Is(t, 200, fmt.Sprintf(`{"total":2,"limit":50,"questions":[
				{"id":%d,"item_id":"MLA1","seller_id":7,"from":{"id":9},"text":"¿Color?","status":"UNANSWERED","date_created":"2026-11-20T12:00:00Z","answer":null},
				{"id":%d,"item_id":"MLA1","seller_id":7,"from":{"id":9},"text":"¿Hacen envíos?","status":"UNANSWERED","date_created":"2026-11-20T12:00:00Z","answer":null}],
				"paging":{"total":2,"offset":0,"limit":50}}`, q2.ID, q.ID))
		// item is the marketplace's documented name of item_id.
		a.Do("GET", "/questions/search?item=MLA1&limit=1&offset=1&access_token="+sellerToken, nil).Is(t, 200, fmt.Sprintf(`{"total":2,"limit":1,"questions":[
				{"id":%d,"item_id":"MLA1","seller_id":7,"from":{"id":9},"text":"¿Hacen envíos?","status":"UNANSWERED","date_created":"2026-11-20T12:00:00Z","answer":null}],
				"paging":{"total":2,"offset":1,"limit":1}}`, q.ID))
		a.Do("GET", "/questions/search?item_id=MLA2", nil, seller...).Is(t, 200, `{"total":0,"limit":50,"questions":[],"paging":{"total":0,"offset":0,"limit":50}}`)
		a.Do("GET", "/questions/search?item=MLA2&item_id=MLA2", nil, seller...).Is(t, 200, `{"total":0,"limit":50,"questions":[],"paging":{"total":0,"offset":0,"limit":50}}`)

		long := strings.Repeat("a", 2001)
		cases := []struct {
			name    string
			method  string
			path    string
			body    any
			headers []string
			status  int
			want    string
		}{
			{"ask without token", "POST", "/questions", map[string]string{"item_id": "MLA1", "text": "x"}, nil, 401, `{"code":"unauthorized","message":"access token required"}`},
			{"ask with a bad token", "POST", "/questions", map[string]string{"item_id": "MLA1", "text": "x"}, apptest.Bearer("nope"), 401, `{"code":"unauthorized","message":"invalid access token"}`},
			{"empty text", "POST", "/questions", map[string]string{"item_id": "MLA1", "text": "   "}, buyer, 400, `{"code":"bad_request","message":"text is required: the question must not be empty"}`},
			{"text too long", "POST", "/questions", map[string]string{"item_id": "MLA1", "text": long}, buyer, 400, `{"code":"bad_request","message":"text is 2001 characters long; at most 2000 are allowed"}`},
			{"missing item_id", "POST", "/questions", map[string]string{"text": "x"}, buyer, 400, `{"code":"bad_request","message":"item_id is required"}`},
			{"undecodable item_id", "POST", "/questions", map[string]string{"item_id": "zzz", "text": "x"}, buyer, 400, `{"code":"bad_request","message":"item id \"zzz\" cannot be decoded: it must be a site id followed by digits, e.g. MLA1100"}`},
			{"item_id of the wrong type", "POST", "/questions", map[string]any{"item_id": 5, "text": "x"}, buyer, 400, `{"code":"bad_request","message":"field item_id must be a string, got number"}`},
			{"unknown item", "POST", "/questions", map[string]string{"item_id": "MLA404", "text": "x"}, buyer, 404, `{"code":"not_found","message":"item MLA404 not found"}`},
			{"own item", "POST", "/questions", map[string]string{"item_id": "MLA1", "text": "x"}, seller, 403, `{"code":"forbidden","message":"a seller cannot ask a question on their own item"}`},
			{"inbox without token", "GET", "/questions/search?item_id=MLA1", nil, nil, 401, `{"code":"unauthorized","message":"access token required"}`},
			{"inbox of another seller", "GET", "/questions/search?item_id=MLA1", nil, apptest.Bearer(seller2Token), 403, `{"code":"forbidden","message":"only the seller of item MLA1 may read its questions"}`},
			{"inbox of a buyer", "GET", "/questions/search?item_id=MLA1", nil, buyer, 403, `{"code":"forbidden","message":"only the seller of item MLA1 may read its questions"}`},
			{"inbox without item_id", "GET", "/questions/search", nil, seller, 400, `{"code":"bad_request","message":"item_id or seller_id is required"}`},
			{"inbox of two items", "GET", "/questions/search?item=MLA1&item_id=MLA2", nil, seller, 400, `{"code":"bad_request","message":"item MLA1 and item_id MLA2 name different items; send one of them"}`},
			{"inbox of another seller, by item", "GET", "/questions/search?item=MLA1", nil, apptest.Bearer(seller2Token), 403, `{"code":"forbidden","message":"only the seller of item MLA1 may read its questions"}`},
			{"inbox of an unknown item", "GET", "/questions/search?item_id=MLA404", nil, seller, 404, `{"code":"not_found","message":"item MLA404 not found"}`},
			{"inbox with a bad limit", "GET", fmt.Sprintf("/questions/search?item_id=MLA1&limit=%d", paging.MaxLimit+1), nil, seller, 400,
				fmt.Sprintf(`{"code":"bad_request","message":"limit must be at most %d, got %d"}`, paging.MaxLimit, paging.MaxLimit+1)},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) { a.Do(c.method, c.path, c.body, c.headers...).Is(t, c.status, c.want) })
		}
		if n := total(t, a, "/items/MLA1/contacts/questions"); n != 4 {
			t.Errorf("refused questions were counted: %d, want 4", n)
		}
	})
}

// While Redis is down the contact routes answer 503 in shape (c), and a
// question is not stored without its count.
func TestRedisDown(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		a.Deps.Redis.Close()
		unavailable := `{"code":"service_unavailable","message":"counters are unavailable, retry later"}`
		a.Do("GET", "/items/MLA1/contacts/questions?"+total19to21, nil).Is(t, 503, unavailable)
		a.Do("GET", "/items/contacts/msgapp/time_window?ids=MLA1&last=3&unit=day", nil).Is(t, 503, unavailable)
		a.Do("POST", "/questions", map[string]string{"item_id": "MLA1", "text": "x"}, apptest.Bearer(buyerToken)...).Is(t, 503, unavailable)
		r := a.Do("GET", "/questions/search?item_id=MLA1", nil, apptest.Bearer(sellerToken)...)
		var v struct{ Paging struct{ Total int } }
		r.JSON(t, &v)
		r.HasStatus(t, 200)
		if v.Paging.Total != 0 {
			t.Errorf("a question was stored without its count: %d %s", r.Status, r.Body)
		}
		a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]string{
			{"id": "x", "item_id": "MLA1", "type": "question", "date": "2026-11-19T23:30:00Z"}}}).Is(t, 503, `{"message":"counters are unavailable, retry later","error":"service_unavailable","status":503,"cause":[]}`)
	})
}
