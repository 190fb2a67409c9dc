package visits

import (
	"testing"
	"time"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/kernel"
)

func TestParseWindow(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		last, unit, ending string
		from, to           string // the window's bounds; "" for an error
		err                string
	}{
		{"150", "day", "", "2026-06-24T00:00:00Z", "2026-11-21T00:00:00Z", ""},
		{"3600", "hour", "2026-11-20", "2026-06-23T01:00:00Z", "2026-11-20T01:00:00Z", ""},
		{"1", "hour", "2026-11-20T10:59:59-03:00", "2026-11-20T13:00:00Z", "2026-11-20T14:00:00Z", ""},
		{"151", "day", "", "", "", "last must be at most 150 when unit is day (150 days), got 151"},
		{"3601", "hour", "", "", "", "last must be at most 3600 when unit is hour (150 days), got 3601"},
		{"-1", "day", "", "", "", `last must be a positive integer, got "-1"`},
		{"", "day", "", "", "", "last is required: a positive integer"},
		{"1", "", "", "", "", "unit is required: day or hour"},
		{"1", "month", "", "", "", `unit must be day or hour, got "month"`},
	} {
		w, err := ParseWindow(c.last, c.unit, c.ending, now)
		if c.err != "" {
			if kernel.MessageOf(err) != c.err {
				t.Errorf("%s %s: error %v, want %q", c.last, c.unit, err, c.err)
			}
			continue
		}
		from, to := w.Bounds()
		if err != nil || contacts.FormatDate(from) != c.from || contacts.FormatDate(to) != c.to {
			t.Errorf("%s %s %s: [%s, %s) %v, want [%s, %s)", c.last, c.unit, c.ending, from, to, err, c.from, c.to)
		}
	}
}

func TestParseRange(t *testing.T) {
	if r, err := ParseRange("2026-01-01", "2026-05-31"); err != nil || r.To.Sub(r.From) != MaxRange {
		t.Errorf("150 days: %v %v", r, err)
	}
	if _, err := ParseRange("2026-01-01", "2026-05-31T00:00:01Z"); kernel.MessageOf(err) != "date_from and date_to are more than 150 days apart" {
		t.Errorf("150 days and a second: %v", err)
	}
	if r, err := ParseRange("2026-11-20T10:00:00Z", "2026-11-20T10:00:00Z"); err != nil || !r.From.Equal(r.To) {
		t.Errorf("an empty range: %v %v", r, err)
	}
}

func TestCheckEvent(t *testing.T) {
	ev, err := EventInput{ID: "v1", ItemID: "MLA1", Date: "2026-11-20T10:00:00-03:00"}.Check("")
	if err != nil || ev.Kind != contacts.Visit || contacts.FormatDate(ev.Date) != "2026-11-20T13:00:00Z" {
		t.Errorf("a visit: %+v %v", ev, err)
	}
	long := make([]byte, contacts.MaxEventIDLength+1)
	for i := range long {
		long[i] = 'x'
	}
	if _, err := (EventInput{ID: string(long), ItemID: "MLA1", Date: "2026-11-20"}).Check("events[3]."); kernel.MessageOf(err) != "events[3].id: id must be at most 200 bytes" {
		t.Errorf("a long id: %v", err)
	}
	if _, err := (EventInput{ID: "v1", Date: "2026-11-20"}).Check(""); kernel.MessageOf(err) != "item_id: item_id is required" {
		t.Errorf("no item: %v", err)
	}
}
