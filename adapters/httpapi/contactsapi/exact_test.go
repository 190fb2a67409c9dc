package contactsapi_test

import (
	"net/url"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// Totals count every event in [date_from, date_to), to the second, at both
// bounds: events at from-1s, from, to-1s and to, within one hour (the
// issue's 10:15 range that missed a 10:20 event), within one day, and over
// whole days between two partial ones; for the item and its seller.
func TestTotalsExactToTheSecond(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be) // MLA2 of seller 7 has no msgapp event yet; m1 (MLA1) is at 11:00Z
		var events []map[string]string
		for i, d := range []string{
			"2026-11-18T10:15:29Z", "2026-11-18T10:15:30Z", // from-1s, from of the 3-day range
			"2026-11-19T12:00:00Z", // a whole day between
			"2026-11-20T10:15:29Z", "2026-11-20T10:15:30Z", "2026-11-20T10:20:41Z", "2026-11-20T10:20:42Z",
		} {
			events = append(events, map[string]string{"id": "x" + string(rune('a'+i)), "item_id": "MLA2", "type": "msgapp", "date": d})
		}
		a.Sandbox("POST", "/contact_events", map[string]any{"events": events}).Is(t, 200, `{"accepted": 7, "duplicates": 0}`)

		for _, c := range []struct {
			from, to         string
			wantFrom, wantTo string
			total            int
		}{
			// 18T10:15:30, 19T12:00, 20T10:15:29, 20T10:15:30, 20T10:20:41
			{"2026-11-18T10:15:30Z", "2026-11-20T10:20:42Z", "2026-11-18T10:15:30Z", "2026-11-20T10:20:42Z", 5},
			// from and to-1s of one day
			{"2026-11-20T10:15:30Z", "2026-11-20T10:20:42Z", "2026-11-20T10:15:30Z", "2026-11-20T10:20:42Z", 2},
			// one second later, one earlier: from-1s and to are out
			{"2026-11-20T10:15:31Z", "2026-11-20T10:20:41Z", "2026-11-20T10:15:31Z", "2026-11-20T10:20:41Z", 0},
			{"2026-11-20T10:15:00Z", "2026-11-20T10:21:00Z", "2026-11-20T10:15:00Z", "2026-11-20T10:21:00Z", 4},
			// the same instants with an offset
			{"2026-11-20T07:15:30-03:00", "2026-11-20T07:20:42-03:00", "2026-11-20T10:15:30Z", "2026-11-20T10:20:42Z", 2},
			{"2026-11-20T10:20:41Z", "2026-11-20T10:20:42Z", "2026-11-20T10:20:41Z", "2026-11-20T10:20:42Z", 1},
			{"2026-11-20T10:20:42Z", "2026-11-20T10:20:42Z", "2026-11-20T10:20:42Z", "2026-11-20T10:20:42Z", 0},
		} {
			q := "?date_from=" + url.QueryEscape(c.from) + "&date_to=" + url.QueryEscape(c.to)
			body := func(idField, id string) string {
				return `{"total": ` + itoa(c.total) + `, "date_from": "` + c.wantFrom + `", "date_to": "` + c.wantTo + `", "` + idField + `": "` + id + `"}`
			}
			a.Do("GET", "/items/MLA2/contacts/msgapp"+q, nil).Is(t, 200, body("item_id", "MLA2"))
			a.Do("GET", "/users/7/contacts/msgapp"+q, nil).Is(t, 200, body("user_id", "7"))
		}
	})
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// A read marks its item or user known in Redis so that later reads skip the
// database; DELETE /sandbox removes the items and users and forgets the
// marks with the counters: a read after it is 404 again, never a stale 200.
func TestKnownMarksGoWithTheSandbox(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		for _, p := range []string{"/items/MLA1/contacts/questions/time_window?last=1&unit=day", "/users/7/contacts/questions/time_window?last=1&unit=day"} {
			for i := 0; i < 2; i++ { // the first read marks, the second reads the mark
				a.Do("GET", p, nil).HasStatus(t, 200)
			}
		}
		a.Sandbox("DELETE", "", nil).HasStatus(t, 204)
		a.Do("GET", "/items/MLA1/contacts/questions/time_window?last=1&unit=day", nil).Is(t, 404, `{"code":"not_found","message":"item MLA1 not found"}`)
		a.Do("GET", "/users/7/contacts/questions?date_from=2026-11-20&date_to=2026-11-21", nil).Is(t, 404, `{"code":"not_found","message":"user 7 not found"}`)
	})
}
