package contactsapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/test/apptest"
)

const (
	sellerToken  = "APP_USR-seller-7"
	seller2Token = "APP_USR-seller-8"
	buyerToken   = "APP_USR-buyer-9"
)

// world builds an instance with sellers 7 (MLA1, MLA2) and 8 (MLA3), buyer
// 9, the clock frozen at 2026-11-20T12:00:00Z, and the events of the
// tests counted.
func world(t *testing.T, be apptest.Backend) *apptest.App {
	t.Helper()
	a := apptest.New(t, be)
	seed(t, a)
	r := a.Sandbox("POST", "/contact_events", map[string]any{"events": []map[string]string{
		{"id": "q1", "item_id": "MLA1", "type": "question", "date": "2026-11-19T23:30:00Z"},
		{"id": "q2", "item_id": "MLA1", "type": "question", "date": "2026-11-20T00:10:00Z"},
		{"id": "q3", "item_id": "MLA2", "type": "question", "date": "2026-11-20T10:15:00Z"},
		{"id": "p1", "item_id": "MLA1", "type": "phone_view", "date": "2026-11-20T10:16:00-03:00"},
		{"id": "p2", "item_id": "MLA2", "type": "phone_view", "date": "2026-11-19T21:30:00-03:00"},
		{"id": "m1", "item_id": "MLA1", "type": "msgapp", "date": "2026-11-20T11:00:00Z"},
		{"id": "m2", "item_id": "MLA3", "type": "msgapp", "date": "2026-11-20T11:59:59"},
	}})
	r.Is(t, 200, `{"accepted": 7, "duplicates": 0}`)
	return a
}

// seed loads the users, a category and the items through the sandbox
// fixtures, and freezes the clock.
func seed(t *testing.T, a *apptest.App) {
	t.Helper()
	item := func(id string, seller int) map[string]any {
		return map[string]any{"id": id, "site_id": "MLA", "seller_id": seller, "title": "Item " + id, "category_id": "MLA1000",
			"status": "active", "price": 100, "currency_id": "ARS", "available_quantity": 1}
	}
	a.MustLoad(map[string]any{
		"users": []map[string]any{
			{"id": 7, "nickname": "SELLER7", "site_id": "MLA", "access_token": sellerToken},
			{"id": 8, "nickname": "SELLER8", "site_id": "MLA", "access_token": seller2Token},
			{"id": 9, "nickname": "BUYER9", "site_id": "MLA", "access_token": buyerToken},
		},
		"categories": []map[string]any{{"id": "MLA1000", "site_id": "MLA", "name": "Otros", "domain_id": "MLA-OTHERS", "compatibilities": nil}},
		"items":      []map[string]any{item("MLA1", 7), item("MLA2", 7), item("MLA3", 8)},
	})
	a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"}).HasStatus(t, 200)
}

func TestEndpoints(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := world(t, be)
		day := "date_from=2026-11-19T00:00:00Z&date_to=2026-11-21T00:00:00Z"
		cases := []struct{ name, path, body string }{
			// Totals between two dates.
			{"item questions", "/items/MLA1/contacts/questions?" + day,
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","item_id":"MLA1","total":2}`},
			{"item questions, dates with offset", "/items/MLA1/contacts/questions?date_from=2026-11-19T21:00:00-03:00&date_to=2026-11-20T21:00:00-03:00",
				`{"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","item_id":"MLA1","total":1}`},
			{"item questions, dates without offset are UTC", "/items/MLA1/contacts/questions?date_from=2026-11-19T23:00:00&date_to=2026-11-20T00:00:00",
				`{"date_from":"2026-11-19T23:00:00Z","date_to":"2026-11-20T00:00:00Z","item_id":"MLA1","total":1}`},
			{"item questions, to is exclusive", "/items/MLA1/contacts/questions?date_from=2026-11-19T00:00:00Z&date_to=2026-11-19T23:00:00Z",
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-19T23:00:00Z","item_id":"MLA1","total":0}`},
			{"item questions, from is inclusive", "/items/MLA1/contacts/questions?date_from=2026-11-20T00:00:00Z&date_to=2026-11-20T01:00:00Z",
				`{"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-20T01:00:00Z","item_id":"MLA1","total":1}`},
			{"user questions = sum of its items", "/users/7/contacts/questions?" + day,
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","user_id":"7","total":3}`},
			{"item phone views", "/items/MLA2/contacts/phone_views?" + day,
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","item_id":"MLA2","total":1}`},
			{"user phone views", "/users/7/contacts/phone_views?" + day,
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","user_id":"7","total":2}`},
			{"item msgapp", "/items/MLA1/contacts/msgapp?" + day,
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","item_id":"MLA1","total":1}`},
			{"user msgapp", "/users/8/contacts/msgapp?" + day,
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","user_id":"8","total":1}`},
			{"a seller without events", "/users/9/contacts/msgapp?" + day,
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","user_id":"9","total":0}`},

			// Time windows.
			{"item question days, ending defaults to the clock", "/items/MLA1/contacts/questions/time_window?last=2&unit=day",
				`{"item_id":"MLA1","total":2,"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":2,"unit":"day",
					  "results":[{"date":"2026-11-19T00:00:00Z","total":1},{"date":"2026-11-20T00:00:00Z","total":1}]}`},
			{"hours across a day boundary", "/items/MLA1/contacts/questions/time_window?last=3&unit=hour&ending=2026-11-20T00:30:00Z",
				`{"item_id":"MLA1","total":2,"date_from":"2026-11-19T22:00:00Z","date_to":"2026-11-20T01:00:00Z","last":3,"unit":"hour",
					  "results":[{"date":"2026-11-19T22:00:00Z","total":0},{"date":"2026-11-19T23:00:00Z","total":1},{"date":"2026-11-20T00:00:00Z","total":1}]}`},
			{"hours with an offset ending", "/items/MLA1/contacts/questions/time_window?last=3&unit=hour&ending=2026-11-19T21:30:00-03:00",
				`{"item_id":"MLA1","total":2,"date_from":"2026-11-19T22:00:00Z","date_to":"2026-11-20T01:00:00Z","last":3,"unit":"hour",
					  "results":[{"date":"2026-11-19T22:00:00Z","total":0},{"date":"2026-11-19T23:00:00Z","total":1},{"date":"2026-11-20T00:00:00Z","total":1}]}`},
			{"days are UTC days whatever the ending's offset", "/items/MLA2/contacts/phone_views/time_window?last=2&unit=day&ending=2026-11-20T20:00:00-03:00",
				`{"item_id":"MLA2","total":1,"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":2,"unit":"day",
					  "results":[{"date":"2026-11-19T00:00:00Z","total":0},{"date":"2026-11-20T00:00:00Z","total":1}]}`},
			{"order=desc", "/items/MLA1/contacts/questions/time_window?last=2&unit=day&order=desc",
				`{"item_id":"MLA1","total":2,"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":2,"unit":"day",
					  "results":[{"date":"2026-11-20T00:00:00Z","total":1},{"date":"2026-11-19T00:00:00Z","total":1}]}`},
			{"item questions with ids", "/items/MLA1/contacts/questions/time_window?ids=MLA2,MLA1&last=1&unit=day",
				`[{"item_id":"MLA1","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":1,"unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]},
					  {"item_id":"MLA2","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":1,"unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]}]`},
			{"multi-item question windows", "/items/contacts/questions/time_window?ids=MLA2&last=1&unit=day",
				`[{"item_id":"MLA2","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":1,"unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]}]`},
			{"user question window", "/users/7/contacts/questions/time_window?last=1&unit=day",
				`{"user_id":"7","total":2,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":1,"unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":2}]}`},
			{"item phone-view window", "/items/MLA1/contacts/phone_views/time_window?last=2&unit=hour&ending=2026-11-20T13:59:59Z",
				`{"item_id":"MLA1","total":1,"date_from":"2026-11-20T12:00:00Z","date_to":"2026-11-20T14:00:00Z","last":2,"unit":"hour",
					  "results":[{"date":"2026-11-20T12:00:00Z","total":0},{"date":"2026-11-20T13:00:00Z","total":1}]}`},
			{"multi-item phone-view windows", "/items/contacts/phone_views/time_window?ids=MLA1,MLA2&last=1&unit=day&ending=2026-11-20T23:00:00Z",
				`[{"item_id":"MLA1","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":1,"unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]},
					  {"item_id":"MLA2","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":1,"unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]}]`},
			{"user phone-view window", "/users/7/contacts/phone_views/time_window?last=1&unit=day",
				`{"user_id":"7","total":2,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":1,"unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":2}]}`},
			{"item msgapp window: last is a string", "/items/MLA1/contacts/msgapp/time_window?unit=hour&last=2",
				`{"item_id":"MLA1","total":1,"date_from":"2026-11-20T11:00:00Z","date_to":"2026-11-20T13:00:00Z","last":"2","unit":"hour",
					  "results":[{"date":"2026-11-20T11:00:00Z","total":1},{"date":"2026-11-20T12:00:00Z","total":0}]}`},
			{"multi-item msgapp windows", "/items/contacts/msgapp/time_window?ids=MLA3,MLA1&unit=day&last=1&ending=2026-11-20T00:00:00Z",
				`[{"item_id":"MLA3","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":"1","unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]},
					  {"item_id":"MLA1","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":"1","unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]}]`},
			{"user msgapp window", "/users/8/contacts/msgapp/time_window?unit=hour&last=1",
				`{"user_id":"8","total":0,"date_from":"2026-11-20T12:00:00Z","date_to":"2026-11-20T13:00:00Z","last":"1","unit":"hour","results":[{"date":"2026-11-20T12:00:00Z","total":0}]}`},
			{"ids on the item msgapp window", "/items/MLA1/contacts/msgapp/time_window?ids=MLA3&unit=day&last=1",
				`[{"item_id":"MLA1","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":"1","unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]},
					  {"item_id":"MLA3","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":"1","unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]}]`},
			{"limit and offset are ignored", "/items/MLA1/contacts/questions/time_window?last=2&unit=day&limit=1&offset=1",
				`{"item_id":"MLA1","total":2,"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":2,"unit":"day",
					  "results":[{"date":"2026-11-19T00:00:00Z","total":1},{"date":"2026-11-20T00:00:00Z","total":1}]}`},
			{"a token on a public read is ignored", "/items/MLA2/contacts/phone_views?access_token=nope&" + day,
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","item_id":"MLA2","total":1}`},
			{"a bare date is midnight UTC", "/users/7/contacts/questions?date_from=2026-11-20&date_to=2026-11-21",
				`{"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","user_id":"7","total":2}`},
			{"an empty range", "/items/MLA1/contacts/questions?date_from=2026-11-20T00:00:00Z&date_to=2026-11-20T00:00:00Z",
				`{"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-20T00:00:00Z","item_id":"MLA1","total":0}`},
			{"repeated ids answer once", "/items/contacts/msgapp/time_window?ids=MLA3,MLA3&unit=day&last=1",
				`[{"item_id":"MLA3","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":"1","unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]}]`},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) { a.Do("GET", c.path, nil).Is(t, 200, c.body) })
		}
		// A bearer token is accepted on the messaging-app calls.
		a.Do("GET", "/items/MLA1/contacts/msgapp?"+day, nil, apptest.Bearer(sellerToken)...).Is(t, 200, `{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","item_id":"MLA1","total":1}`)
	})
}

func TestErrors(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := world(t, be)
		day := "date_from=2026-11-19T00:00:00Z&date_to=2026-11-21T00:00:00Z"
		many := make([]string, contacts.MaxIDs+1)
		for i := range many {
			many[i] = fmt.Sprint("MLA", i+1)
		}
		bad := func(msg string) string { return fmt.Sprintf(`{"code":"bad_request","message":%q}`, msg) }
		cases := []struct {
			name, path string
			status     int
			body       string
		}{
			{"undecodable item id", "/items/abc/contacts/questions?" + day, 400, bad(`item id "abc" cannot be decoded: it must be a site id followed by digits, e.g. MLA1100`)},
			{"undecodable item id (window)", "/items/XYZ1/contacts/phone_views/time_window?last=1&unit=day", 400, bad(`item id "XYZ1" cannot be decoded: it must be a site id followed by digits, e.g. MLA1100`)},
			{"undecodable user id", "/users/abc/contacts/questions?" + day, 400, bad(`user id "abc" cannot be decoded: it must be a positive integer`)},
			{"undecodable user id (window)", "/users/-4/contacts/msgapp/time_window?last=1&unit=day", 400, bad(`user id "-4" cannot be decoded: it must be a positive integer`)},
			{"undecodable id in ids", "/items/contacts/phone_views/time_window?ids=MLA1,foo&last=1&unit=day", 400, bad(`item id "foo" cannot be decoded: it must be a site id followed by digits, e.g. MLA1100`)},
			{"unknown item", "/items/MLA404/contacts/questions?" + day, 404, `{"code":"not_found","message":"item MLA404 not found"}`},
			{"unknown item (msgapp window)", "/items/MLA404/contacts/msgapp/time_window?last=1&unit=day", 404, `{"code":"not_found","message":"item MLA404 not found"}`},
			{"unknown items in ids", "/items/contacts/msgapp/time_window?ids=MLA1,MLA404,MLA405&last=1&unit=day", 404, `{"code":"not_found","message":"items MLA404, MLA405 not found"}`},
			{"unknown user", "/users/404/contacts/phone_views?" + day, 404, `{"code":"not_found","message":"user 404 not found"}`},
			{"unknown user (window)", "/users/404/contacts/questions/time_window?last=1&unit=day", 404, `{"code":"not_found","message":"user 404 not found"}`},
			{"missing date_from", "/items/MLA1/contacts/questions?date_to=2026-11-21T00:00:00Z", 400, bad("date_from is required: an ISO 8601 date-time such as 2026-11-20T00:00:00Z")},
			{"missing date_to", "/users/7/contacts/msgapp?date_from=2026-11-21T00:00:00Z", 400, bad("date_to is required: an ISO 8601 date-time such as 2026-11-20T00:00:00Z")},
			{"unparsable date", "/items/MLA1/contacts/phone_views?date_from=yesterday&date_to=2026-11-21T00:00:00Z", 400, bad(`date_from "yesterday" is not an ISO 8601 date-time such as 2026-11-20T00:00:00Z or 2026-11-20T00:00:00-03:00`)},
			{"date_from after date_to", "/users/7/contacts/questions?date_from=2026-11-22T00:00:00Z&date_to=2026-11-21T00:00:00Z", 400, bad("date_from 2026-11-22T00:00:00Z is after date_to 2026-11-21T00:00:00Z")},
			{"range too long", "/items/MLA1/contacts/msgapp?date_from=2025-01-01T00:00:00Z&date_to=2026-11-21T00:00:00Z", 400, bad("date_from and date_to are 689 days apart; at most 366 days are allowed")},
			{"missing last", "/items/MLA1/contacts/questions/time_window?unit=day", 400, bad("last is required: a positive integer")},
			{"last not a positive integer", "/items/MLA1/contacts/questions/time_window?last=0&unit=day", 400, bad(`last must be a positive integer, got "0"`)},
			{"last not a number", "/users/7/contacts/phone_views/time_window?last=ten&unit=day", 400, bad(`last must be a positive integer, got "ten"`)},
			{"last above the maximum (day)", "/items/MLA1/contacts/msgapp/time_window?last=367&unit=day", 400, bad("last must be at most 366 when unit is day, got 367")},
			{"last above the maximum (hour)", "/items/contacts/phone_views/time_window?ids=MLA1&last=745&unit=hour", 400, bad("last must be at most 744 when unit is hour, got 745")},
			{"missing unit", "/users/7/contacts/msgapp/time_window?last=3", 400, bad("unit is required: hour or day")},
			{"unit not hour/day", "/items/MLA1/contacts/phone_views/time_window?last=3&unit=week", 400, bad(`unit must be hour or day, got "week"`)},
			{"bad ending", "/items/MLA1/contacts/phone_views/time_window?last=3&unit=day&ending=soon", 400, bad(`ending "soon" is not an ISO 8601 date-time such as 2026-11-20T00:00:00Z or 2026-11-20T00:00:00-03:00`)},
			{"bad order", "/items/MLA1/contacts/phone_views/time_window?last=3&unit=day&order=up", 400, bad(`order must be asc or desc, got "up"`)},
			{"missing ids", "/items/contacts/phone_views/time_window?last=3&unit=day", 400, bad("ids is required: a comma-separated list of item ids")},
			{"empty ids on an item path", "/items/MLA1/contacts/questions/time_window?ids=&last=3&unit=day", 400, bad("ids is required: a comma-separated list of item ids")},
			{"too many ids", "/items/contacts/msgapp/time_window?last=3&unit=day&ids=" + strings.Join(many, ","), 400, bad(fmt.Sprintf("ids names %d items; at most %d are allowed", contacts.MaxIDs+1, contacts.MaxIDs))},
			{"invalid token on msgapp", "/items/MLA1/contacts/msgapp?" + day + "&access_token=nope", 401, `{"code":"unauthorized","message":"invalid access token"}`},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) { a.Do("GET", c.path, nil).Is(t, c.status, c.body) })
		}
	})
}
