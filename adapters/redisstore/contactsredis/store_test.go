package contactsredis_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

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

func TestCounters(t *testing.T) {
	for name, open := range testenv.Redises() {
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
	for name, open := range testenv.Redises() {
		t.Run(name, func(t *testing.T) {
			rdb := open(t)
			if err := rdb.Set(ctx, "other:key", "1", 0).Err(); err != nil {
				t.Fatal(err)
			}
			if err := rdb.Set(ctx, "feria:contactsX", "1", 0).Err(); err != nil {
				t.Fatal(err)
			}
			s := contactsredis.New(rdb, "feria:contacts:")
			_, err := s.Add(ctx, []contacts.Event{{ID: "x", ItemID: "MLA1", SellerID: 3, Kind: contacts.Question,
				Date: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)}})
			if err != nil {
				t.Fatal(err)
			}
			keys, _ := rdb.Keys(ctx, "feria:contacts:*").Result()
			if len(keys) != 5 {
				t.Fatalf("keys = %v, want 5 (event id, item day/hour, seller day/hour)", keys)
			}
			for _, k := range keys {
				ttl, _ := rdb.TTL(ctx, k).Result()
				if ttl <= 0 || ttl > contacts.Retention {
					t.Fatalf("TTL of %s = %v, want within the retention %v", k, ttl, contacts.Retention)
				}
			}
			if err := s.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			if n, _ := rdb.Exists(ctx, keys...).Result(); n != 0 {
				t.Fatalf("%d keys left after reset", n)
			}
			if n, _ := rdb.Exists(ctx, "other:key", "feria:contactsX").Result(); n != 2 {
				t.Fatalf("reset deleted keys outside its prefix")
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
	_, err = s.Read(ctx, []contactsport.Series{{Kind: contacts.Question, Subject: contacts.ItemSubject("MLA1"), Unit: contacts.Day, Starts: []time.Time{time.Now()}}})
	if kernel.KindOf(err) != kernel.Unavailable || kernel.MessageOf(err) != redisstore.ErrUnavailable.Message {
		t.Fatalf("Read err = %v, want unavailable", err)
	}
	if err := s.Reset(ctx); kernel.KindOf(err) != kernel.Unavailable {
		t.Fatalf("Reset err = %v, want unavailable", err)
	}
}
