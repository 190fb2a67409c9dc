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

// Benchmarks run against the real Redis of TEST_REDIS_URL.

var benchStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// BenchmarkIngest counts batches of 100 new events (one script call per
// batch) and reports events/s.
func BenchmarkIngest(b *testing.B) {
	for _, size := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			s := contactsredis.New(testenv.Redis(b), "bench:contacts:")
			ctx := context.Background()
			batch := make([]contacts.Event, size)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := range batch {
					n := i*size + j
					batch[j] = contacts.Event{ID: fmt.Sprint("e", n), ItemID: fmt.Sprint("MLA", 1000+n%500), SellerID: int64(1 + n%50),
						Kind: contacts.Kinds[n%3], Date: benchStart.Add(time.Duration(n%(365*24)) * time.Hour)}
				}
				if _, err := s.Add(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkIngestRecent counts batches of 100 new events as they arrive
// live: 50 items of 5 sellers, every event within the same hour, so that a
// batch keeps touching the same buckets. It reports events/s.
func BenchmarkIngestRecent(b *testing.B) {
	s := contactsredis.New(testenv.Redis(b), "bench:contacts:")
	ctx := context.Background()
	batch := make([]contacts.Event, 100)
	hour := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range batch {
			n := i*len(batch) + j
			batch[j] = contacts.Event{ID: fmt.Sprint("r", n), ItemID: fmt.Sprint("MLA", 1000+n%50), SellerID: int64(1 + n%5),
				Kind: contacts.PhoneView, Date: hour.Add(time.Duration(n%3600) * time.Second)}
		}
		if _, err := s.Add(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkIngestDuplicates re-sends a batch already counted: the cost of a
// client's retry.
func BenchmarkIngestDuplicates(b *testing.B) {
	s := contactsredis.New(testenv.Redis(b), "bench:contacts:")
	ctx := context.Background()
	batch := make([]contacts.Event, 100)
	for j := range batch {
		batch[j] = contacts.Event{ID: fmt.Sprint("d", j), ItemID: "MLA1", SellerID: 1, Kind: contacts.Question, Date: benchStart}
	}
	if _, err := s.Add(ctx, batch); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r, err := s.Add(ctx, batch); err != nil || r.Duplicates != 100 {
			b.Fatal(r, err)
		}
	}
	b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "events/s")
}

// fill writes one event per item per day for a year, so that every bucket a
// read touches holds a value.
func fill(b *testing.B, s *contactsredis.Store, items int) {
	b.Helper()
	ctx := context.Background()
	var batch []contacts.Event
	for it := 0; it < items; it++ {
		for d := 0; d < 366; d++ {
			batch = append(batch, contacts.Event{ID: fmt.Sprint("f", it, "-", d), ItemID: fmt.Sprint("MLA", 1000+it), SellerID: 1,
				Kind: contacts.PhoneView, Date: benchStart.AddDate(0, 0, d).Add(time.Duration(d%24) * time.Hour)})
			if len(batch) == 1000 {
				if _, err := s.Add(ctx, batch); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
		}
	}
	if _, err := s.Add(ctx, batch); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkReadWindow50x30Days reads a 30-day daily window of 50 items:
// 1500 buckets in one pipeline.
func BenchmarkReadWindow50x30Days(b *testing.B) {
	s := contactsredis.New(testenv.Redis(b), "bench:contacts:")
	fill(b, s, 50)
	w := contacts.WindowSpec{Unit: contacts.Day, Last: 30, Ending: benchStart.AddDate(0, 6, 0)}
	series := make([]contactsport.Series, 50)
	for i := range series {
		series[i] = contactsport.Series{Kind: contacts.PhoneView, Subject: contacts.ItemSubject(fmt.Sprint("MLA", 1000+i)), Unit: contacts.Day, Starts: w.Starts()}
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, err := s.Read(ctx, contactsport.Query{Series: series})
		if err != nil || got.Series[49][29] != 1 {
			b.Fatal(got.Series[49], err)
		}
	}
}

// BenchmarkReadYearTotal reads a one-year date-range total whose bounds are
// not whole days, as the service asks it: 364 day buckets, the two partial
// days counted exactly, and the item's known mark, in one pipeline.
func BenchmarkReadYearTotal(b *testing.B) {
	s := contactsredis.New(testenv.Redis(b), "bench:contacts:")
	fill(b, s, 1)
	r := contacts.Range{From: benchStart.Add(12 * time.Hour), To: benchStart.AddDate(1, 0, 0).Add(-12 * time.Hour)}
	sub := contacts.ItemSubject("MLA1000")
	q := contactsport.Query{Spans: []contactsport.Span{{Kind: contacts.PhoneView, Subject: sub, Range: r}}, Known: []contacts.Subject{sub}}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got, err := s.Read(ctx, q); err != nil || got.Spans[0] != 364 {
			b.Fatal(got, err)
		}
	}
}

// BenchmarkMemoryItemYear measures what one item costs in Redis for a year
// of one kind of contact: with an event in every hour of the year (the
// worst case: every hour field and day field exists) and with one event a
// day. It reports bytes of bucket keys per item-year (item and seller
// buckets apart) and bytes per event id key.
func BenchmarkMemoryItemYear(b *testing.B) {
	rdb := testenv.Redis(b)
	ctx := context.Background()
	for _, perDay := range []int{24, 1} {
		b.Run(fmt.Sprintf("events_per_day=%d", perDay), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				prefix := fmt.Sprintf("mem:%d:%d:", perDay, i)
				s := contactsredis.New(rdb, prefix)
				var batch []contacts.Event
				n := 0
				for d := 0; d < 365; d++ {
					for h := 0; h < perDay; h++ {
						batch = append(batch, contacts.Event{ID: fmt.Sprintf("evt-%08d", n), ItemID: "MLA1234567890", SellerID: 123456789,
							Kind: contacts.PhoneView, Date: benchStart.AddDate(0, 0, d).Add(time.Duration(h) * time.Hour)})
						n++
						if len(batch) == 1000 {
							if _, err := s.Add(ctx, batch); err != nil {
								b.Fatal(err)
							}
							batch = batch[:0]
						}
					}
				}
				if _, err := s.Add(ctx, batch); err != nil {
					b.Fatal(err)
				}
				sum := func(pattern string) (bytes, keys int64) {
					var cursor uint64
					for {
						ks, next, err := rdb.Scan(ctx, cursor, prefix+pattern, 1000).Result()
						if err != nil {
							b.Fatal(err)
						}
						for _, k := range ks {
							m, err := rdb.MemoryUsage(ctx, k, 0).Result()
							if err != nil {
								b.Fatal(err)
							}
							bytes += m
							keys++
						}
						if cursor = next; cursor == 0 {
							return bytes, keys
						}
					}
				}
				item, itemKeys := sum("{i:*")
				seller, _ := sum("{u:*")
				ids, idKeys := sum("e:*")
				b.ReportMetric(float64(item), "item-bytes/item-year")
				b.ReportMetric(float64(itemKeys), "item-keys/item-year")
				b.ReportMetric(float64(seller), "seller-bytes/year")
				b.ReportMetric(float64(ids)/float64(idKeys), "bytes/event-record")
				b.ReportMetric(float64(item+seller+ids)/float64(n), "bytes/event")
				if err := s.Reset(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
