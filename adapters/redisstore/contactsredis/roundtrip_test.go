package contactsredis_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/feria/feria/adapters/redisstore/contactsredis"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/ports/contactsport"
	"github.com/feria/feria/test/testenv"
)

// Writes are one round trip per batch and reads one per request, whatever
// the window: a 366-day window, a 744-hour window, a 366-day total with
// partial days at both ends, and 50 ids × 30 days, built with the same core
// rules the service uses.
func TestOneRoundTripPerBatchAndRequest(t *testing.T) {
	ctx := context.Background()
	for name, open := range redises() {
		t.Run(name, func(t *testing.T) {
			rdb := open(t)
			rt := &testenv.RoundTrips{}
			rdb.AddHook(rt)
			s := contactsredis.New(rdb, fmt.Sprintf("test:contacts:rt:%d:", seq.Add(1)))
			end := time.Date(2026, 11, 20, 12, 30, 0, 0, time.UTC)

			batch := make([]contacts.Event, contacts.MaxBatch)
			warm := make([]contacts.Event, contacts.MaxBatch)
			for i := range batch {
				batch[i] = contacts.Event{ID: fmt.Sprint("rt-", i), ItemID: fmt.Sprint("MLA", 1+i%50), SellerID: 7,
					Kind: contacts.PhoneView, Date: end.Add(-time.Duration(i) * 9 * time.Hour)}
				warm[i] = contacts.Event{ID: fmt.Sprint("warm-", i), ItemID: "MLA999", SellerID: 8, Kind: contacts.Question, Date: end}
			}
			// The first script call a node gets after its start needs EVAL
			// after EVALSHA (NOSCRIPT); from then on a batch is one EVALSHA
			// on a server, one pipeline of EVALSHAs (one per slot) on a
			// cluster. The warm-up's record keys reach every node.
			if _, err := s.Add(ctx, warm); err != nil {
				t.Fatal(err)
			}
			rt.Reset()
			r, err := s.Add(ctx, batch)
			if err != nil || r.Accepted != contacts.MaxBatch {
				t.Fatalf("add: %+v %v", r, err)
			}
			if rt.Total() != 1 {
				t.Errorf("a batch of %d events took %d round trips (%d single, %d pipelines), want 1",
					len(batch), rt.Total(), rt.Single.Load(), rt.Pipelines.Load())
			}
			rt.Reset()
			if r, err := s.Add(ctx, batch); err != nil || r.Duplicates != contacts.MaxBatch || rt.Total() != 1 {
				t.Errorf("re-sent batch: %+v %v, %d round trips, want all duplicates in 1", r, err, rt.Total())
			}

			read := func(name string, series []contactsport.Series, buckets int) [][]int64 {
				t.Helper()
				rt.Reset()
				ans, err := s.Read(ctx, contactsport.Query{Series: series})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				out := ans.Series
				if rt.Single.Load() != 0 || rt.Pipelines.Load() != 1 {
					t.Errorf("%s: %d single commands and %d pipelines (%d commands), want 1 pipeline",
						name, rt.Single.Load(), rt.Pipelines.Load(), rt.Pipelined.Load())
				}
				n := 0
				for _, cs := range out {
					n += len(cs)
				}
				if n != buckets {
					t.Errorf("%s: %d buckets answered, want %d", name, n, buckets)
				}
				t.Logf("%s: 1 round trip, %d HMGETs, %d buckets", name, rt.Pipelined.Load(), n)
				return out
			}
			sum := func(out [][]int64) (n int64) {
				for _, cs := range out {
					for _, c := range cs {
						n += c
					}
				}
				return n
			}
			window := func(sub contacts.Subject, u contacts.Unit, last int) contactsport.Series {
				w := contacts.WindowSpec{Unit: u, Last: last, Ending: end}
				return contactsport.Series{Kind: contacts.PhoneView, Subject: sub, Unit: u, Starts: w.Starts()}
			}

			seller := contacts.UserSubject(7)
			// 1000 events 9 hours apart reach back 375 days: a 366-day
			// window holds those of the last 366 days.
			inDays := 0
			from := contacts.Day.Floor(end).AddDate(0, 0, -365)
			for _, e := range batch {
				if !e.Date.Before(from) {
					inDays++
				}
			}
			if got := sum(read("366-day window", []contactsport.Series{window(seller, contacts.Day, contacts.MaxLastDays)}, 366)); got != int64(inDays) {
				t.Errorf("366-day window of the seller = %d, want %d", got, inDays)
			}
			read("744-hour window", []contactsport.Series{window(seller, contacts.Hour, contacts.MaxLastHours)}, 744)

			// A 366-day total with partial days at both ends, exact, and
			// whether the seller and 50 items are known: one pipeline.
			rg, err := contacts.ParseRange("2025-11-20T12:30:00Z", "2026-11-21T12:30:00Z")
			if err != nil {
				t.Fatal(err)
			}
			known := []contacts.Subject{seller}
			for i := 1; i <= contacts.MaxIDs; i++ {
				known = append(known, contacts.ItemSubject(fmt.Sprint("MLA", i)))
			}
			rt.Reset()
			ans, err := s.Read(ctx, contactsport.Query{Spans: []contactsport.Span{{Kind: contacts.PhoneView, Subject: seller, Range: rg}}, Known: known})
			if err != nil {
				t.Fatal(err)
			}
			if rt.Single.Load() != 0 || rt.Pipelines.Load() != 1 {
				t.Errorf("366-day total: %d single commands and %d pipelines, want 1 pipeline", rt.Single.Load(), rt.Pipelines.Load())
			}
			var inRange int64 // the warm-up's events are of another kind and seller
			for _, e := range batch {
				if !e.Date.Before(rg.From) && e.Date.Before(rg.To) {
					inRange++
				}
			}
			if ans.Spans[0] != inRange {
				t.Errorf("366-day total = %d, want %d", ans.Spans[0], inRange)
			}
			t.Logf("366-day total and 51 known marks: 1 round trip, %d commands", rt.Pipelined.Load())

			var items []contactsport.Series
			for i := 1; i <= contacts.MaxIDs; i++ {
				items = append(items, window(contacts.ItemSubject(fmt.Sprint("MLA", i)), contacts.Day, 30))
			}
			read("50 ids x 30 days", items, 50*30)
		})
	}
}
