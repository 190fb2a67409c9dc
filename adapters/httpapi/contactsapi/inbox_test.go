package contactsapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// ask has the buyer ask on an item and returns the question's id.
func ask(t *testing.T, a *apptest.App, item, text string) int64 {
	t.Helper()
	r := a.Do("POST", "/questions", map[string]string{"item_id": item, "text": text}, apptest.Bearer(buyerToken)...)
	var q struct{ ID int64 }
	r.JSON(t, &q)
	r.HasStatus(t, 201)
	return q.ID
}

func unanswered(id int64, item, text string) string {
	return fmt.Sprintf(`{"id":%d,"item_id":%q,"seller_id":7,"from":{"id":9},"text":%q,"status":"UNANSWERED","date_created":"2026-11-20T12:00:00Z","answer":null}`, id, item, text)
}

// A seller searches all their questions by seller_id, filters them by
// status, pages them, and reads only their own.
func TestSellerInbox(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		seller := apptest.Bearer(sellerToken)
		q1, q2, q3 := ask(t, a, "MLA1", "¿Color?"), ask(t, a, "MLA2", "¿Talle?"), ask(t, a, "MLA1", "¿Envío?")
		ask(t, a, "MLA3", "¿Otro vendedor?")
		a.Do("POST", "/answers", fmt.Sprintf(`{"question_id":%d,"text":"Rojo."}`, q1), seller...).HasStatus(t, 200)
		answered := fmt.Sprintf(`{"id":%d,"item_id":"MLA1","seller_id":7,"from":{"id":9},"text":"¿Color?","status":"ANSWERED","date_created":"2026-11-20T12:00:00Z",
			"answer":{"text":"Rojo.","status":"ACTIVE","date_created":"2026-11-20T12:00:00Z"}}`, q1)

		a.Do("GET", "/questions/search?seller_id=7", nil, seller...).Is(t, 200, `{"total":3,"limit":50,"questions":[`+
			unanswered(q3, "MLA1", "¿Envío?")+`,`+unanswered(q2, "MLA2", "¿Talle?")+`,`+answered+`],"paging":{"total":3,"offset":0,"limit":50}}`)
		a.Do("GET", "/questions/search?seller_id=7&status=UNANSWERED&limit=1&offset=1", nil, seller...).Is(t, 200, `{"total":2,"limit":1,"questions":[`+
			unanswered(q2, "MLA2", "¿Talle?")+`],"paging":{"total":2,"offset":1,"limit":1}}`)
		a.Do("GET", "/questions/search?seller_id=7&status=ANSWERED", nil, seller...).Is(t, 200, `{"total":1,"limit":50,"questions":[`+answered+`],"paging":{"total":1,"offset":0,"limit":50}}`)
		a.Do("GET", "/questions/search?seller_id=7&item=MLA1&status=UNANSWERED", nil, seller...).Is(t, 200, `{"total":1,"limit":50,"questions":[`+
			unanswered(q3, "MLA1", "¿Envío?")+`],"paging":{"total":1,"offset":0,"limit":50}}`)
		a.Do("GET", "/questions/search?seller_id=7&status=BANNED", nil, seller...).Is(t, 200, `{"total":0,"limit":50,"questions":[],"paging":{"total":0,"offset":0,"limit":50}}`)

		statuses := "status must be one of UNANSWERED, ANSWERED, CLOSED_UNANSWERED, UNDER_REVIEW, BANNED, DISABLED, got \\\"answered\\\""
		cases := []struct {
			name, path string
			headers    []string
			status     int
			want       string
		}{
			{"another seller's questions", "/questions/search?seller_id=7", apptest.Bearer(seller2Token), 403, `{"code":"forbidden","message":"only seller 7 may read their questions"}`},
			{"a buyer's", "/questions/search?seller_id=7", apptest.Bearer(buyerToken), 403, `{"code":"forbidden","message":"only seller 7 may read their questions"}`},
			{"an item of another seller", "/questions/search?seller_id=7&item=MLA3", seller, 403, `{"code":"forbidden","message":"only the seller of item MLA3 may read its questions"}`},
			{"a bad seller_id", "/questions/search?seller_id=x", seller, 400, `{"code":"bad_request","message":"user id \"x\" cannot be decoded: it must be a positive integer"}`},
			{"a bad status", "/questions/search?seller_id=7&status=answered", seller, 400, `{"code":"bad_request","message":"` + statuses + `"}`},
			{"without token", "/questions/search?seller_id=7", nil, 401, `{"code":"unauthorized","message":"access token required"}`},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) { a.Do("GET", c.path, nil, c.headers...).Is(t, c.status, c.want) })
		}
	})
}

// The item's seller deletes a question: it is gone from its read and from
// searches; nobody else may.
func TestDeleteQuestion(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		seller := apptest.Bearer(sellerToken)
		q := ask(t, a, "MLA1", "¿Color?")
		path := fmt.Sprintf("/questions/%d", q)
		a.Do("DELETE", path, nil, apptest.Bearer(buyerToken)...).Is(t, 403, apptest.Err(403, "forbidden", fmt.Sprintf("only the seller of item MLA1 may delete question %d", q)))
		a.Do("DELETE", path, nil, apptest.Bearer(seller2Token)...).Is(t, 403, apptest.Err(403, "forbidden", fmt.Sprintf("only the seller of item MLA1 may delete question %d", q)))
		a.Do("DELETE", path, nil).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
		a.Do("DELETE", "/questions/x", nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", `question_id must be a positive integer, got "x"`, "question_id", "question_id must be a positive integer"))
		a.Do("GET", path, nil, seller...).Is(t, 200, unanswered(q, "MLA1", "¿Color?"))

		a.Do("DELETE", path, nil, seller...).Is(t, 200, fmt.Sprintf(`{"message":"question %d deleted"}`, q))
		a.Do("DELETE", path, nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "question not found"))
		a.Do("GET", path, nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "question not found"))
		a.Do("GET", "/questions/search?seller_id=7", nil, seller...).Is(t, 200, `{"total":0,"limit":50,"questions":[],"paging":{"total":0,"offset":0,"limit":50}}`)
	})
}

// A seller's response time is the mean, in minutes, of the time to answer
// each answered question, split by when it was asked.
func TestResponseTime(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		seller := apptest.Bearer(sellerToken)
		none := `{"user_id":7,"total":{"response_time":null},"weekend":{"response_time":null,"sales_percent_increase":null},
			"weekdays_working_hours":{"response_time":null,"sales_percent_increase":null},"weekdays_extra_hours":{"response_time":null,"sales_percent_increase":null}}`
		a.Do("GET", "/users/7/questions/response_time", nil, seller...).Is(t, 200, none)

		// Asked on Friday at 12:00 and 14:00 (working hours) and answered 90
		// and 30 minutes later; asked at 20:00 (extra hours) and answered the
		// next day at 08:00; asked on Saturday at 10:00, answered on Sunday.
		answer := func(asked, answered string) {
			a.Sandbox("PUT", "/clock", map[string]any{"now": asked}).HasStatus(t, 200)
			q := ask(t, a, "MLA1", "¿Color?")
			a.Sandbox("PUT", "/clock", map[string]any{"now": answered}).HasStatus(t, 200)
			a.Do("POST", "/answers", fmt.Sprintf(`{"question_id":%d,"text":"Rojo."}`, q), seller...).HasStatus(t, 200)
		}
		answer("2026-11-20T12:00:00Z", "2026-11-20T13:30:00Z")
		answer("2026-11-20T14:00:00Z", "2026-11-20T14:30:00Z")
		answer("2026-11-20T20:00:00Z", "2026-11-21T08:00:00Z")
		answer("2026-11-21T10:00:00Z", "2026-11-22T10:00:00Z")
		ask(t, a, "MLA2", "¿Sin responder?")
		a.Do("GET", "/users/7/questions/response_time", nil, seller...).Is(t, 200, `{"user_id":7,"total":{"response_time":570},
			"weekend":{"response_time":1440,"sales_percent_increase":null},"weekdays_working_hours":{"response_time":60,"sales_percent_increase":null},
			"weekdays_extra_hours":{"response_time":720,"sales_percent_increase":null}}`)

		a.Do("GET", "/users/8/questions/response_time", nil, apptest.Bearer(seller2Token)...).Is(t, 200, strings.ReplaceAll(none, `"user_id":7`, `"user_id":8`))
		a.Do("GET", "/users/7/questions/response_time", nil, apptest.Bearer(seller2Token)...).Is(t, 403, apptest.Err(403, "forbidden", "only user 7 may read their response time"))
		a.Do("GET", "/users/7/questions/response_time", nil).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
		a.Do("GET", "/users/x/questions/response_time", nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", `user id "x" cannot be decoded: it must be a positive integer`))
	})
}
