package visitsapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/feria/feria/core/visits"
	"github.com/feria/feria/test/apptest"
)

const (
	sellerToken  = "APP_USR-seller-7"
	seller2Token = "APP_USR-seller-8"
)

var seller7 = apptest.Bearer(sellerToken)

// world builds sellers 7 (MLA1, MLA2) and 8 (MLA3), the clock frozen at
// 2026-11-20T12:00:00Z, and counts the visits of the tests.
func world(t *testing.T, be apptest.Backend) *apptest.App {
	t.Helper()
	a := apptest.New(t, be)
	item := func(id string, seller int) map[string]any {
		return map[string]any{"id": id, "site_id": "MLA", "seller_id": seller, "title": "Item " + id, "category_id": "MLA1000",
			"status": "active", "price": 100, "currency_id": "ARS", "available_quantity": 1}
	}
	a.MustLoad(map[string]any{
		"users": []map[string]any{
			{"id": 7, "nickname": "SELLER7", "site_id": "MLA", "access_token": sellerToken},
			{"id": 8, "nickname": "SELLER8", "site_id": "MLA", "access_token": seller2Token},
		},
		"categories": []map[string]any{{"id": "MLA1000", "site_id": "MLA", "name": "Otros", "domain_id": "MLA-OTHERS", "compatibilities": nil}},
		"items":      []map[string]any{item("MLA1", 7), item("MLA2", 7), item("MLA3", 8)},
	})
	a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"}).HasStatus(t, 200)
	a.Sandbox("POST", "/visit_events", map[string]any{"events": []map[string]string{
		{"id": "v1", "item_id": "MLA1", "date": "2026-11-19T23:30:00Z"},
		{"id": "v2", "item_id": "MLA1", "date": "2026-11-20T00:00:00Z"},
		{"id": "v3", "item_id": "MLA1", "date": "2026-11-20T10:15:07-03:00"},
		{"id": "v4", "item_id": "MLA2", "date": "2026-11-20T11:59:59"},
		{"id": "v5", "item_id": "MLA3", "date": "2026-11-18T08:00:00Z"},
	}}).Is(t, 200, `{"accepted": 5, "duplicates": 0}`)
	return a
}

func detail(n int) string { return fmt.Sprintf(`[{"company":"mercadolibre","quantity":%d}]`, n) }

func day(date string, n int) string {
	return fmt.Sprintf(`{"date":"%sT00:00:00Z","total":%d,"visits_detail":%s}`, date, n, detail(n))
}

func TestVisits(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		// Totals: [date_from, date_to), exact to the second; repeats once.
		a.Do("GET", "/items/visits?ids=MLA1,MLA2,MLA1&date_from=2026-11-19&date_to=2026-11-21", nil).Is(t, 200,
			`[{"item_id":"MLA1","date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","total_visits":3,"visits_detail":`+detail(3)+`},
			  {"item_id":"MLA2","date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","total_visits":1,"visits_detail":`+detail(1)+`}]`)
		a.Do("GET", "/items/visits?ids=MLA1&date_from=2026-11-20T13:15:07Z&date_to=2026-11-20T13:15:08Z", nil).Is(t, 200,
			`[{"item_id":"MLA1","date_from":"2026-11-20T13:15:07Z","date_to":"2026-11-20T13:15:08Z","total_visits":1,"visits_detail":`+detail(1)+`}]`)
		a.Do("GET", "/items/visits?ids=MLA1&date_from=2026-11-19T23:30:01Z&date_to=2026-11-20T13:15:07Z", nil).Is(t, 200,
			`[{"item_id":"MLA1","date_from":"2026-11-19T23:30:01Z","date_to":"2026-11-20T13:15:07Z","total_visits":1,"visits_detail":`+detail(1)+`}]`)
		// The seller's own total is the sum of its items.
		a.Do("GET", "/users/7/items_visits?date_from=2026-11-01&date_to=2026-11-30", nil, seller7...).Is(t, 200,
			`{"user_id":7,"date_from":"2026-11-01T00:00:00Z","date_to":"2026-11-30T00:00:00Z","total_visits":4,"visits_detail":`+detail(4)+`}`)
		// Windows: the last interval holds ending (the clock when absent).
		a.Do("GET", "/items/MLA1/visits/time_window?last=3&unit=day&ending=2026-11-20", nil).Is(t, 200,
			`{"item_id":"MLA1","total_visits":3,"date_from":"2026-11-18T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":3,"unit":"day",
			  "results":[`+day("2026-11-18", 0)+`,`+day("2026-11-19", 1)+`,`+day("2026-11-20", 2)+`]}`)
		a.Do("GET", "/users/7/items_visits/time_window?last=2&unit=hour", nil, seller7...).Is(t, 200,
			`{"user_id":7,"total_visits":1,"date_from":"2026-11-20T11:00:00Z","date_to":"2026-11-20T13:00:00Z","last":2,"unit":"hour",
			  "results":[{"date":"2026-11-20T11:00:00Z","total":1,"visits_detail":`+detail(1)+`},
			             {"date":"2026-11-20T12:00:00Z","total":0,"visits_detail":`+detail(0)+`}]}`)
		// Visits are not contacts: the contact counters did not move.
		a.Do("GET", "/items/MLA1/contacts/questions?date_from=2026-11-01T00:00:00Z&date_to=2026-11-30T00:00:00Z", nil).Is(t, 200,
			`{"date_from":"2026-11-01T00:00:00Z","date_to":"2026-11-30T00:00:00Z","item_id":"MLA1","total":0}`)
	})
}

func TestVisitsErrors(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		bad := func(msg string) string { return apptest.Err(400, "bad_request", msg) }
		ids := strings.TrimSuffix(strings.Repeat("MLA1,", visits.MaxIDs+1), ",")
		many := make([]string, visits.MaxIDs+1)
		for i := range many {
			many[i] = fmt.Sprint("MLA", 100+i)
		}
		for _, c := range []struct {
			path, token string
			status      int
			body        string
		}{
			{"/items/visits?date_from=2026-11-01&date_to=2026-11-02", "", 400, bad("ids is required: a comma-separated list of item ids")},
			{"/items/visits?ids=" + ids + "&date_from=2026-11-01&date_to=2026-11-02", "", 200, ""},
			{"/items/visits?ids=" + strings.Join(many, ",") + "&date_from=2026-11-01&date_to=2026-11-02", "", 400, bad("ids names 51 items; at most 50 are allowed")},
			{"/items/visits?ids=X1&date_from=2026-11-01&date_to=2026-11-02", "", 400, bad(`item id "X1" cannot be decoded: it must be a site id followed by digits, e.g. MLA1100`)},
			{"/items/visits?ids=MLA1,MLA9,MLA8&date_from=2026-11-01&date_to=2026-11-02", "", 404, apptest.Err(404, "not_found", "items MLA9, MLA8 not found")},
			{"/items/visits?ids=MLA1&date_to=2026-11-02", "", 400, bad("date_from is required: an ISO 8601 date-time such as 2026-11-20T00:00:00Z")},
			{"/items/visits?ids=MLA1&date_from=2026-11-02&date_to=2026-11-01", "", 400, bad("date_from 2026-11-02T00:00:00Z is after date_to 2026-11-01T00:00:00Z")},
			{"/items/visits?ids=MLA1&date_from=2026-01-01&date_to=2026-05-31T00:00:01Z", "", 400, bad("date_from and date_to are more than 150 days apart")},
			{"/items/visits?ids=MLA1&date_from=2026-01-01&date_to=2026-05-31", "", 200, ""},
			{"/items/visits?ids=MLA1&date_from=2026-11-01&date_to=2026-11-02", "APP_USR-nope", 401, apptest.Err(401, "unauthorized", "invalid access token")},
			{"/items/MLA9/visits/time_window?last=2&unit=day", "", 404, apptest.Err(404, "not_found", "item MLA9 not found")},
			{"/items/nope/visits/time_window?last=2&unit=day", "", 400, bad(`item id "nope" cannot be decoded: it must be a site id followed by digits, e.g. MLA1100`)},
			{"/items/MLA1/visits/time_window?last=2", "", 400, bad("unit is required: day or hour")},
			{"/items/MLA1/visits/time_window?last=2&unit=week", "", 400, bad(`unit must be day or hour, got "week"`)},
			{"/items/MLA1/visits/time_window?unit=day", "", 400, bad("last is required: a positive integer")},
			{"/items/MLA1/visits/time_window?last=0&unit=day", "", 400, bad(`last must be a positive integer, got "0"`)},
			{"/items/MLA1/visits/time_window?last=151&unit=day", "", 400, bad("last must be at most 150 when unit is day (150 days), got 151")},
			{"/items/MLA1/visits/time_window?last=3601&unit=hour", "", 400, bad("last must be at most 3600 when unit is hour (150 days), got 3601")},
			{"/items/MLA1/visits/time_window?last=150&unit=day", "", 200, ""},
			{"/items/MLA1/visits/time_window?last=2&unit=day&ending=soon", "", 400, bad(`ending "soon" is not an ISO 8601 date-time such as 2026-11-20T00:00:00Z or 2026-11-20T00:00:00-03:00`)},
			{"/users/7/items_visits?date_from=2026-11-01&date_to=2026-11-02", "", 401, apptest.Err(401, "unauthorized", "access token required")},
			{"/users/7/items_visits?date_from=2026-11-01&date_to=2026-11-02", seller2Token, 403, apptest.Err(403, "forbidden", "the caller is not user 7")},
			{"/users/x/items_visits?date_from=2026-11-01&date_to=2026-11-02", sellerToken, 400, bad(`user id "x" cannot be decoded: it must be a positive integer`)},
			{"/users/7/items_visits?date_from=2026-11-01", sellerToken, 400, bad("date_to is required: an ISO 8601 date-time such as 2026-11-20T00:00:00Z")},
			{"/users/7/items_visits/time_window?last=2&unit=day", seller2Token, 403, apptest.Err(403, "forbidden", "the caller is not user 7")},
			{"/users/7/items_visits/time_window?last=x&unit=day", sellerToken, 400, bad(`last must be a positive integer, got "x"`)},
		} {
			var h []string
			if c.token != "" {
				h = apptest.Bearer(c.token)
			}
			r := a.Do("GET", c.path, nil, h...)
			if c.body == "" {
				r.HasStatus(t, c.status)
				continue
			}
			r.Is(t, c.status, c.body)
		}
	})
}
