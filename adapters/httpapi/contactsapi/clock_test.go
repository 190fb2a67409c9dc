package contactsapi_test

import (
	"testing"

	"github.com/feria/feria/test/apptest"
)

// Without ending the last interval is the one containing the sandbox clock
// (PUT /sandbox/clock), UTC-aligned whatever the offset it was set with.
func TestWindowEndsAtTheClock(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := world(t, be)
		cases := []struct{ now, path, body string }{
			// The last second of a UTC day: that day is the last interval.
			{"2026-11-20T23:59:59Z", "/items/MLA1/contacts/questions/time_window?last=2&unit=day",
				`{"item_id":"MLA1","total":2,"date_from":"2026-11-19T00:00:00Z","date_to":"2026-11-21T00:00:00Z","last":2,"unit":"day",
					  "results":[{"date":"2026-11-19T00:00:00Z","total":1},{"date":"2026-11-20T00:00:00Z","total":1}]}`},
			// Midnight starts the next interval.
			{"2026-11-21T00:00:00Z", "/items/MLA1/contacts/questions/time_window?last=2&unit=day",
				`{"item_id":"MLA1","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-22T00:00:00Z","last":2,"unit":"day",
					  "results":[{"date":"2026-11-20T00:00:00Z","total":1},{"date":"2026-11-21T00:00:00Z","total":0}]}`},
			// 21:30 at -03:00 is 00:30Z: the UTC day of the 20th is over.
			{"2026-11-20T21:30:00-03:00", "/users/7/contacts/questions/time_window?last=1&unit=day",
				`{"user_id":"7","total":0,"date_from":"2026-11-21T00:00:00Z","date_to":"2026-11-22T00:00:00Z","last":1,"unit":"day",
					  "results":[{"date":"2026-11-21T00:00:00Z","total":0}]}`},
			// A half-hour offset: 05:45+05:30 is 00:15Z, in the 00:00Z hour.
			{"2026-11-20T05:45:00+05:30", "/items/MLA1/contacts/questions/time_window?last=2&unit=hour&order=desc",
				`{"item_id":"MLA1","total":2,"date_from":"2026-11-19T23:00:00Z","date_to":"2026-11-20T01:00:00Z","last":2,"unit":"hour",
					  "results":[{"date":"2026-11-20T00:00:00Z","total":1},{"date":"2026-11-19T23:00:00Z","total":1}]}`},
			// Messaging-app windows follow the clock too (last as a string).
			{"2026-11-20T11:59:59Z", "/items/contacts/msgapp/time_window?ids=MLA3,MLA1&unit=hour&last=1",
				`[{"item_id":"MLA3","total":1,"date_from":"2026-11-20T11:00:00Z","date_to":"2026-11-20T12:00:00Z","last":"1","unit":"hour","results":[{"date":"2026-11-20T11:00:00Z","total":1}]},
					  {"item_id":"MLA1","total":1,"date_from":"2026-11-20T11:00:00Z","date_to":"2026-11-20T12:00:00Z","last":"1","unit":"hour","results":[{"date":"2026-11-20T11:00:00Z","total":1}]}]`},
		}
		for _, c := range cases {
			a.Sandbox("PUT", "/clock", map[string]any{"now": c.now}).HasStatus(t, 200)
			t.Run(c.now+" "+c.path, func(t *testing.T) { a.Do("GET", c.path, nil).Is(t, 200, c.body) })
		}
	})
}

// A '+' offset written unencoded in the query string (which decodes it as
// a space) is read as the offset it was meant to be.
func TestUnencodedPlusOffset(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := world(t, be)
		a.Do("GET", "/items/MLA1/contacts/questions?date_from=2026-11-20T05:30:00+05:30&date_to=2026-11-20T06:30:00+05:30", nil).Is(t, 200, `{"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-20T01:00:00Z","item_id":"MLA1","total":1}`)
		a.Do("GET", "/items/MLA1/contacts/questions/time_window?unit=hour&last=1&ending=2026-11-20T05:45:00%2B05:30", nil).Is(t, 200, `{"item_id":"MLA1","total":1,"date_from":"2026-11-20T00:00:00Z","date_to":"2026-11-20T01:00:00Z","last":1,"unit":"hour","results":[{"date":"2026-11-20T00:00:00Z","total":1}]}`)
	})
}
