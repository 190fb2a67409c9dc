package controlredis_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/redisstore/controlredis"
	"github.com/feria/feria/core/control"
	"github.com/feria/feria/ports/controlport"
	"github.com/feria/feria/ports/controlport/controlporttest"
	"github.com/feria/feria/test/testenv"
)

var seq atomic.Int64

// prefix gives each subtest keys of its own: they share the database.
func prefix() string { return fmt.Sprintf("test:control:%d:", seq.Add(1)) }

func TestRules(t *testing.T) {
	for name, open := range testenv.Redises() {
		t.Run(name, func(t *testing.T) { rules(t, open(t)) })
	}
}

func TestLimiter(t *testing.T) {
	for name, open := range testenv.Redises() {
		t.Run(name, func(t *testing.T) { limiter(t, open(t)) })
	}
}

func TestJournal(t *testing.T) {
	for name, open := range testenv.Redises() {
		t.Run(name, func(t *testing.T) { journal(t, open(t)) })
	}
}

// The three contracts on a Redis Cluster of three masters (started from
// this machine's redis-server): the rules' MULTIs and script stay in the
// slot of {rules}, and a reset of the limits finds the counts on every
// master.
func TestOnCluster(t *testing.T) {
	rdb := testenv.RedisCluster(t)
	t.Run("rules", func(t *testing.T) { rules(t, rdb) })
	t.Run("limiter", func(t *testing.T) { limiter(t, rdb) })
	t.Run("journal", func(t *testing.T) { journal(t, rdb) })
}

func rules(t *testing.T, rdb redis.UniversalClient) {
	prefixes := map[controlport.Rules]string{}
	controlporttest.TestRules(t, func(t *testing.T) controlport.Rules {
		p := prefix()
		r := controlredis.NewRules(rdb, p)
		prefixes[r] = p
		return r
	}, func(t *testing.T, r controlport.Rules) controlport.Rules {
		// Another instance: its own client and its own cache.
		other := testenv.Twin(rdb)
		t.Cleanup(func() { other.Close() })
		return controlredis.NewRules(other, prefixes[r])
	})
}

func limiter(t *testing.T, rdb redis.UniversalClient) {
	controlporttest.TestLimiter(t, func(t *testing.T) (controlport.Limiter, controlport.Limiter) {
		p := prefix()
		other := testenv.Twin(rdb)
		t.Cleanup(func() { other.Close() })
		return controlredis.NewLimiter(rdb, p), controlredis.NewLimiter(other, p)
	})
}

func journal(t *testing.T, rdb redis.UniversalClient) {
	controlporttest.TestJournal(t, func(t *testing.T) (controlport.Journal, controlport.Journal) {
		p := prefix()
		other := testenv.Twin(rdb)
		t.Cleanup(func() { other.Close() })
		return controlredis.NewJournal(rdb, p), controlredis.NewJournal(other, p)
	})
}

// While Redis cannot be reached every call fails at once with
// ErrUnavailable (a 503 on the sandbox's calls; the middleware steps aside).
func TestRedisDown(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer rdb.Close()
	ctx := context.Background()
	rules, limiter, journal := controlredis.NewRules(rdb, "x:"), controlredis.NewLimiter(rdb, "x:"), controlredis.NewJournal(rdb, "x:")
	calls := map[string]func() error{
		"Current":      func() error { _, err := rules.Current(ctx); return err },
		"AddFault":     func() error { _, err := rules.AddFault(ctx, control.Fault{Path: "/a"}); return err },
		"Faults":       func() error { _, err := rules.Faults(ctx); return err },
		"DeleteFault":  func() error { _, err := rules.DeleteFault(ctx, 1); return err },
		"DeleteFaults": func() error { return rules.DeleteFaults(ctx) },
		"UseFault":     func() error { _, err := rules.UseFault(ctx, 1); return err },
		"SetLimits":    func() error { return rules.SetLimits(ctx, nil) },
		"Reset":        func() error { return rules.Reset(ctx) },
		"Allow":        func() error { _, err := limiter.Allow(ctx, "k", 1); return err },
		"Append":       func() error { return journal.Append(ctx, control.Entry{}) },
		"List":         func() error { _, err := journal.List(ctx); return err },
		"JournalReset": func() error { return journal.Reset(ctx, time.Now()) },
		"Counts":       func() error { _, _, err := journal.Counts(ctx); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, controlredis.ErrUnavailable) {
			t.Errorf("%s: %v, want ErrUnavailable", name, err)
		}
	}
}

// rulesWithAFault is a process's rules under a prefix of the test's own,
// holding one fault rule (added through them, so announced).
func rulesWithAFault(t *testing.T) (*redis.Client, string, *controlredis.Rules) {
	t.Helper()
	rdb, p := testenv.Redis(t), prefix()
	r := controlredis.NewRules(rdb, p)
	t.Cleanup(r.Close)
	if _, err := r.AddFault(context.Background(), control.Fault{Path: "/a", Probability: 1}); err != nil {
		t.Fatal(err)
	}
	return rdb, p, r
}

// The rules held are trusted with no round trip while the subscription is
// up; a change no notice announced (a notice lost) shows within
// Staleness, when the version is read again.
func TestStaleness(t *testing.T) {
	ctx := context.Background()
	rdb, p, r := rulesWithAFault(t)
	read := time.Now()
	if s, err := r.Current(ctx); err != nil || len(s.Faults) != 1 {
		t.Fatalf("Current: %+v %v", s, err)
	}
	rt := &testenv.RoundTrips{}
	rdb.AddHook(rt)
	for range 100 {
		if _, err := r.Current(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if rt.Total() != 0 {
		t.Errorf("100 reads of unchanged rules: %d round trips, want 0", rt.Total())
	}

	// Another process deletes the rules without a notice.
	deleteSilently(t, rdb, p)
	changed := time.Now()
	if s, _ := r.Current(ctx); len(s.Faults) != 1 && time.Since(read) < controlredis.Staleness {
		t.Errorf("an unannounced change seen %v after the rules were read: they were not held", time.Since(read))
	}
	for {
		s, err := r.Current(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Faults) == 0 {
			break
		}
		if time.Since(changed) > controlredis.Staleness+500*time.Millisecond {
			t.Fatalf("the change unseen after %v", time.Since(changed))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A process serving requests has its rules confirmed by its journal's
// writes: held past Staleness with no round trip of their own, and a
// change no notice announced is seen after the next write.
func TestJournalConfirmsTheRules(t *testing.T) {
	ctx := context.Background()
	rdb, p, r := rulesWithAFault(t)
	j := controlredis.NewJournal(rdb, p)
	j.Confirms(r)
	if _, err := r.Current(ctx); err != nil {
		t.Fatal(err)
	}
	rt := &testenv.RoundTrips{}
	rdb.AddHook(rt)
	for end := time.Now().Add(controlredis.Staleness * 3 / 2); time.Now().Before(end); {
		if err := j.Append(ctx, control.Entry{ID: "x"}); err != nil {
			t.Fatal(err)
		}
		if s, err := r.Current(ctx); err != nil || len(s.Faults) != 1 {
			t.Fatalf("Current: %+v %v", s, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if rt.Single.Load() != 0 {
		t.Errorf("rules held past Staleness beside journal writes: %d commands of their own, want 0", rt.Single.Load())
	}

	deleteSilently(t, rdb, p)
	if err := j.Append(ctx, control.Entry{ID: "y"}); err != nil {
		t.Fatal(err)
	}
	if s, err := r.Current(ctx); err != nil || len(s.Faults) != 0 {
		t.Errorf("after a journal write read the new version: %+v %v", s, err)
	}
}

// A world's journal keeps its own number of entries and counts its
// requests a minute: a process's rules say the world is over once its own
// journal counted the request that reached the quota, another process's
// with its next entry; the count lives a minute.
func TestWorldJournal(t *testing.T) {
	for name, open := range testenv.Redises() {
		t.Run(name, func(t *testing.T) {
			rdb, p, ctx := open(t), prefix(), context.Background()
			type process struct {
				j *controlredis.Journal
				r *controlredis.Rules
			}
			start := func() process {
				q := controlredis.NewQuota(3)
				r := controlredis.NewRules(rdb, p).WithQuota(q)
				t.Cleanup(r.Close)
				return process{controlredis.NewWorldJournal(rdb, p, 2, q), r}
			}
			one, two := start(), start()
			over := func(pr process) time.Duration {
				t.Helper()
				s, err := pr.r.Current(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return s.OverQuota
			}
			appendTo := func(pr process, id string) {
				t.Helper()
				if err := pr.j.Append(ctx, control.Entry{ID: id, Method: "GET", Path: "/items/MLA1"}); err != nil {
					t.Fatal(err)
				}
			}
			appendTo(one, "a")
			appendTo(one, "b")
			if d := over(one); d != 0 {
				t.Fatalf("over after 2 of 3: %v", d)
			}
			appendTo(two, "c")
			if d := over(two); d <= 0 || d > time.Minute {
				t.Fatalf("process two after 3 of 3: over %v, want up to a minute", d)
			}
			if d := over(one); d != 0 {
				t.Fatalf("process one, before it journals again: over %v", d)
			}
			appendTo(one, "d")
			if d := over(one); d <= 0 || d > time.Minute {
				t.Fatalf("process one after 4 of 3: over %v, want up to a minute", d)
			}
			if left := rdb.PTTL(ctx, p+"quota").Val(); left <= 0 || left > time.Minute {
				t.Fatalf("the count lives %v, want up to a minute", left)
			}
			got, err := one.j.List(ctx)
			if err != nil || len(got) != 2 || got[0].ID != "d" || got[1].ID != "c" {
				t.Fatalf("journal: %+v %v, want d and c", got, err)
			}
			// The default world's journal and rules: no quota.
			plain := controlredis.NewRules(rdb, prefix())
			t.Cleanup(plain.Close)
			if s, err := plain.Current(ctx); err != nil || s.OverQuota != 0 {
				t.Fatalf("rules without a quota: %+v %v", s, err)
			}
		})
	}
}

// deleteSilently deletes the fault rules under prefix p and changes their
// version as another process would, without a notice.
func deleteSilently(t *testing.T, rdb *redis.Client, p string) {
	t.Helper()
	ctx := context.Background()
	silent := testenv.Twin(rdb)
	t.Cleanup(func() { silent.Close() })
	if err := silent.Del(ctx, p+"{rules}:faults").Err(); err != nil {
		t.Fatal(err)
	}
	if err := silent.Set(ctx, p+"{rules}:ver", "silent", 0).Err(); err != nil {
		t.Fatal(err)
	}
}
