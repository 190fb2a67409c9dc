package redisstore_test

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/core/kernel"
)

// loadingRedis answers every command as a Redis reading its AOF back after a
// restart does.
func loadingRedis(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				rd := bufio.NewReader(c)
				for {
					// Any RESP array: its header and its bulk strings, line by line.
					line, err := rd.ReadString('\n')
					if err != nil {
						return
					}
					if line[0] != '*' {
						continue
					}
					var n int
					for _, ch := range line[1 : len(line)-2] {
						n = n*10 + int(ch-'0')
					}
					for i := 0; i < 2*n; i++ {
						if _, err := rd.ReadString('\n'); err != nil {
							return
						}
					}
					c.Write([]byte("-LOADING Redis is loading the dataset in memory\r\n")) //nolint:errcheck // test server
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// A Redis that is loading its data after a restart is unavailable for now:
// 503, not 500.
func TestLoadingIsUnavailable(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: loadingRedis(t), MaxRetries: -1, Protocol: 2})
	defer c.Close()
	err := c.Get(context.Background(), "k").Err()
	if err == nil {
		t.Fatal("no error from a loading Redis")
	}
	if got := redisstore.Translate(err); kernel.KindOf(got) != kernel.Unavailable {
		t.Fatalf("Translate(%v) is %v; want unavailable", err, kernel.KindOf(got))
	}
}

// REDIS_URL's cluster form: every host a seed node, the port 6379 when
// left out, user and password and go-redis's options as for one server,
// TLS with rediss+cluster; database 0 only; no error repeats a password.
func TestParseCluster(t *testing.T) {
	o, err := redisstore.ParseCluster("rediss+cluster://feria:pw@r1:7000,r2,[::1]:7002/0?dial_timeout=2s&pool_size=7")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"r1:7000", "r2:6379", "[::1]:7002"}; strings.Join(o.Addrs, " ") != strings.Join(want, " ") {
		t.Errorf("addrs %v, want %v", o.Addrs, want)
	}
	if o.Username != "feria" || o.Password != "pw" || o.TLSConfig == nil || o.DialTimeout != 2*time.Second || o.PoolSize != 7 {
		t.Errorf("options %+v", o)
	}
	if o, err := redisstore.ParseCluster("redis+cluster://127.0.0.1:7000"); err != nil || len(o.Addrs) != 1 || o.TLSConfig != nil {
		t.Errorf("one seed: %+v %v", o, err)
	}
	for _, bad := range []string{"redis+cluster://", "redis+cluster://u:pw@r1:7000/3", "redis+cluster://u:pw@r1:7000?nope=1",
		"redis+cluster://u:pw%zz@r1:7000", "redis+cluster://u:pw@r1:x,r2:1"} {
		_, err := redisstore.ParseCluster(bad)
		if err == nil || strings.Contains(err.Error(), "pw") {
			t.Errorf("%s: %v; want an error without the password", bad, err)
		}
	}
	if !redisstore.IsCluster("redis+cluster://r") || !redisstore.IsCluster("rediss+cluster://r") || redisstore.IsCluster("redis://r") {
		t.Error("IsCluster")
	}
}

// Open gives a server's client or a cluster's by the URL's scheme.
func TestOpen(t *testing.T) {
	c, err := redisstore.Open("redis+cluster://127.0.0.1:1,127.0.0.1:2")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(*redis.ClusterClient); !ok {
		t.Errorf("cluster URL: %T", c)
	}
	s, err := redisstore.Open("redis://127.0.0.1:1/3")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if rc, ok := s.(*redis.Client); !ok || rc.Options().DB != 3 {
		t.Errorf("server URL: %T", s)
	}
}
