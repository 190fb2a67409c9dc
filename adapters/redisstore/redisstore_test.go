package redisstore_test

import (
	"bufio"
	"context"
	"net"
	"testing"

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

// Defect 2 of issue 10: a Redis that is loading its data after a restart
// answered 500; it is unavailable for now (503).
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
