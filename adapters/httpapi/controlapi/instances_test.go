package controlapi_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/test/apptest"
)

// Two instances of the service on one Redis: a rule posted to one applies
// on the other at once, a fault with times 3 fires exactly 3 times across
// both (requests sent at once), a limit of N per minute lets exactly N
// through across both, and both write one journal.
func TestTwoInstances(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		b := a.Twin()
		both := []*apptest.App{a, b}

		b.Do("GET", "/items/MLA1100", nil).OK(t, 200) // b has read the rules once
		fault(t, a, `{"method": "GET", "path": "/items/*", "status": 503, "times": 3}`)
		const requests = 12
		var faulted, ok atomic.Int64
		var wg sync.WaitGroup
		for i := range requests {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := both[i%2].Do("GET", "/items/MLA1100", nil)
				switch r.Status {
				case 503:
					faulted.Add(1)
				case 200:
					ok.Add(1)
				default:
					t.Errorf("%d %s", r.Status, r.Body)
				}
			}()
		}
		wg.Wait()
		if faulted.Load() != 3 || ok.Load() != requests-3 {
			t.Errorf("faulted %d, answered %d of %d; want exactly 3 faulted", faulted.Load(), ok.Load(), requests)
		}
		b.Sandbox("GET", "/faults", nil).Is(t, 200, `{"faults": []}`)

		const n = 5
		b.Sandbox("PUT", "/rate_limits", fmt.Sprintf(`{"rules": [{"method": "GET", "path": "/items/*", "per_minute": %d}]}`, n)).OK(t, 200)
		var allowed, limited atomic.Int64
		start := time.Now()
		for i := range 4 * n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := both[i%2].Do("GET", "/items/MLA1100", nil, apptest.Bearer("APP_USR-seller")...)
				switch r.Status {
				case 200:
					allowed.Add(1)
				case 429:
					limited.Add(1)
				default:
					t.Errorf("%d %s", r.Status, r.Body)
				}
			}()
		}
		wg.Wait()
		// Shared by both instances: n at once, and no more than GCRA refills
		// (one every 60/n s) while a busy machine answers the 4n requests.
		refill := int64(time.Since(start) / (time.Minute / n))
		if allowed.Load() < n || allowed.Load() > n+refill || allowed.Load()+limited.Load() != 4*n {
			t.Errorf("allowed %d, refused %d of %d in %v; want %d allowed, and at most %d refilled", allowed.Load(), limited.Load(), 4*n, time.Since(start), n, refill)
		}

		// One journal: each instance reads the other's requests.
		got := journal(t, b, fmt.Sprintf("?path=/items/MLA1100&limit=%d", 1000))
		if len(got) != 1+requests+4*n {
			t.Errorf("journal holds %d of the %d requests", len(got), 1+requests+4*n)
		}
		a.Sandbox("DELETE", "", nil).OK(t, 204)
		if got := journal(t, b, ""); len(got) != 0 {
			t.Errorf("b's journal after a's reset: %d entries", len(got))
		}
	})
}

// redisServer runs a redis-server of the test's own, so that the test may
// stop it and start it again on the same port (empty: it keeps no data).
func redisServer(t *testing.T) (addr string, stop, restart func()) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server is needed for this test (apt-get install redis-server): %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	var cmd *exec.Cmd
	run := func() {
		cmd = exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		c := redis.NewClient(&redis.Options{Addr: addr})
		defer c.Close()
		for i := 0; i < 50 && c.Ping(context.Background()).Err() != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
	stop = func() {
		if cmd != nil {
			cmd.Process.Kill() //nolint:errcheck // may have exited
			cmd.Wait()         //nolint:errcheck // killed
			cmd = nil
		}
	}
	run()
	t.Cleanup(stop)
	return addr, stop, run
}

// While Redis cannot be reached the controls step aside: a limited route
// answers as if no limit existed, quickly, never 500 and never hanging; no
// fault applies and nothing is journaled; the sandbox's reads of the
// controls answer 503.
func TestRedisDown(t *testing.T) {
	for _, c := range []struct {
		name  string
		start func(t *testing.T) (addr string, stop, restart func())
	}{
		{"redis", redisServer},
		{"miniredis", func(t *testing.T) (string, func(), func()) {
			m := miniredis.RunT(t)
			return m.Addr(), m.Close, func() {
				if err := m.Restart(); err != nil {
					t.Fatal(err)
				}
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr, stop, restart := c.start(t)
			rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 300 * time.Millisecond, ReadTimeout: 300 * time.Millisecond})
			defer rdb.Close()
			a := apptest.NewOnRedis(t, rdb)
			a.MustLoad(apptest.Sample())
			a.Sandbox("PUT", "/rate_limits", `{"rules": [{"method": "GET", "path": "/items/*", "per_minute": 1}]}`).OK(t, 200)
			fault(t, a, `{"path": "/users/*/items/search", "status": 503}`)
			seller := apptest.Bearer("APP_USR-seller")
			a.Do("GET", "/items/MLA1100", nil, seller...).OK(t, 200)
			refused(t, a.Do("GET", "/items/MLA1100", nil, seller...))

			stop()
			for range 3 {
				start := time.Now()
				a.Do("GET", "/items/MLA1100", nil, seller...).OK(t, 200)
				a.Do("GET", "/users/123/items/search", nil, seller...).OK(t, 200)
				if d := time.Since(start); d > 2*time.Second {
					t.Errorf("two requests took %v with Redis down", d)
				}
			}
			down := apptest.Err(503, "service_unavailable", "the sandbox's test controls are unavailable (Redis), retry later")
			a.Sandbox("GET", "/requests", nil).Is(t, 503, down)
			a.Sandbox("GET", "/faults", nil).Is(t, 503, down)
			a.Sandbox("PUT", "/rate_limits", `{"rules": []}`).Is(t, 503, down)

			// Back: the controls apply again by themselves.
			restart()
			a.Do("GET", "/categories/MLA1747/shipping_preferences", nil, seller...).OK(t, 200)
			if got := journal(t, a, "?path=/categories/MLA1747/shipping_preferences"); len(got) != 1 {
				t.Errorf("journal after Redis returned: %v", brief(got))
			}
		})
	}
}
