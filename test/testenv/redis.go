package testenv

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/ory/dockertest/v3"
	"github.com/redis/go-redis/v9"
)

var redisSvc service

// RedisURL returns the URL of a Redis database of the test's own: a database
// number leased for the test's lifetime, flushed before use. Tests that run
// asynq need a whole database, which a key prefix cannot give.
func RedisURL(t testing.TB) string {
	t.Helper()
	base := redisSvc.get(t, "TEST_REDIS_URL", os.Getenv("TEST_REDIS_URL"), "redis://127.0.0.1:6379/0",
		func(pool *dockertest.Pool) (string, error) {
			res, err := pool.Run("redis", "7", nil)
			if err != nil {
				return "", err
			}
			res.Expire(600) //nolint:errcheck // best effort
			u := "redis://localhost:" + res.GetPort("6379/tcp") + "/0"
			return u, pool.Retry(func() error { return ping(t, u) })
		})
	opt, err := redis.ParseURL(base)
	if err != nil {
		t.Fatalf("testenv: TEST_REDIS_URL: %v", err)
	}
	opt.DB = lease(t, opt)
	c := redis.NewClient(opt)
	defer c.Close()
	if err := c.FlushDB(ctx(t)).Err(); err != nil {
		t.Fatalf("testenv: redis flush: %v", err)
	}
	return fmt.Sprintf("redis://%s/%d", opt.Addr, opt.DB)
}

// lease takes a database number (1..15) no other running test holds, for
// the test's lifetime: test packages run in parallel processes, and several
// `make test` runs may share one Redis, so a shared number would let one test
// flush another's queues. Database 0 keeps the leases. A lease lasts
// leaseTTL and is renewed while its test runs, so the leases of a test
// process that dies (a run interrupted with Ctrl-C) are free again within
// leaseTTL instead of blocking later runs.
func lease(t testing.TB, opt *redis.Options) int {
	t.Helper()
	admin := redis.NewClient(&redis.Options{Addr: opt.Addr, Username: opt.Username, Password: opt.Password})
	owner := fmt.Sprintf("%d/%s/%d", os.Getpid(), t.Name(), time.Now().UnixNano())
	deadline := time.Now().Add(3 * time.Minute)
	for {
		for db := 1; db <= 15; db++ {
			key := fmt.Sprintf("testenv:lease:%d", db)
			ok, err := admin.SetNX(ctx(t), key, owner, leaseTTL).Result()
			if err != nil {
				admin.Close()
				t.Fatalf("testenv: redis at %s: %v."+howTo, opt.Addr, err, "TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
			}
			if ok {
				stop := make(chan struct{})
				done := make(chan struct{})
				go func() { // renew until the test ends
					defer close(done)
					tick := time.NewTicker(leaseTTL / 3)
					defer tick.Stop()
					for {
						select {
						case <-stop:
							return
						case <-tick.C:
							renewLease.Run(context.Background(), admin, []string{key}, owner, leaseTTL.Milliseconds()) //nolint:errcheck // the next tick retries
						}
					}
				}()
				t.Cleanup(func() {
					close(stop)
					<-done
					releaseLease.Run(context.Background(), admin, []string{key}, owner) //nolint:errcheck // expires by itself
					admin.Close()
				})
				return db
			}
		}
		if time.Now().After(deadline) {
			admin.Close()
			t.Fatalf("testenv: every Redis database 1..15 of %s was leased by other tests for 3 minutes; "+
				"give this run a Redis of its own with TEST_REDIS_URL", opt.Addr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// leaseTTL is how long a lease outlives its last renewal.
const leaseTTL = 30 * time.Second

// The lease is renewed and released only by its owner: a lease that expired
// and was taken by another test is that test's.
var (
	renewLease   = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`)
	releaseLease = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)
)

// Redis returns a client of the test's own Redis database.
func Redis(t testing.TB) *redis.Client {
	t.Helper()
	opt, _ := redis.ParseURL(RedisURL(t))
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

// Miniredis returns a client of an in-process Redis, the embedded mode's.
func Miniredis(t testing.TB) *redis.Client {
	t.Helper()
	m := miniredis.RunT(t)
	c := redis.NewClient(&redis.Options{Addr: m.Addr()})
	t.Cleanup(func() { c.Close() })
	return c
}

// Redises names every Redis the counters must work on.
func Redises() map[string]func(testing.TB) *redis.Client {
	return map[string]func(testing.TB) *redis.Client{"redis": Redis, "miniredis": Miniredis}
}

func ping(t testing.TB, u string) error {
	opt, err := redis.ParseURL(u)
	if err != nil {
		return err
	}
	c := redis.NewClient(opt)
	defer c.Close()
	return c.Ping(ctx(t)).Err()
}

// Twin is another client of the same Redis (database, or cluster), with a
// pool of its own, as another process of the service has.
func Twin(rdb redis.UniversalClient) redis.UniversalClient {
	if c, ok := rdb.(*redis.ClusterClient); ok {
		o := c.Options()
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: o.Addrs, Username: o.Username, Password: o.Password, TLSConfig: o.TLSConfig})
	}
	o := rdb.(*redis.Client).Options()
	return redis.NewClient(&redis.Options{Addr: o.Addr, Username: o.Username, Password: o.Password, DB: o.DB, TLSConfig: o.TLSConfig})
}
