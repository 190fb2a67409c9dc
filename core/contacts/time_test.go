package contacts

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/core/kernel"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func TestParseDate(t *testing.T) {
	ok := map[string]string{
		"2026-11-20T10:15:00Z":          "2026-11-20T10:15:00Z",
		"2026-11-20T10:16:00-03:00":     "2026-11-20T13:16:00Z",
		"2026-11-20T10:16:00+05:30":     "2026-11-20T04:46:00Z",
		"2026-11-20T10:16:00 05:30":     "2026-11-20T04:46:00Z", // '+' decoded as a space from a query
		"2026-11-20T10:16:00 0530":      "2026-11-20T04:46:00Z",
		"2026-11-20T22:00:00-03:00":     "2026-11-21T01:00:00Z",
		"2026-11-20T10:15:00":           "2026-11-20T10:15:00Z",
		"2026-11-20T10:15:00.000-03:00": "2026-11-20T13:15:00Z",
		"2026-11-20T10:15:00.000-0300":  "2026-11-20T13:15:00Z",
		"2026-11-20T10:15:00.123":       "2026-11-20T10:15:00Z",
		"2026-11-20T10:15":              "2026-11-20T10:15:00Z",
		"2026-11-20":                    "2026-11-20T00:00:00Z",
		"2026-11-20T05:30:00+05:30":     "2026-11-20T00:00:00Z",
	}
	for in, want := range ok {
		got, err := ParseDate("date_from", in)
		if err != nil || FormatDate(got) != want || got.Location() != time.UTC {
			t.Errorf("ParseDate(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"yesterday", "2026-13-01", "2026-11-20 10:00:00", "1700000000"} {
		_, err := ParseDate("date_from", in)
		if kernel.KindOf(err) != kernel.Invalid || !strings.Contains(kernel.MessageOf(err), "date_from") {
			t.Errorf("ParseDate(%q) err = %v, want a bad request naming date_from", in, err)
		}
	}
	if _, err := ParseDate("date_to", ""); kernel.MessageOf(err) != "date_to is required: an ISO 8601 date-time such as 2026-11-20T00:00:00Z" {
		t.Errorf("empty: %v", err)
	}
}

func TestParseRange(t *testing.T) {
	r, err := ParseRange("2026-11-20T00:00:00-03:00", "2026-11-21T00:00:00-03:00")
	if err != nil || !r.From.Equal(ts("2026-11-20T03:00:00Z")) || !r.To.Equal(ts("2026-11-21T03:00:00Z")) {
		t.Fatalf("ParseRange = %+v, %v", r, err)
	}
	bad := []struct{ from, to, msg string }{
		{"", "2026-11-20", "date_from is required: an ISO 8601 date-time such as 2026-11-20T00:00:00Z"},
		{"2026-11-20", "", "date_to is required: an ISO 8601 date-time such as 2026-11-20T00:00:00Z"},
		{"2026-11-21", "2026-11-20", "date_from 2026-11-21T00:00:00Z is after date_to 2026-11-20T00:00:00Z"},
		{"2025-01-01", "2026-11-20", "date_from and date_to are 688 days apart; at most 366 days are allowed"},
	}
	for _, b := range bad {
		_, err := ParseRange(b.from, b.to)
		if kernel.KindOf(err) != kernel.Invalid || kernel.MessageOf(err) != b.msg {
			t.Errorf("ParseRange(%q, %q) = %v, want %q", b.from, b.to, err, b.msg)
		}
	}
	if _, err := ParseRange("2026-11-20", "2026-11-20"); err != nil {
		t.Errorf("an empty range is valid: %v", err)
	}
}

func TestSplit(t *testing.T) {
	rg := func(from, to string) Range { return Range{From: ts(from), To: ts(to)} }
	whole, edges := rg("2026-11-19T22:30:15Z", "2026-11-22T02:00:01Z").Split()
	wantEdges := []Range{rg("2026-11-19T22:30:15Z", "2026-11-20T00:00:00Z"), rg("2026-11-22T00:00:00Z", "2026-11-22T02:00:01Z")}
	if whole != rg("2026-11-20T00:00:00Z", "2026-11-22T00:00:00Z") || !reflect.DeepEqual(edges, wantEdges) {
		t.Fatalf("Split = %v, %v", whole, edges)
	}
	whole, edges = rg("2026-11-20T10:00:00Z", "2026-11-20T10:00:00Z").Split()
	if whole.From.Before(whole.To) || len(edges) != 0 {
		t.Fatalf("empty range splits into %v %v", whole, edges)
	}
	whole, edges = rg("2026-11-20T10:15:00Z", "2026-11-20T10:20:00Z").Split()
	if whole.From.Before(whole.To) || !reflect.DeepEqual(edges, []Range{rg("2026-11-20T10:15:00Z", "2026-11-20T10:20:00Z")}) {
		t.Fatalf("inside one day: %v %v", whole, edges)
	}
	whole, edges = rg("2026-11-20T00:00:00Z", "2026-11-20T10:20:00Z").Split()
	if whole.From.Before(whole.To) || !reflect.DeepEqual(edges, []Range{rg("2026-11-20T00:00:00Z", "2026-11-20T10:20:00Z")}) {
		t.Fatalf("from midnight: %v %v", whole, edges)
	}
	whole, edges = rg("2025-11-20T00:00:00Z", "2026-11-20T00:00:00Z").Split()
	if whole.To.Sub(whole.From) != 365*24*time.Hour || len(edges) != 0 {
		t.Fatalf("a year: %v %d edges", whole, len(edges))
	}
	whole, edges = rg("2026-11-19T12:00:00Z", "2026-11-20T12:00:00Z").Split()
	if whole.From.Before(whole.To) || len(edges) != 2 {
		t.Fatalf("a day across midnight: %v %v", whole, edges)
	}
}

func TestParseWindow(t *testing.T) {
	now := ts("2026-11-20T12:34:00Z")
	w, err := ParseWindow("3", "hour", "", "", now)
	if err != nil {
		t.Fatal(err)
	}
	from, to := w.Bounds()
	if !from.Equal(ts("2026-11-20T10:00:00Z")) || !to.Equal(ts("2026-11-20T13:00:00Z")) {
		t.Fatalf("hour bounds %v %v", from, to)
	}
	// A day window ending at 01:00-03:00 (04:00Z) ends with that UTC day.
	w, err = ParseWindow("2", "day", "2026-11-20T23:30:00-03:00", "desc", now)
	if err != nil {
		t.Fatal(err)
	}
	from, to = w.Bounds()
	if !from.Equal(ts("2026-11-20T00:00:00Z")) || !to.Equal(ts("2026-11-22T00:00:00Z")) || !w.Desc {
		t.Fatalf("day bounds %v %v", from, to)
	}
	if got := w.Starts(); !reflect.DeepEqual(got, []time.Time{ts("2026-11-20T00:00:00Z"), ts("2026-11-21T00:00:00Z")}) {
		t.Fatalf("starts %v", got)
	}
	bad := map[[4]string]string{
		{"", "day", "", ""}:            "last is required: a positive integer",
		{"0", "day", "", ""}:           `last must be a positive integer, got "0"`,
		{"-2", "day", "", ""}:          `last must be a positive integer, got "-2"`,
		{"x", "day", "", ""}:           `last must be a positive integer, got "x"`,
		{"367", "day", "", ""}:         "last must be at most 366 when unit is day, got 367",
		{"745", "hour", "", ""}:        "last must be at most 744 when unit is hour, got 745",
		{"3", "", "", ""}:              "unit is required: hour or day",
		{"3", "week", "", ""}:          `unit must be hour or day, got "week"`,
		{"3", "day", "soon", ""}:       `ending "soon" is not an ISO 8601 date-time such as 2026-11-20T00:00:00Z or 2026-11-20T00:00:00-03:00`,
		{"3", "day", "", "sideways"}:   `order must be asc or desc, got "sideways"`,
		{"1.5", "hour", "", "asc"}:     `last must be a positive integer, got "1.5"`,
		{"3", "DAY", "", "asc"}:        `unit must be hour or day, got "DAY"`,
		{"3", "day", "", "descending"}: `order must be asc or desc, got "descending"`,
	}
	for in, msg := range bad {
		_, err := ParseWindow(in[0], in[1], in[2], in[3], now)
		if kernel.KindOf(err) != kernel.Invalid || kernel.MessageOf(err) != msg {
			t.Errorf("ParseWindow%v = %v, want %q", in, err, msg)
		}
	}
}

func TestNewWindowOrder(t *testing.T) {
	w := WindowSpec{Unit: Hour, Last: 3, Ending: ts("2026-11-20T00:10:00Z")}
	got := NewWindow(ItemSubject("MLA1"), Question, w, []int64{1, 2, 3})
	if r := got.Results(); got.Total != 6 || len(r) != 3 || !r[0].Start.Equal(ts("2026-11-19T22:00:00Z")) || r[0].Total != 1 ||
		!r[2].Start.Equal(ts("2026-11-20T00:00:00Z")) || r[2].Total != 3 {
		t.Fatalf("asc %+v", got)
	}
	w.Desc = true
	got = NewWindow(ItemSubject("MLA1"), Question, w, []int64{1, 2, 3})
	if r := got.Results(); got.Total != 6 || len(r) != 3 || !r[0].Start.Equal(ts("2026-11-20T00:00:00Z")) || r[0].Total != 3 ||
		!r[2].Start.Equal(ts("2026-11-19T22:00:00Z")) || r[2].Total != 1 {
		t.Fatalf("desc %+v", got)
	}
	for i, want := range []int64{3, 2, 1} {
		if got.Count(i) != want {
			t.Errorf("desc Count(%d) = %d, want %d", i, got.Count(i), want)
		}
	}
}

func TestIDs(t *testing.T) {
	ids, err := ParseIDs("MLA1, MLA2,MLA1")
	if err != nil || !reflect.DeepEqual(ids, []string{"MLA1", "MLA2"}) {
		t.Fatalf("ParseIDs = %v, %v", ids, err)
	}
	for in, msg := range map[string]string{
		"":          "ids is required: a comma-separated list of item ids",
		"MLA1,abc":  `item id "abc" cannot be decoded: it must be a site id followed by digits, e.g. MLA1100`,
		"MLA1,,":    `item id "" cannot be decoded: it must be a site id followed by digits, e.g. MLA1100`,
		"XXX1":      `item id "XXX1" cannot be decoded: it must be a site id followed by digits, e.g. MLA1100`,
		"MLA1,MLA2": "",
	} {
		_, err := ParseIDs(in)
		if kernel.MessageOf(err) != msg && !(msg == "" && err == nil) {
			t.Errorf("ParseIDs(%q) = %v, want %q", in, err, msg)
		}
	}
	many := "MLA0"
	for i := 1; i <= MaxIDs; i++ {
		many += ",MLA" + string(rune('0'+i%10)) + string(rune('0'+i/10))
	}
	_, err = ParseIDs(many)
	if want := fmt.Sprintf("ids names %d items; at most %d are allowed", MaxIDs+1, MaxIDs); kernel.MessageOf(err) != want {
		t.Errorf("one id too many: %v, want %q", err, want)
	}
	for _, in := range []string{"0", "-1", "x", "1.0", ""} {
		if _, err := ParseUserID(in); kernel.KindOf(err) != kernel.Invalid {
			t.Errorf("ParseUserID(%q) = %v", in, err)
		}
	}
}

func TestEventCheck(t *testing.T) {
	good := EventInput{ID: "e", ItemID: "MLA1", Type: "phone_view", Date: "2026-11-20T10:16:00-03:00"}
	e, err := good.Check("events[0].")
	if err != nil || e.Kind != PhoneView || !e.Date.Equal(ts("2026-11-20T13:16:00Z")) {
		t.Fatalf("Check = %+v, %v", e, err)
	}
	cases := map[string]EventInput{
		"events[0].id":      {ItemID: "MLA1", Type: "question", Date: "2026-11-20"},
		"events[0].item_id": {ID: "e", ItemID: "nope", Type: "question", Date: "2026-11-20"},
		"events[0].type":    {ID: "e", ItemID: "MLA1", Type: "call", Date: "2026-11-20"},
		"events[0].date":    {ID: "e", ItemID: "MLA1", Type: "question", Date: "today"},
	}
	for field, in := range cases {
		_, err := in.Check("events[0].")
		var ke *kernel.Error
		if e, ok := err.(*kernel.Error); ok {
			ke = e
		}
		if ke == nil || ke.Kind != kernel.Invalid || len(ke.Causes) != 1 || ke.Causes[0].Code != field {
			t.Errorf("%s: %v", field, err)
		}
	}
}

func TestQuestionText(t *testing.T) {
	if got, err := CheckQuestionText("  hola?  "); err != nil || got != "hola?" {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := CheckQuestionText("   "); kernel.MessageOf(err) != "text is required: the question must not be empty" {
		t.Fatal(err)
	}
	long := make([]rune, MaxQuestionText+1)
	for i := range long {
		long[i] = 'ñ'
	}
	if _, err := CheckQuestionText(string(long)); kernel.MessageOf(err) != "text is 2001 characters long; at most 2000 are allowed" {
		t.Fatal(err)
	}
}
