package contactsredis_test

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/adapters/redisstore/contactsredis"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/contactsport"
	"github.com/feria/feria/ports/contactsport/contactsporttest"
	"github.com/feria/feria/test/testenv"
)

var seq atomic.Int64

// redises names every Redis the counters must work on: a server, the
// embedded mode's miniredis, and a Redis Cluster of three masters started
// from this machine's redis-server (never skipped).
func redises() map[string]func(testing.TB) redis.UniversalClient {
	out := map[string]func(testing.TB) redis.UniversalClient{
		"cluster": func(t testing.TB) redis.UniversalClient { return testenv.RedisCluster(t) },
	}
	for name, open := range testenv.Redises() {
		out[name] = func(t testing.TB) redis.UniversalClient { return open(t) }
	}
	return out
}

// keys returns the keys matching pattern, from every master of a cluster.
func keys(t testing.TB, rdb redis.UniversalClient, pattern string) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	var mu sync.Mutex
	scan := func(ctx context.Context, c *redis.Client) error {
		ks, err := c.Keys(ctx, pattern).Result()
		mu.Lock()
		out = append(out, ks...)
		mu.Unlock()
		return err
	}
	var err error
	if c, ok := rdb.(*redis.ClusterClient); ok {
		err = c.ForEachMaster(ctx, scan)
	} else {
		err = scan(ctx, rdb.(*redis.Client))
	}
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func TestCounters(t *testing.T) {
	for name, open := range redises() {
		t.Run(name, func(t *testing.T) {
			rdb := open(t)
			contactsporttest.TestCounters(t, func(t *testing.T) contactsport.Counters {
				// A prefix of its own per subtest: they share the database.
				return contactsredis.New(rdb, fmt.Sprintf("test:contacts:%d:", seq.Add(1)))
			})
		})
	}
}

// Reset deletes the keys of its prefix and nothing else; keys carry the
// retention TTL.
func TestResetOnlyOwnKeysAndTTL(t *testing.T) {
	ctx := context.Background()
	for name, open := range redises() {
		t.Run(name, func(t *testing.T) {
			rdb := open(t)
			if err := rdb.Set(ctx, "other:key", "1", 0).Err(); err != nil {
				t.Fatal(err)
			}
			if err := rdb.Set(ctx, "feria:contactsX", "1", 0).Err(); err != nil {
				t.Fatal(err)
			}
			s := contactsredis.New(rdb, "feria:contacts:")
			// Three events of one day, in two calls: the first event of the
			// day sets the expiries, the others touch none.
			day := time.Now().UTC().AddDate(0, 0, -2).Truncate(24 * time.Hour)
			var batch []contacts.Event
			for i, at := range []time.Duration{10 * time.Hour, 10*time.Hour + 30*time.Minute, 11 * time.Hour} {
				batch = append(batch, contacts.Event{ID: fmt.Sprint("x", i), ItemID: "MLA1", SellerID: 3, Kind: contacts.Question, Date: day.Add(at)})
			}
			if _, err := s.Add(ctx, batch[:1]); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Add(ctx, batch[1:]); err != nil {
				t.Fatal(err)
			}
			got := keys(t, rdb, "feria:contacts:*")
			d, m, y := day.Format("20060102"), day.Format("200601"), day.Format("2006")
			want := []string{
				"feria:contacts:e:x0", "feria:contacts:e:x1", "feria:contacts:e:x2",
				"feria:contacts:{i:MLA1}:q:d:" + m, "feria:contacts:{i:MLA1}:q:h:" + d, "feria:contacts:{i:MLA1}:q:m:" + y, "feria:contacts:{i:MLA1}:q:t:" + d,
				"feria:contacts:{u:3}:q:d:" + m, "feria:contacts:{u:3}:q:h:" + d, "feria:contacts:{u:3}:q:m:" + y, "feria:contacts:{u:3}:q:t:" + d,
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("keys (-want +got):\n%s", diff)
			}
			// A record lives the retention; a day's keys and its month's
			// hash the retention after the month ends, all at one instant;
			// the year's hash the retention after the year ends.
			monthEnd := time.Date(day.Year(), day.Month()+1, 1, 0, 0, 0, 0, time.UTC).Add(contacts.Retention)
			yearEnd := time.Date(day.Year()+1, 1, 1, 0, 0, 0, 0, time.UTC).Add(contacts.Retention)
			for _, k := range got {
				wantTTL := contacts.Retention
				switch {
				case strings.Contains(k, ":m:"):
					wantTTL = time.Until(yearEnd)
				case strings.Contains(k, "}:"):
					wantTTL = time.Until(monthEnd)
				}
				ttl, err := rdb.TTL(ctx, k).Result()
				if err != nil || ttl < wantTTL-2*time.Minute || ttl > wantTTL+2*time.Minute {
					t.Fatalf("TTL of %s = %v (%v), want %v", k, ttl, err, wantTTL)
				}
			}
			if err := s.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			if left := keys(t, rdb, "feria:contacts:*"); len(left) != 0 {
				t.Fatalf("keys left after reset: %v", left)
			}
			if left := keys(t, rdb, "*"); !reflect.DeepEqual(left, []string{"feria:contactsX", "other:key"}) {
				t.Fatalf("reset deleted keys outside its prefix: %v left", left)
			}
		})
	}
}

// While Redis is down every call is a 503 (kernel.Unavailable).
func TestRedisDown(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer rdb.Close()
	s := contactsredis.New(rdb, "x:")
	ctx := context.Background()
	_, err := s.Add(ctx, []contacts.Event{{ID: "x", ItemID: "MLA1", SellerID: 3, Kind: contacts.Question, Date: time.Now()}})
	if kernel.KindOf(err) != kernel.Unavailable {
		t.Fatalf("Add err = %v, want unavailable", err)
	}
	_, err = s.Read(ctx, contactsport.Query{Series: []contactsport.Series{{Kind: contacts.Question, Subject: contacts.ItemSubject("MLA1"), Unit: contacts.Day, Starts: []time.Time{time.Now()}}}})
	if kernel.KindOf(err) != kernel.Unavailable || kernel.MessageOf(err) != redisstore.ErrUnavailable.Message {
		t.Fatalf("Read err = %v, want unavailable", err)
	}
	if err := s.MarkKnown(ctx, []contacts.Subject{contacts.UserSubject(3)}); kernel.KindOf(err) != kernel.Unavailable {
		t.Fatalf("MarkKnown err = %v, want unavailable", err)
	}
	if err := s.Reset(ctx); kernel.KindOf(err) != kernel.Unavailable {
		t.Fatalf("Reset err = %v, want unavailable", err)
	}
}

// Slot agrees with the cluster's CLUSTER KEYSLOT, with and without hash
// tags, so that Add groups a batch as the cluster routes it.
func TestSlot(t *testing.T) {
	rdb := testenv.RedisCluster(t)
	for _, k := range []string{"", "a", "feria:contacts:e:x", "feria:contacts:{i:MLA1}:q:d:202611", "{u:7}", "x{}y", "x{}{y}",
		"{a}{b}", "{", "}{a}", "feria:contacts:e:ev-{weird}", "ünïcode"} {
		want, err := rdb.ClusterKeySlot(context.Background(), k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got := contactsredis.Slot(k); int64(got) != want {
			t.Errorf("Slot(%q) = %d, want %d", k, got, want)
		}
	}
}

// A total over whole months and parts of months counts the same whatever
// the offset its bounds were written in: the whole days are UTC days, a
// whole month one HVALS, the months at either end their days, the edges
// their events.
func TestTotalAcrossMonthsInAnyOffset(t *testing.T) {
	ctx := context.Background()
	for name, open := range redises() {
		t.Run(name, func(t *testing.T) {
			s := contactsredis.New(open(t), fmt.Sprintf("test:contacts:months:%d:", seq.Add(1)))
			// An event every 7 hours from mid-January to mid-April.
			start := time.Date(2026, 1, 14, 5, 0, 0, 0, time.UTC)
			var events []contacts.Event
			for i := 0; i < 300; i++ {
				events = append(events, contacts.Event{ID: fmt.Sprint("m", i), ItemID: "MLA1", SellerID: 9, Kind: contacts.Question,
					Date: start.Add(time.Duration(i) * 7 * time.Hour)})
			}
			if _, err := s.Add(ctx, events); err != nil {
				t.Fatal(err)
			}
			from, to := time.Date(2026, 1, 20, 13, 30, 0, 0, time.UTC), time.Date(2026, 4, 2, 9, 15, 0, 0, time.UTC)
			var want int64
			for _, e := range events {
				if !e.Date.Before(from) && e.Date.Before(to) {
					want++
				}
			}
			minus3 := time.FixedZone("-03", -3*3600)
			for _, rg := range []contacts.Range{{From: from, To: to}, {From: from.In(minus3), To: to.In(minus3)}} {
				ans, err := s.Read(ctx, contactsport.Query{Spans: []contactsport.Span{{Kind: contacts.Question, Subject: contacts.ItemSubject("MLA1"), Range: rg}}})
				if err != nil || ans.Spans[0] != want {
					t.Errorf("total over %v = %v (%v), want %d", rg, ans.Spans, err, want)
				}
			}
		})
	}
}

// Counters written before the year hashes (month hashes of days only) read
// short over whole months until Migrate gives each month its count; then
// totals are exact again, events counted afterwards add to both, and a
// second Migrate (the mark set) changes nothing.
func TestMigrateGivesOldCountersTheirMonths(t *testing.T) {
	ctx := context.Background()
	for name, open := range redises() {
		t.Run(name, func(t *testing.T) {
			rdb := open(t)
			prefix := fmt.Sprintf("test:contacts:migrate:%d:", seq.Add(1))
			s := contactsredis.New(rdb, prefix)
			// An event every 11 hours over the last 200 days.
			end := time.Now().UTC().Truncate(time.Hour).AddDate(0, 0, -1)
			var events []contacts.Event
			for d, i := end.AddDate(0, 0, -200), 0; d.Before(end); d, i = d.Add(11*time.Hour), i+1 {
				events = append(events, contacts.Event{ID: fmt.Sprint("o", i), ItemID: "MLA1", SellerID: 4, Kind: contacts.PhoneView, Date: d})
			}
			if _, err := s.Add(ctx, events); err != nil {
				t.Fatal(err)
			}
			// The old layout: no year hashes.
			for _, k := range keys(t, rdb, prefix+"*:m:*") {
				if err := rdb.Del(ctx, k).Err(); err != nil {
					t.Fatal(err)
				}
			}
			span := contactsport.Query{Spans: []contactsport.Span{
				{Kind: contacts.PhoneView, Subject: contacts.ItemSubject("MLA1"), Range: contacts.Range{From: end.AddDate(0, 0, -190), To: end}},
				{Kind: contacts.PhoneView, Subject: contacts.UserSubject(4), Range: contacts.Range{From: end.AddDate(0, 0, -190), To: end}},
			}}
			want := int64(0)
			for _, e := range events {
				if !e.Date.Before(end.AddDate(0, 0, -190)) {
					want++
				}
			}
			if ans, err := s.Read(ctx, span); err != nil || ans.Spans[0] >= want {
				t.Fatalf("before Migrate: %v (%v), want fewer than %d (the whole months unread)", ans.Spans, err, want)
			}
			for range 2 {
				if err := s.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				if ans, err := s.Read(ctx, span); err != nil || ans.Spans[0] != want || ans.Spans[1] != want {
					t.Fatalf("after Migrate: %v (%v), want %d each", ans.Spans, err, want)
				}
			}
			if v, err := rdb.Get(ctx, prefix+"layout").Result(); err != nil || v != "months" {
				t.Fatalf("the layout mark: %q, %v", v, err)
			}
			late := []contacts.Event{{ID: "late", ItemID: "MLA1", SellerID: 4, Kind: contacts.PhoneView, Date: end.AddDate(0, 0, -100)}}
			if _, err := s.Add(ctx, late); err != nil {
				t.Fatal(err)
			}
			if ans, err := s.Read(ctx, span); err != nil || ans.Spans[0] != want+1 {
				t.Fatalf("an event after Migrate: %v (%v), want %d", ans.Spans, err, want+1)
			}
		})
	}
}
