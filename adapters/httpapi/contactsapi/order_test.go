package contactsapi_test

import (
	"testing"

	"github.com/feria/feria/test/apptest"
)

// The answers keep the field order of the contract's resources, byte for
// byte: question totals {date_from, date_to, id, total}, phone-view totals
// {date_from, date_to, total, id}, messaging-app totals {total, date_from,
// date_to, id}, windows {id, total, date_from, date_to, last, unit,
// results}; user ids are strings, `last` a string only for messaging-app.
func TestFieldOrder(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		day := "date_from=2026-11-19T00:00:00Z&date_to=2026-11-21T00:00:00Z"
		cases := []struct{ name, path, body string }{
			{"item questions", "/items/MLA1/contacts/questions?" + day,
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","item_id":"MLA1","total":2}`},
			{"user questions", "/users/7/contacts/questions?" + day,
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","user_id":"7","total":3}`},
			{"item phone views", "/items/MLA2/contacts/phone_views?" + day,
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","total":1,"item_id":"MLA2"}`},
			{"user phone views", "/users/7/contacts/phone_views?" + day,
				`{"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","total":2,"user_id":"7"}`},
			{"item msgapp", "/items/MLA1/contacts/msgapp?" + day,
				`{"total":1,"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","item_id":"MLA1"}`},
			{"user msgapp", "/users/8/contacts/msgapp?" + day,
				`{"total":1,"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","user_id":"8"}`},
			{"item window", "/items/MLA1/contacts/questions/time_window?last=1&unit=day",
				`{"item_id":"MLA1","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":1,"unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]}`},
			{"user window", "/users/7/contacts/phone_views/time_window?last=1&unit=day",
				`{"user_id":"7","total":2,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":1,"unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":2}]}`},
			{"msgapp windows with ids", "/items/contacts/msgapp/time_window?ids=MLA3&unit=day&last=1",
				`[{"item_id":"MLA3","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":"1","unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]}]`},
			{"user msgapp window", "/users/8/contacts/msgapp/time_window?unit=day&last=1",
				`{"user_id":"8","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":"1","unit":"day","results":[{"date":"2026-11-20T00:00:00Z","total":1}]}`},
		}
		for _, c := range cases {
			r := a.Do("GET", c.path, nil)
			r.HasStatus(t, 200)
			if string(r.Body) != c.body {
				t.Errorf("%s: %d\n got  %s\n want %s", c.name, r.Status, r.Body, c.body)
			}
		}
	})
}
