package contacts

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var fuzzNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// FuzzParseDate: a date that parses is UTC and parses again, written in
// RFC 3339, to the same instant; nothing panics.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-11-20T13:00:00Z", "2026-11-20T10:16:00-03:00", "2026-11-20T10:16:00-0300", "2026-11-20",
		"2026-11-20T13:00", "2026-11-20T13:00:00.123456789Z", "2026-11-20T05:45:00 05:30", "", "x", "9999-12-31T23:59:59Z",
		"2026-02-30", "2026-11-20T25:00:00Z", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d, err := ParseDate("date_from", raw)
		if err != nil {
			return
		}
		if d.Location() != time.UTC {
			t.Fatalf("ParseDate(%q) = %v, not UTC", raw, d)
		}
		again, err := ParseDate("date_from", d.Format(time.RFC3339Nano))
		if err != nil || !again.Equal(d) {
			t.Fatalf("ParseDate(%q) = %v; written back and parsed: %v, %v", raw, d, again, err)
		}
	})
}

// FuzzParseRange: a range that parses is ordered and at most MaxRange long.
func FuzzParseRange(f *testing.F) {
	f.Add("2026-11-01T00:00:00Z", "2026-11-30T00:00:00Z")
	f.Add("2026-11-30", "2026-11-01")
	f.Add("2025-01-01", "2026-11-30")
	f.Add("", "2026-11-30")
	f.Fuzz(func(t *testing.T, from, to string) {
		r, err := ParseRange(from, to)
		if err != nil {
			return
		}
		if r.To.Before(r.From) || r.To.Sub(r.From) > MaxRange {
			t.Fatalf("ParseRange(%q, %q) = %+v", from, to, r)
		}
	})
}

// FuzzParseWindow: a window that parses has 1..max periods of its unit.
func FuzzParseWindow(f *testing.F) {
	for _, s := range [][4]string{{"7", "day", "2026-11-22T00:00:00Z", ""}, {"24", "hour", "", "desc"}, {"745", "hour", "", ""},
		{"0", "day", "", ""}, {"-1", "day", "", ""}, {"3", "week", "", ""}, {"1", "day", "x", "asc"}, {"366", "day", "", "DESC"}} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, last, unit, ending, order string) {
		w, err := ParseWindow(last, unit, ending, order, fuzzNow)
		if err != nil {
			return
		}
		limit := MaxLastDays
		if w.Unit == Hour {
			limit = MaxLastHours
		}
		if w.Last < 1 || w.Last > limit {
			t.Fatalf("ParseWindow(%q, %q) = %+v", last, unit, w)
		}
	})
}

// FuzzParseIDs: ids that parse are 1..MaxIDs distinct valid item ids.
func FuzzParseIDs(f *testing.F) {
	for _, s := range []string{"MLA1,MLA2", "MLA1,MLA1", "", ",", "MLA1,,MLA2", "mla1", "MLA1 ,MLA2", "MLB99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		ids, err := ParseIDs(raw)
		if err != nil {
			return
		}
		if len(ids) == 0 || len(ids) > MaxIDs {
			t.Fatalf("ParseIDs(%q) = %d ids", raw, len(ids))
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("ParseIDs(%q) repeats %s", raw, id)
			}
			seen[id] = true
			if _, err := ParseItemID(id); err != nil {
				t.Fatalf("ParseIDs(%q) gave %q, which ParseItemID refuses: %v", raw, id, err)
			}
		}
	})
}

// FuzzEventCheck: a sandbox contact event that checks names a known kind
// and an item id; a question's text is trimmed and within its limit.
func FuzzEventCheck(f *testing.F) {
	f.Add("e1", "MLA1100", "question", "2026-11-20T10:00:00Z", "¿Tiene stock?")
	f.Add("question-1", "MLA1", "phone_view", "2026-11-20", " ")
	f.Add("", "x", "msgapp", "", "\x00")
	f.Fuzz(func(t *testing.T, id, item, kind, date, text string) {
		ev, err := EventInput{ID: id, ItemID: item, Type: kind, Date: date}.Check("events[0].")
		if err == nil {
			if _, err := ParseKind(string(ev.Kind)); err != nil || ev.ItemID == "" {
				t.Fatalf("checked event %+v", ev)
			}
		}
		if q, err := CheckQuestionText(text); err == nil && (q == "" || !utf8.ValidString(q) || strings.ContainsRune(q, 0)) {
			t.Fatalf("CheckQuestionText(%q) = %q", text, q)
		}
	})
}
