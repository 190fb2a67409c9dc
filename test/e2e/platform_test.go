// Package e2e drives the whole of feria, as a user or an operator would,
// on the real test services.
package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/blobstore/fsblob"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/app"
	"github.com/feria/feria/test/apptest"
	"github.com/feria/feria/test/testenv"
)

func TestHealthAndMetrics(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		if r := a.Do("GET", "/health/live", nil).HasStatus(t, 200); string(r.Body) != `{"status":"ok"}` {
			t.Fatalf("live: %d %s", r.Status, r.Body)
		}
		if r := a.Do("GET", "/health/ready", nil).HasStatus(t, 200); string(r.Body) != `{"checks":{"blobs":"ok","database":"ok","redis":"ok"},"status":"ok"}` {
			t.Fatalf("ready: %d %s", r.Status, r.Body)
		}
		a.Do("GET", "/nowhere", nil)
		r := a.Do("GET", "/metrics", nil)
		for _, want := range []string{
			`feria_http_requests_total{method="GET",route="/health/ready",status="200"} 1`,
			`feria_http_request_duration_seconds_bucket{method="GET",route="/health/ready"`,
			`feria_jobs_queued`,
		} {
			if !strings.Contains(string(r.Body), want) {
				t.Errorf("metrics lack %s", want)
			}
		}
		// An unknown path is counted under its route template, not its
		// path, so that scanners cannot blow up the label set.
		if strings.Contains(string(r.Body), `/nowhere`) {
			t.Errorf("metrics label an unknown path by its raw path")
		}
	})
}

// startRedis runs a redis-server of the test's own on a free port, so that
// the test may stop it.
func startRedis(t *testing.T, port int) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server is needed for this test (apt-get install redis-server): %v", err)
	}
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	defer c.Close()
	for i := 0; i < 50 && c.Ping(context.Background()).Err() != nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) //nolint:errcheck // may be stopped already
	return cmd
}

// killBackends is what a test that kills worker processes shares with
// them: a PostgreSQL schema and a redis-server of the test's own (the test
// rewrites asynq's leases there, which a leased database of the shared
// Redis would not isolate), their URLs for the processes, and clients.
type killBackends struct {
	dbURL, redisURL string
	db              *bun.DB
	rdb             *redis.Client
}

func ownBackends(t *testing.T) killBackends {
	t.Helper()
	port := freePort(t)
	startRedis(t, port)
	b := killBackends{dbURL: testenv.PostgresSchemaURL(t), redisURL: fmt.Sprintf("redis://127.0.0.1:%d/0", port)}
	db, err := sqlstore.OpenPostgres(context.Background(), b.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b.db = db
	b.rdb = redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	t.Cleanup(func() { b.rdb.Close() })
	return b
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Redis killed while the API runs: readiness names it, requests that need it
// get a clear 503, and the API recovers by itself when Redis returns.
func TestRedisOutage(t *testing.T) {
	t.Parallel() // mostly waits on jobs, servers and timeouts: overlap with the others that do
	port := freePort(t)
	srv := startRedis(t, port)
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port), MaxRetries: 1,
		DialTimeout: 300 * time.Millisecond, ReadTimeout: 500 * time.Millisecond})
	defer rdb.Close()
	blobs, err := fsblob.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := app.LoadConfig(func(string) string { return "" })
	cfg.SandboxKey = apptest.SandboxKey
	in, err := app.NewInstance(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), testenv.SQLite(t), rdb, blobs)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	a := &apptest.App{Instance: in}
	a.SetT(t)

	a.Do("GET", "/health/ready", nil).HasStatus(t, 200)
	srv.Process.Kill()
	srv.Wait() //nolint:errcheck // killed

	// Which backend is down, without the driver's text.
	a.Do("GET", "/health/ready", nil).Is(t, 503, apptest.Err(503, "service_unavailable", "not ready: redis is down", "redis", "redis is down"))
	r := a.Do("GET", "/health/ready", nil)
	// The sandbox reset purges the job queues, which live in Redis.
	r = a.Sandbox("DELETE", "", nil)
	r.HasStatus(t, 503)
	if !strings.Contains(string(r.Body), `"error":"service_unavailable"`) {
		t.Fatalf("reset with redis down: %d %s", r.Status, r.Body)
	}
	// What does not need Redis keeps working.
	a.Sandbox("PUT", "/users/1", map[string]any{"nickname": "S", "site_id": "MLA"}).HasStatus(t, 200)

	startRedis(t, port)
	deadline := time.Now().Add(5 * time.Second)
	for {
		r = a.Do("GET", "/health/ready", nil)
		if r.Status == 200 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.HasStatus(t, 200)
	a.Sandbox("DELETE", "", nil).HasStatus(t, 204)
}

var binary struct {
	once sync.Once
	path string
	err  error
}

// feriaBinary is cmd/feria, built once per test process (by TestMain).
func feriaBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(buildBinary)
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

func buildBinary() {
	dir, err := os.MkdirTemp("", "feria-e2e")
	if err != nil {
		binary.err = err
		return
	}
	binary.path = filepath.Join(dir, "feria")
	out, err := exec.Command("go", "build", "-o", binary.path, "github.com/feria/feria/cmd/feria").CombinedOutput()
	if err != nil {
		binary.err = fmt.Errorf("build: %v\n%s", err, out)
	}
}

// `feria migrate` applies the schema and exits; bad configuration stops
// start-up with one line naming the variable; an unknown command prints the
// usage.
func TestCommandLine(t *testing.T) {
	bin := feriaBinary(t)
	dir := t.TempDir()
	run := func(env []string, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), append([]string{"DATA_DIR=" + dir, "DATABASE_URL=", "REDIS_URL=", "S3_ENDPOINT="}, env...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(nil, "migrate")
	if err != nil || !strings.Contains(out, `"msg":"migrations","applied":`) {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "feria.db")); err != nil {
		t.Fatalf("migrate left no database: %v", err)
	}
	out, err = run(nil, "migrate")
	if err != nil || !strings.Contains(out, `"applied":0`) {
		t.Fatalf("second migrate: %v\n%s", err, out)
	}
	out, err = run([]string{"LOG_LEVEL=chatty"}, "serve")
	if err == nil || strings.TrimSpace(out) != `feria: LOG_LEVEL: want debug, info, warn or error, got "chatty"` {
		t.Fatalf("bad LOG_LEVEL: %v\n%s", err, out)
	}
	out, err = run(nil, "worker")
	if err == nil || !strings.Contains(out, "feria: REDIS_URL:") {
		t.Fatalf("worker without REDIS_URL: %v\n%s", err, out)
	}
	out, err = run(nil, "dance")
	if err == nil || !strings.Contains(out, "usage: feria <command>") {
		t.Fatalf("unknown command: %v\n%s", err, out)
	}
}

// SIGTERM during a slow request lets it finish, and the process exits 0.
func TestGracefulShutdown(t *testing.T) {
	bin := feriaBinary(t)
	port := freePort(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "HTTP_ADDR=127.0.0.1:"+fmt.Sprint(port), "DATA_DIR="+t.TempDir(),
		"SANDBOX_KEY=sandbox-secret-42", "SHUTDOWN_TIMEOUT=10s", "DATABASE_URL=", "REDIS_URL=", "S3_ENDPOINT=")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() //nolint:errcheck // normally exited already
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for i := 0; i < 100; i++ {
		if res, err := http.Get(base + "/health/ready"); err == nil {
			res.Body.Close()
			break
		}
		time.Sleep(100 * time.Millisecond)
	}

	// A request whose body arrives slowly: half now, half after the signal.
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"nickname":"SLOW","site_id":"MLA"}`
	fmt.Fprintf(conn, "PUT /sandbox/users/42 HTTP/1.1\r\nHost: x\r\nX-Sandbox-Key: sandbox-secret-42\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:10])
	time.Sleep(200 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if _, err := io.WriteString(conn, body[10:]); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("in-flight request lost: %v\n%s", err, logs.String())
	}
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.Contains(string(got), `"nickname":"SLOW"`) {
		t.Fatalf("in-flight request: %d %s", res.StatusCode, got)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("process did not exit after SIGTERM\n%s", logs.String())
	}
	if _, err := http.Get(base + "/health/live"); err == nil {
		t.Fatal("still accepting after shutdown")
	}
	if strings.Contains(logs.String(), "sandbox-secret-42") {
		t.Error("a configured sandbox key was logged")
	}
	if !strings.Contains(logs.String(), `"msg":"stopped"`) {
		t.Errorf("no stop line in the log:\n%s", logs.String())
	}
}
