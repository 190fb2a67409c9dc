// Package loadrun is what the load runs under test/load share: feria wired on
// a PostgreSQL schema of its own and served on a real HTTP listener on
// 127.0.0.1, calls to its sandbox, and concurrent keep-alive clients that
// measure requests/s, p50 and p99 of one URL.
package loadrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/blobstore/fsblob"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/migrations"
	"github.com/feria/feria/app"
)

// SandboxKey is the sandbox key of a load run's instance.
const SandboxKey = "load-sandbox-key"

// Schema opens a migrated PostgreSQL database in a new schema named after
// prefix; drop removes the schema and closes everything.
func Schema(ctx context.Context, dbURL, prefix string) (db *bun.DB, drop func(), err error) {
	db, _, drop, err = SchemaURL(ctx, dbURL, prefix)
	return db, drop, err
}

// SchemaURL is Schema that also returns the schema's URL, for a feria
// process of the run's own (a worker) to use.
func SchemaURL(ctx context.Context, dbURL, prefix string) (db *bun.DB, schemaURL string, drop func(), err error) {
	schema := fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano()%1_000_000_000)
	admin, err := sqlstore.OpenPostgres(ctx, dbURL)
	if err != nil {
		return nil, "", nil, err
	}
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		return nil, "", nil, err
	}
	drop = func() {
		if db != nil {
			db.Close()
		}
		admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE") //nolint:errcheck // best effort
		admin.Close()
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		drop()
		return nil, "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	if db, err = sqlstore.OpenPostgres(ctx, u.String()); err != nil {
		drop()
		return nil, "", nil, err
	}
	if _, err := migrations.Up(ctx, db); err != nil {
		drop()
		return nil, "", nil, err
	}
	return db, u.String(), drop, nil
}

// Server is feria served on a real listener.
type Server struct {
	Base   string // http://127.0.0.1:<port>
	Client *http.Client
	close  func()
}

// Serve wires feria on db and rdb (files in a temporary directory) and
// serves it on 127.0.0.1; conc sizes the client's keep-alive pool.
func Serve(db *bun.DB, rdb redis.UniversalClient, conc int) (*Server, error) {
	return ServeConfigured(db, rdb, conc, nil)
}

// ServeConfigured is Serve with a last say on the configuration.
func ServeConfigured(db *bun.DB, rdb redis.UniversalClient, conc int, configure func(*app.Config)) (*Server, error) {
	cfg, err := app.LoadConfig(func(string) string { return "" })
	if err != nil {
		return nil, err
	}
	cfg.SandboxKey = SandboxKey
	if configure != nil {
		configure(&cfg)
	}
	dir, err := os.MkdirTemp("", "feria-load")
	if err != nil {
		return nil, err
	}
	blobs, err := fsblob.New(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	in, err := app.NewInstance(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), db, rdb, blobs)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		in.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	go in.HTTP.Listener(ln) //nolint:errcheck // ends with Close
	return &Server{
		Base:   "http://" + ln.Addr().String(),
		Client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc * 2}, Timeout: 30 * time.Second},
		close: func() {
			in.HTTP.Shutdown() //nolint:errcheck // best effort
			in.Close()
			os.RemoveAll(dir)
		},
	}, nil
}

// Close stops serving and removes the files.
func (s *Server) Close() { s.close() }

// Call sends a JSON body with the sandbox key to path and fails on any
// status of 300 or more.
func (s *Server) Call(method, path, body string) ([]byte, error) {
	req, err := http.NewRequest(method, s.Base+path, bytes.NewBufferString(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Sandbox-Key", SandboxKey)
	res, err := s.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 300 {
		return b, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	return b, nil
}

// Result is what one scenario measured.
type Result struct {
	Name     string
	Requests int
	PerSec   float64
	P50, P99 time.Duration
}

// Header is the line above a table of Results.
func Header() string {
	return fmt.Sprintf("%-44s %10s %10s %10s %10s", "scenario", "requests", "req/s", "p50", "p99")
}

func (r Result) String() string {
	return fmt.Sprintf("%-44s %10d %10.0f %10s %10s", r.Name, r.Requests, r.PerSec,
		r.P50.Round(time.Microsecond), r.P99.Round(time.Microsecond))
}

// Load runs conc clients against path for d; every answer must be 200.
func (s *Server) Load(name, path string, d time.Duration, conc int) (Result, error) {
	ops, elapsed, all, err := ClosedLoop(conc, d, func() error {
		res, err := s.Client.Get(s.Base + path)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: status %d", name, res.StatusCode)
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) time.Duration { return all[int(float64(len(all)-1)*p)] }
	return Result{Name: name, Requests: ops, PerSec: float64(ops) / elapsed.Seconds(), P50: pct(0.50), P99: pct(0.99)}, nil
}

// ErrExhausted ends a closed-loop run early: the op has nothing left to
// work on (e.g. fresh packs to upload to); the run counts what it did.
var ErrExhausted = errors.New("nothing left to do")

// ClosedLoop runs conc clients calling op back to back for d: the
// saturated rate. It returns how many ops completed, in how long, and each
// one's latency (unsorted). The first error other than ErrExhausted stops
// every client and fails the run.
func ClosedLoop(conc int, d time.Duration, op func() error) (ops int, elapsed time.Duration, lats []time.Duration, err error) {
	var mu sync.Mutex
	var firstErr error
	var stop atomic.Bool
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	t0 := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, 4096)
			for !stop.Load() && time.Now().Before(deadline) {
				start := time.Now()
				if err := op(); err != nil {
					stop.Store(true)
					if !errors.Is(err, ErrExhausted) {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
					}
					break
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			lats = append(lats, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed = time.Since(t0)
	if firstErr != nil {
		return 0, elapsed, nil, firstErr
	}
	if len(lats) == 0 {
		return 0, elapsed, nil, fmt.Errorf("no operation completed in %s", d)
	}
	return len(lats), elapsed, lats, nil
}

// StartRedis runs a redis-server of the run's own on a free port of
// 127.0.0.1 (no persistence), so that a load run never writes the shared
// Redis; stop kills it.
func StartRedis() (url string, stop func(), err error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", nil, fmt.Errorf("redis-server is needed (apt-get install redis-server): %w", err)
	}
	port, err := FreePort()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() { cmd.Process.Kill(); cmd.Wait() } //nolint:errcheck // stopped at the end
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	defer c.Close()
	for i := 0; c.Ping(context.Background()).Err() != nil; i++ {
		if i == 50 {
			stop()
			return "", nil, fmt.Errorf("redis-server on port %d does not answer", port)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Sprintf("redis://127.0.0.1:%d/0", port), stop, nil
}

// FreePort is a TCP port of 127.0.0.1 that nothing listens on now.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
