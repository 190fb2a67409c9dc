package contactsporttest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/ports/contactsport"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func ev(id, item string, seller int64, k contacts.Kind, date string) contacts.Event {
	return contacts.Event{ID: id, ItemID: item, SellerID: seller, Kind: k, Date: at(date)}
}

func read(t *testing.T, c contactsport.Counters, s ...contactsport.Series) [][]int64 {
	t.Helper()
	got, err := c.Read(context.Background(), contactsport.Query{Series: s})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return got.Series
}

func hours(from string, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = at(from).Add(time.Duration(i) * time.Hour)
	}
	return out
}

func days(from string, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = at(from).AddDate(0, 0, i)
	}
	return out
}

// TestCounters is the contract every contactsport.Counters must meet.
// newCounters returns empty counters of the test's own.
func TestCounters(t *testing.T, newCounters func(t *testing.T) contactsport.Counters) {
	ctx := context.Background()
	item, user := contacts.ItemSubject("MLA1"), contacts.UserSubject(7)

	t.Run("hour and day buckets across a day boundary", func(t *testing.T) {
		c := newCounters(t)
		r, err := c.Add(ctx, []contacts.Event{
			ev("a", "MLA1", 7, contacts.Question, "2026-11-19T23:10:00Z"),
			ev("b", "MLA1", 7, contacts.Question, "2026-11-19T23:59:59Z"),
			ev("c", "MLA1", 7, contacts.Question, "2026-11-20T00:00:00Z"),
			ev("d", "MLA1", 7, contacts.Question, "2026-11-20T01:30:00Z"),
		})
		if err != nil || r.Accepted != 4 || r.Duplicates != 0 {
			t.Fatalf("Add = %+v, %v; want 4 accepted", r, err)
		}
		got := read(t, c,
			contactsport.Series{Kind: contacts.Question, Subject: item, Unit: contacts.Hour, Starts: hours("2026-11-19T22:00:00Z", 4)},
			contactsport.Series{Kind: contacts.Question, Subject: item, Unit: contacts.Day, Starts: days("2026-11-19T00:00:00Z", 2)},
			contactsport.Series{Kind: contacts.Question, Subject: user, Unit: contacts.Day, Starts: days("2026-11-19T00:00:00Z", 2)},
		)
		want := [][]int64{{0, 2, 1, 1}, {2, 2}, {2, 2}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Read = %v, want %v", got, want)
		}
	})

	t.Run("an event id is counted once, within and across batches", func(t *testing.T) {
		c := newCounters(t)
		e := ev("dup", "MLA1", 7, contacts.PhoneView, "2026-11-20T10:16:00Z")
		r, err := c.Add(ctx, []contacts.Event{e, e})
		if err != nil || r.Accepted != 1 || r.Duplicates != 1 || !reflect.DeepEqual(r.Counted, []bool{true, false}) {
			t.Fatalf("first Add = %+v, %v", r, err)
		}
		for i := 0; i < 3; i++ {
			r, err = c.Add(ctx, []contacts.Event{e})
			if err != nil || r.Accepted != 0 || r.Duplicates != 1 {
				t.Fatalf("retry Add = %+v, %v", r, err)
			}
		}
		got := read(t, c, contactsport.Series{Kind: contacts.PhoneView, Subject: item, Unit: contacts.Hour, Starts: hours("2026-11-20T10:00:00Z", 1)})
		if got[0][0] != 1 {
			t.Fatalf("count = %d, want 1", got[0][0])
		}
	})

	t.Run("kinds and subjects are kept apart; a seller sums its items", func(t *testing.T) {
		c := newCounters(t)
		_, err := c.Add(ctx, []contacts.Event{
			ev("1", "MLA1", 7, contacts.MsgApp, "2026-11-20T10:00:00Z"),
			ev("2", "MLA2", 7, contacts.MsgApp, "2026-11-20T10:05:00Z"),
			ev("3", "MLA2", 7, contacts.MsgApp, "2026-11-20T10:06:00Z"),
			ev("4", "MLA3", 8, contacts.MsgApp, "2026-11-20T10:06:00Z"),
			ev("5", "MLA1", 7, contacts.Question, "2026-11-20T10:06:00Z"),
		})
		if err != nil {
			t.Fatal(err)
		}
		d := days("2026-11-20T00:00:00Z", 1)
		s := func(k contacts.Kind, sub contacts.Subject) contactsport.Series {
			return contactsport.Series{Kind: k, Subject: sub, Unit: contacts.Day, Starts: d}
		}
		got := read(t, c, s(contacts.MsgApp, item), s(contacts.MsgApp, contacts.ItemSubject("MLA2")),
			s(contacts.MsgApp, user), s(contacts.MsgApp, contacts.UserSubject(8)), s(contacts.Question, user),
			s(contacts.PhoneView, user))
		want := [][]int64{{1}, {2}, {3}, {1}, {1}, {0}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Read = %v, want %v", got, want)
		}
	})

	t.Run("starts that are not consecutive, each in a hash of its own", func(t *testing.T) {
		c := newCounters(t)
		// An event on the 3rd of every month for a year (within the
		// retention), and at 10:05 of every 3rd day: the starts read are
		// those days (or hours) and the next, a month or days apart.
		var batch []contacts.Event
		var monthly, daily []time.Time
		for i := range 36 {
			if i < 12 {
				d := at("2025-12-03T00:00:00Z").AddDate(0, i, 0)
				monthly = append(monthly, d, d.AddDate(0, 0, 1))
				batch = append(batch, ev(fmt.Sprint("mo", i), "MLA1", 7, contacts.Question, d.Add(10*time.Hour).Format(time.RFC3339)))
			}
			h := at("2026-01-01T10:00:00Z").AddDate(0, 0, 3*i)
			daily = append(daily, h, h.Add(time.Hour))
			batch = append(batch, ev(fmt.Sprint("da", i), "MLA1", 7, contacts.PhoneView, h.Add(5*time.Minute).Format(time.RFC3339)))
		}
		if _, err := c.Add(ctx, batch); err != nil {
			t.Fatal(err)
		}
		got := read(t, c,
			contactsport.Series{Kind: contacts.Question, Subject: item, Unit: contacts.Day, Starts: monthly},
			contactsport.Series{Kind: contacts.PhoneView, Subject: item, Unit: contacts.Hour, Starts: daily})
		for s, series := range got {
			if want := []int{24, 72}[s]; len(series) != want {
				t.Fatalf("series %d: %d counts, want %d", s, len(series), want)
			}
			for j, n := range series {
				if want := int64(1 - j%2); n != want {
					t.Fatalf("series %d start %d = %d, want %d", s, j, n, want)
				}
			}
		}
	})

	t.Run("many series and buckets in one read; empty series", func(t *testing.T) {
		c := newCounters(t)
		var batch []contacts.Event
		for i := 0; i < 60; i++ {
			batch = append(batch, ev(fmt.Sprint("m", i), fmt.Sprint("MLA", 100+i%5), 9, contacts.PhoneView,
				at("2026-10-01T12:00:00Z").AddDate(0, 0, i).Format(time.RFC3339)))
		}
		if _, err := c.Add(ctx, batch); err != nil {
			t.Fatal(err)
		}
		var series []contactsport.Series
		for i := 0; i < 5; i++ {
			series = append(series, contactsport.Series{Kind: contacts.PhoneView, Subject: contacts.ItemSubject(fmt.Sprint("MLA", 100+i)),
				Unit: contacts.Day, Starts: days("2026-10-01T00:00:00Z", 60)})
		}
		series = append(series, contactsport.Series{Kind: contacts.PhoneView, Subject: contacts.UserSubject(9), Unit: contacts.Day},
			contactsport.Series{Kind: contacts.PhoneView, Subject: contacts.UserSubject(9), Unit: contacts.Day, Starts: days("2026-10-01T00:00:00Z", 60)})
		got := read(t, c, series...)
		for i := 0; i < 5; i++ {
			for j, n := range got[i] {
				want := int64(0)
				if j%5 == i {
					want = 1
				}
				if n != want {
					t.Fatalf("series %d day %d = %d, want %d", i, j, n, want)
				}
			}
		}
		if len(got[5]) != 0 {
			t.Fatalf("empty series = %v", got[5])
		}
		for j, n := range got[6] {
			if n != 1 {
				t.Fatalf("seller day %d = %d, want 1", j, n)
			}
		}
	})

	t.Run("a counted event is stored; an unknown one is not found", func(t *testing.T) {
		c := newCounters(t)
		e := ev("evt-1", "MLA1", 7, contacts.PhoneView, "2026-11-20T13:16:00Z")
		if _, err := c.Add(ctx, []contacts.Event{e}); err != nil {
			t.Fatal(err)
		}
		got, err := c.Event(ctx, "evt-1")
		want := e
		want.SellerID = 0
		if err != nil || got.ID != want.ID || got.ItemID != want.ItemID || got.Kind != want.Kind || !got.Date.Equal(want.Date) {
			t.Fatalf("Event = %+v, %v; want %+v", got, err, want)
		}
		if _, err := c.Event(ctx, "nope"); !errors.Is(err, contactsport.ErrNotFound) {
			t.Fatalf("Event(nope) err = %v, want ErrNotFound", err)
		}
	})

	t.Run("reset forgets counts and event ids", func(t *testing.T) {
		c := newCounters(t)
		e := ev("r", "MLA1", 7, contacts.Question, "2026-11-20T10:00:00Z")
		if _, err := c.Add(ctx, []contacts.Event{e}); err != nil {
			t.Fatal(err)
		}
		if err := c.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		s := contactsport.Series{Kind: contacts.Question, Subject: item, Unit: contacts.Hour, Starts: hours("2026-11-20T10:00:00Z", 1)}
		if got := read(t, c, s); got[0][0] != 0 {
			t.Fatalf("after reset = %d", got[0][0])
		}
		if r, err := c.Add(ctx, []contacts.Event{e}); err != nil || r.Accepted != 1 {
			t.Fatalf("re-add after reset = %+v, %v", r, err)
		}
	})

	t.Run("a span counts every event in [from, to), to the second", func(t *testing.T) {
		c := newCounters(t)
		// Around both bounds (from-1s, from, to-1s, to), inside the hours
		// of the bounds, on whole days between, and across midnights.
		var batch []contacts.Event
		for i, d := range []string{
			"2026-11-18T10:15:29Z", "2026-11-18T10:15:30Z", "2026-11-18T10:15:31Z", "2026-11-18T10:59:59Z", "2026-11-18T23:59:59Z",
			"2026-11-19T00:00:00Z", "2026-11-19T12:00:00Z",
			"2026-11-20T00:00:00Z", "2026-11-20T10:20:00Z", "2026-11-20T10:20:41Z", "2026-11-20T10:20:42Z", "2026-11-20T23:00:00Z",
		} {
			batch = append(batch, ev(fmt.Sprint("s", i), "MLA1", 7, contacts.PhoneView, d))
		}
		batch = append(batch, contacts.Event{ID: "frac", ItemID: "MLA1", SellerID: 7, Kind: contacts.PhoneView,
			Date: at("2026-11-20T10:20:41Z").Add(999 * time.Millisecond)})
		if _, err := c.Add(ctx, batch); err != nil {
			t.Fatal(err)
		}
		span := func(sub contacts.Subject, from, to string) contactsport.Span {
			return contactsport.Span{Kind: contacts.PhoneView, Subject: sub, Range: contacts.Range{From: at(from), To: at(to)}}
		}
		q := contactsport.Query{Spans: []contactsport.Span{
			span(item, "2026-11-18T10:15:30Z", "2026-11-20T10:20:42Z"), // from, from+1s, ..., to-1s, to-1s+999ms; not from-1s nor to
			span(user, "2026-11-18T10:15:30Z", "2026-11-20T10:20:42Z"),
			span(item, "2026-11-18T10:15:31Z", "2026-11-20T10:20:41Z"), // from+1s .. to-1s excluded
			span(item, "2026-11-20T10:15:00Z", "2026-11-20T10:21:00Z"), // inside one hour
			span(item, "2026-11-18T00:00:00Z", "2026-11-21T00:00:00Z"), // whole days
			span(item, "2026-11-18T23:59:59Z", "2026-11-19T00:00:01Z"), // across a midnight
			span(item, "2026-11-20T10:20:41Z", "2026-11-20T10:20:41Z"), // empty
			span(contacts.ItemSubject("MLA2"), "2026-11-18T00:00:00Z", "2026-11-21T00:00:00Z"),
			{Kind: contacts.Question, Subject: item, Range: contacts.Range{From: at("2026-11-18T00:00:00Z"), To: at("2026-11-21T00:00:00Z")}},
		}}
		got, err := c.Read(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want := []int64{10, 10, 7, 4, 13, 2, 0, 0, 0}
		if !reflect.DeepEqual(got.Spans, want) {
			t.Fatalf("spans = %v, want %v", got.Spans, want)
		}
	})

	t.Run("spans, series and known subjects in one read", func(t *testing.T) {
		c := newCounters(t)
		if _, err := c.Add(ctx, []contacts.Event{ev("k", "MLA1", 7, contacts.MsgApp, "2026-11-20T10:20:00Z")}); err != nil {
			t.Fatal(err)
		}
		q := contactsport.Query{
			Series: []contactsport.Series{{Kind: contacts.MsgApp, Subject: item, Unit: contacts.Hour, Starts: hours("2026-11-20T10:00:00Z", 1)}},
			Spans:  []contactsport.Span{{Kind: contacts.MsgApp, Subject: user, Range: contacts.Range{From: at("2026-11-20T10:20:00Z"), To: at("2026-11-20T10:20:01Z")}}},
			Known:  []contacts.Subject{item, user, contacts.ItemSubject("MLA2")},
		}
		got, err := c.Read(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want := contactsport.Answer{Series: [][]int64{{1}}, Spans: []int64{1}, Known: []bool{false, false, false}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Read = %+v, want %+v", got, want)
		}
		if err := c.MarkKnown(ctx, []contacts.Subject{item, user}); err != nil {
			t.Fatal(err)
		}
		if got, err = c.Read(ctx, q); err != nil || !reflect.DeepEqual(got.Known, []bool{true, true, false}) {
			t.Fatalf("known after MarkKnown = %v, %v", got.Known, err)
		}
		if err := c.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if got, err = c.Read(ctx, q); err != nil || !reflect.DeepEqual(got.Known, []bool{false, false, false}) {
			t.Fatalf("known after Reset = %v, %v", got.Known, err)
		}
	})

	t.Run("a span over months and years counts every event to the second", func(t *testing.T) {
		c := newCounters(t)
		// An event every 17 hours and 13 seconds over the last 370 days
		// (within the retention), for the item and its seller.
		end := time.Now().UTC().Truncate(time.Second).AddDate(0, 0, -1)
		start := end.AddDate(0, 0, -370)
		var batch []contacts.Event
		for d, i := start, 0; d.Before(end); d, i = d.Add(17*time.Hour+13*time.Second), i+1 {
			batch = append(batch, contacts.Event{ID: fmt.Sprint("y", i), ItemID: "MLA1", SellerID: 7, Kind: contacts.PhoneView, Date: d})
		}
		if _, err := c.Add(ctx, batch); err != nil {
			t.Fatal(err)
		}
		// Spans from a few seconds to 366 days, their bounds on an event,
		// a second either side of one, at midnight and at the first of a
		// month: whole months, parts of months read from their days or
		// from the month less the days left out, and the partial days.
		var spans []contactsport.Span
		var want []int64
		for k := range 40 {
			from := batch[(k*37)%len(batch)].Date.Add(time.Duration(k%3-1) * time.Second)
			if k%5 == 0 {
				from = time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC)
			}
			to := from.Add(time.Duration(k*k*k%366+1)*24*time.Hour + time.Duration(k*7919)*time.Second)
			if k%7 == 0 {
				to = from.Add(time.Duration(k) * time.Second)
			}
			if to.After(end) {
				to = end
			}
			if to.Before(from) {
				from, to = to, from
			}
			var n int64
			for _, e := range batch {
				if !e.Date.Before(from) && e.Date.Before(to) {
					n++
				}
			}
			for _, sub := range []contacts.Subject{item, user} {
				spans = append(spans, contactsport.Span{Kind: contacts.PhoneView, Subject: sub, Range: contacts.Range{From: from, To: to}})
				want = append(want, n)
			}
		}
		got, err := c.Read(ctx, contactsport.Query{Spans: spans})
		if err != nil {
			t.Fatal(err)
		}
		for i := range spans {
			if got.Spans[i] != want[i] {
				t.Errorf("span %v of %v = %d, want %d", spans[i].Range, spans[i].Subject, got.Spans[i], want[i])
			}
		}
	})

	t.Run("an empty batch counts nothing", func(t *testing.T) {
		c := newCounters(t)
		r, err := c.Add(ctx, nil)
		if err != nil || r.Accepted != 0 || r.Duplicates != 0 {
			t.Fatalf("Add(nil) = %+v, %v", r, err)
		}
	})
}
