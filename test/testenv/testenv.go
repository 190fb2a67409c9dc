// Package testenv gives tests the real backing services of feria: PostgreSQL,
// Redis and MinIO from TEST_DATABASE_URL, TEST_REDIS_URL and TEST_S3_* when
// set, from a dockertest container where a Docker engine runs, and otherwise a
// failure that says how to provide them. Every test gets its own PostgreSQL
// schema, SQLite file and Redis database so that packages run in parallel.
package testenv

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ory/dockertest/v3"
)

const howTo = `
Provide it with %s (e.g. %s), or run the tests through 'make test', which starts
the local services; dockertest is used instead where a Docker engine runs.`

// service resolves one backing service once per test binary.
type service struct {
	once sync.Once
	addr string
	err  error
}

// get resolves the service named by the variable env, whose value is
// value (callers read it with a literal os.Getenv, which the variable
// tables' test finds).
func (s *service) get(t testing.TB, env, value, example string, docker func(*dockertest.Pool) (string, error)) string {
	t.Helper()
	if testing.Short() {
		// `make test-short` selects the packages that need no backing
		// service; reaching here means one was selected wrongly.
		t.Fatalf("testenv: this test needs %s, and -short runs (make test-short) have no backing services; "+
			"its package must be left out of make test-short's selection (deploy/scripts/test-short.sh)", env)
	}
	s.once.Do(func() {
		if value != "" {
			s.addr = value
			return
		}
		pool, err := dockertest.NewPool("")
		if err == nil {
			err = pool.Client.Ping()
		}
		if err != nil {
			s.err = fmt.Errorf("%s is not set and no Docker engine answers (%v)", env, err)
			return
		}
		pool.MaxWait = 2 * time.Minute
		s.addr, s.err = docker(pool)
	})
	if s.err != nil {
		t.Fatalf("testenv: %v."+howTo, s.err, env, example)
	}
	return s.addr
}

// ctx returns a context for set-up calls, bounded so a hung service fails the
// test instead of the whole run.
func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// name turns a test name into an identifier usable as a schema name.
func name(t testing.TB) string {
	var b strings.Builder
	for _, r := range strings.ToLower(t.Name()) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 40 {
		s = s[:40]
	}
	return s
}
