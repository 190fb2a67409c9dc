package controlredis_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/redisstore/controlredis"
	"github.com/feria/feria/ports/controlport"
	"github.com/feria/feria/ports/controlport/controlporttest"
	"github.com/feria/feria/test/testenv"
)

var seq atomic.Int64

// prefix gives each subtest keys of its own: they share the database.
func prefix() string { return fmt.Sprintf("test:control:%d:", seq.Add(1)) }

func TestRules(t *testing.T) {
	for name, open := range testenv.Redises() {
		t.Run(name, func(t *testing.T) {
			rdb := open(t)
			prefixes := map[controlport.Rules]string{}
			controlporttest.TestRules(t, func(t *testing.T) controlport.Rules {
				p := prefix()
				r := controlredis.NewRules(rdb, p)
				prefixes[r] = p
				return r
			}, func(t *testing.T, r controlport.Rules) controlport.Rules {
				// Another instance: its own client and its own cache.
				other := twin(rdb)
				t.Cleanup(func() { other.Close() })
				return controlredis.NewRules(other, prefixes[r])
			})
		})
	}
}

func TestLimiter(t *testing.T) {
	for name, open := range testenv.Redises() {
		t.Run(name, func(t *testing.T) {
			rdb := open(t)
			controlporttest.TestLimiter(t, func(t *testing.T) (controlport.Limiter, controlport.Limiter) {
				p := prefix()
				other := twin(rdb)
				t.Cleanup(func() { other.Close() })
				return controlredis.NewLimiter(rdb, p), controlredis.NewLimiter(other, p)
			})
		})
	}
}

func TestJournal(t *testing.T) {
	for name, open := range testenv.Redises() {
		t.Run(name, func(t *testing.T) {
			rdb := open(t)
			controlporttest.TestJournal(t, func(t *testing.T) (controlport.Journal, controlport.Journal) {
				p := prefix()
				other := twin(rdb)
				t.Cleanup(func() { other.Close() })
				return controlredis.NewJournal(rdb, p), controlredis.NewJournal(other, p)
			})
		})
	}
}

// twin is another client of the same database, as another instance has.
func twin(rdb *redis.Client) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: rdb.Options().Addr, DB: rdb.Options().DB})
}
