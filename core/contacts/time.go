package contacts

import (
	"strconv"
	"strings"
	"time"
)

// Unit is the length of one interval of a time window.
type Unit string

const (
	Hour Unit = "hour"
	Day  Unit = "day"
)

// Duration is the length of one interval.
func (u Unit) Duration() time.Duration {
	if u == Day {
		return 24 * time.Hour
	}
	return time.Hour
}

// Floor returns the start of the UTC-aligned interval containing t.
func (u Unit) Floor(t time.Time) time.Time {
	t = t.UTC()
	if u == Day {
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return t.Truncate(time.Hour)
}

// Ceil returns the first interval start at or after t.
func (u Unit) Ceil(t time.Time) time.Time {
	f := u.Floor(t)
	if f.Equal(t) {
		return f
	}
	return f.Add(u.Duration())
}

// layouts are the ISO 8601 forms accepted, with and without an offset; a
// form without one is UTC.
var layouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999-0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04-0700",
	"2006-01-02T15:04",
	"2006-01-02",
}

// ParseDate reads an ISO 8601 date-time, with or without offset (no offset
// means UTC), or a bare date (midnight UTC). The result is in UTC.
func ParseDate(name, raw string) (time.Time, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return time.Time{}, ErrBadRequest.Withf("%s is required: an ISO 8601 date-time such as 2026-11-20T00:00:00Z", name)
	}
	// An unencoded "+05:30" in a query string arrives as " 05:30" (a '+'
	// is a space in a query): read a space after the time as that '+'.
	if t := strings.IndexByte(s, 'T'); t > 0 {
		if sp := strings.LastIndexByte(s, ' '); sp > t {
			s = s[:sp] + "+" + s[sp+1:]
		}
	}
	for _, l := range layouts {
		if t, err := time.ParseInLocation(l, s, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, ErrBadRequest.Withf("%s %q is not an ISO 8601 date-time such as 2026-11-20T00:00:00Z or 2026-11-20T00:00:00-03:00", name, raw)
}

// FormatDate is how dates are answered: UTC, ISO 8601, to the second.
func FormatDate(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Range is a total's period: From inclusive, To exclusive, both UTC.
type Range struct {
	From, To time.Time
}

// ParseRange reads date_from and date_to: both required, from not after
// to, at most MaxRange apart.
func ParseRange(from, to string) (Range, error) {
	f, err := ParseDate("date_from", from)
	if err != nil {
		return Range{}, err
	}
	t, err := ParseDate("date_to", to)
	if err != nil {
		return Range{}, err
	}
	if f.After(t) {
		return Range{}, ErrBadRequest.Withf("date_from %s is after date_to %s", FormatDate(f), FormatDate(t))
	}
	if t.Sub(f) > MaxRange {
		return Range{}, ErrBadRequest.Withf("date_from and date_to are %d days apart; at most %d days are allowed",
			int(t.Sub(f).Hours()/24), int(MaxRange.Hours()/24))
	}
	return Range{From: f, To: t}, nil
}

// Split splits a range into what answers its total exactly: the whole UTC
// days it covers, [whole.From, whole.To) from midnight to midnight (read
// from day buckets; empty when From equals To), and the parts of days at
// its two ends (at most two edges, each within one UTC day, counted to the
// event). An event anywhere in [From, To) lies in exactly one of them.
func (r Range) Split() (whole Range, edges []Range) {
	if !r.From.Before(r.To) {
		return Range{}, nil
	}
	first, last := Day.Ceil(r.From), Day.Floor(r.To)
	if first.After(last) { // both ends inside one day
		return Range{}, []Range{r}
	}
	if r.From.Before(first) {
		edges = append(edges, Range{From: r.From, To: first})
	}
	if last.Before(r.To) {
		edges = append(edges, Range{From: last, To: r.To})
	}
	return Range{From: first, To: last}, edges
}

// WindowSpec is a trailing time window: Last intervals of Unit, the last one
// containing Ending.
type WindowSpec struct {
	Unit   Unit
	Last   int
	Ending time.Time
	Desc   bool
}

// ParseWindow reads last, unit, ending and order; ending defaults to now.
func ParseWindow(last, unit, ending, order string, now time.Time) (WindowSpec, error) {
	var w WindowSpec
	switch unit {
	case string(Hour), string(Day):
		w.Unit = Unit(unit)
	case "":
		return w, ErrBadRequest.With("unit is required: hour or day")
	default:
		return w, ErrBadRequest.Withf("unit must be hour or day, got %q", unit)
	}
	if last == "" {
		return w, ErrBadRequest.With("last is required: a positive integer")
	}
	n, err := strconv.Atoi(last)
	if err != nil || n <= 0 {
		return w, ErrBadRequest.Withf("last must be a positive integer, got %q", last)
	}
	max := MaxLastHours
	if w.Unit == Day {
		max = MaxLastDays
	}
	if n > max {
		return w, ErrBadRequest.Withf("last must be at most %d when unit is %s, got %d", max, w.Unit, n)
	}
	w.Last = n
	w.Ending = now.UTC()
	if ending != "" {
		if w.Ending, err = ParseDate("ending", ending); err != nil {
			return w, err
		}
	}
	switch order {
	case "", "asc":
	case "desc":
		w.Desc = true
	default:
		return w, ErrBadRequest.Withf("order must be asc or desc, got %q", order)
	}
	return w, nil
}

// Bounds returns the window's start (inclusive) and end (exclusive).
func (w WindowSpec) Bounds() (from, to time.Time) {
	last := w.Unit.Floor(w.Ending)
	return last.Add(-time.Duration(w.Last-1) * w.Unit.Duration()), last.Add(w.Unit.Duration())
}

// Starts returns the start of every interval, oldest first.
func (w WindowSpec) Starts() []time.Time {
	from, _ := w.Bounds()
	out := make([]time.Time, w.Last)
	for i := range out {
		out[i] = from.Add(time.Duration(i) * w.Unit.Duration())
	}
	return out
}

// Bucket is the count of one interval.
type Bucket struct {
	Start time.Time
	Total int64
}

// Window is a time-window result of one subject. Its results are not
// stored as buckets: each one's start follows from From and its place, so
// a window keeps its counts only (a 50-id window would otherwise build
// 1,500 dated buckets per request).
type Window struct {
	Subject  Subject
	Kind     Kind
	Unit     Unit
	Last     int
	From, To time.Time
	// Counts are the intervals' totals, oldest first.
	Counts []int64
	// Desc: the results come newest first.
	Desc  bool
	Total int64
}

// NewWindow builds the result of spec w from the counts of its intervals,
// oldest first, which it keeps (not a copy); results come out in the order
// the window asked for.
func NewWindow(s Subject, k Kind, w WindowSpec, counts []int64) Window {
	from, to := w.Bounds()
	out := Window{Subject: s, Kind: k, Unit: w.Unit, Last: w.Last, From: from, To: to, Counts: counts, Desc: w.Desc}
	for _, c := range counts {
		out.Total += c
	}
	return out
}

// Len is the number of results.
func (w *Window) Len() int { return len(w.Counts) }

// Result is the i-th result, in the order asked for.
func (w *Window) Result(i int) Bucket {
	j := w.interval(i)
	return Bucket{Start: w.From.Add(time.Duration(j) * w.Unit.Duration()), Total: w.Counts[j]}
}

// Count is the i-th result's total, in the order asked for: Result(i)'s
// without its start.
func (w *Window) Count(i int) int64 { return w.Counts[w.interval(i)] }

// interval is the place among the intervals (oldest first) of the i-th
// result.
func (w *Window) interval(i int) int {
	if w.Desc {
		return len(w.Counts) - 1 - i
	}
	return i
}

// Results are the results, in the order asked for.
func (w *Window) Results() []Bucket {
	out := make([]Bucket, w.Len())
	for i := range out {
		out[i] = w.Result(i)
	}
	return out
}

// Total is a count between two dates.
type Total struct {
	Subject Subject
	Kind    Kind
	Range   Range
	Total   int64
}
