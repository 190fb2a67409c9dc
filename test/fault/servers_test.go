// Package fault holds the fault tests: each test starts its own
// PostgreSQL, Redis or MinIO on a free port, drives feria against it, and
// stops, kills or freezes that server under load. The shared test services
// are never touched.
package fault

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/migrations"
	"github.com/feria/feria/app"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/test/apptest"
)

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// need returns the path of a server binary or fails saying how to get it.
func need(t *testing.T, name, how string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"} {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	t.Fatalf("%s is needed for the fault tests: %s", name, how)
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// pgServer is a PostgreSQL cluster of the test's own.
type pgServer struct {
	t    *testing.T
	dir  string
	port int
	log  string
}

// asPostgres runs a PostgreSQL tool as user postgres when the test runs as
// root (initdb refuses root), as the current user otherwise.
func asPostgres(t *testing.T, bin string, args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.Command(need(t, "runuser", "apt-get install util-linux"), append([]string{"-u", "postgres", "--", bin}, args...)...)
	}
	return exec.Command(bin, args...)
}

func startPostgres(t *testing.T) *pgServer {
	t.Helper()
	initdb := need(t, "initdb", "apt-get install postgresql (its bin directory on PATH)")
	dir, err := os.MkdirTemp("", "feria-fault-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("the fault tests run PostgreSQL as user postgres when run as root: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := asPostgres(t, initdb, "-D", data, "-U", "postgres", "--auth=trust", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	s := &pgServer{t: t, dir: data, port: freePort(t), log: filepath.Join(dir, "pg.log")}
	s.start()
	t.Cleanup(func() { s.stop("immediate") })
	return s
}

func (s *pgServer) pgctl(args ...string) error {
	out, err := asPostgres(s.t, need(s.t, "pg_ctl", "apt-get install postgresql"), append([]string{"-D", s.dir}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

func (s *pgServer) start() {
	s.t.Helper()
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -k %s -c fsync=off -c max_connections=50", s.port, filepath.Dir(s.dir))
	if err := s.pgctl("-o", opts, "-l", s.log, "-w", "-t", "30", "start"); err != nil {
		s.t.Fatal(err)
	}
}

// stop stops the server: "fast" terminates every session (SQLSTATE 57P01)
// and checkpoints, "immediate" kills it.
func (s *pgServer) stop(mode string) {
	_ = s.pgctl("-m", mode, "-w", "-t", "30", "stop")
}

func (s *pgServer) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// open connects and migrates.
func (s *pgServer) open() *bun.DB {
	s.t.Helper()
	db, err := sqlstore.OpenPostgres(context.Background(), s.url())
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { db.Close() })
	if _, err := migrations.Up(context.Background(), db); err != nil {
		s.t.Fatal(err)
	}
	return db
}

// redisServer is a redis-server of the test's own with an append-only file
// synced on every write: an acknowledged write survives a kill.
type redisServer struct {
	t    *testing.T
	dir  string
	port int
	cmd  *exec.Cmd
}

func startRedis(t *testing.T) *redisServer {
	t.Helper()
	s := &redisServer{t: t, dir: t.TempDir(), port: freePort(t)}
	s.start()
	t.Cleanup(s.kill)
	return s
}

func (s *redisServer) start() {
	s.t.Helper()
	bin := need(s.t, "redis-server", "apt-get install redis-server")
	s.cmd = exec.Command(bin, "--port", fmt.Sprint(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--appendonly", "yes", "--appendfsync", "always", "--save", "")
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.addr()})
	defer c.Close()
	for i := 0; i < 100; i++ {
		if c.Ping(context.Background()).Err() == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatal("redis-server did not start")
}

// kill sends SIGKILL: nothing is flushed that was not already.
func (s *redisServer) kill() {
	if s.cmd != nil && s.cmd.ProcessState == nil {
		s.cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // may be gone
		s.cmd.Wait()                          //nolint:errcheck // killed
	}
}

func (s *redisServer) addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// minioServer is a MinIO of the test's own.
type minioServer struct {
	endpoint string
	cmd      *exec.Cmd
}

const minioUser, minioPassword = "feria-fault", "feria-fault-secret"

func startMinIO(t *testing.T) *minioServer {
	t.Helper()
	bin := filepath.Join(goPath(t), "bin", "minio")
	if !fileExists(bin) {
		bin = need(t, "minio", "make services builds it into $(go env GOPATH)/bin (deploy/scripts/minio.sh)")
	}
	port := freePort(t)
	s := &minioServer{endpoint: fmt.Sprintf("127.0.0.1:%d", port)}
	s.cmd = exec.Command(bin, "server", t.TempDir(), "--address", s.endpoint, "--console-address", fmt.Sprintf("127.0.0.1:%d", freePort(t)))
	s.cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+minioUser, "MINIO_ROOT_PASSWORD="+minioPassword, "MINIO_BROWSER=off")
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGCONT) //nolint:errcheck // may not be stopped
		s.cmd.Process.Kill()                  //nolint:errcheck // may be gone
		s.cmd.Wait()                          //nolint:errcheck // killed
	})
	for i := 0; i < 600; i++ {
		// ready, not live: a live MinIO may still answer "Server not
		// initialized yet".
		if res, err := http.Get("http://" + s.endpoint + "/minio/health/ready"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("minio did not start")
	return nil
}

func (s *minioServer) freeze() { s.cmd.Process.Signal(syscall.SIGSTOP) } //nolint:errcheck // test server
func (s *minioServer) thaw()   { s.cmd.Process.Signal(syscall.SIGCONT) } //nolint:errcheck // test server

func goPath(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// instance wires feria on the given backends, with the sandbox on.
func instance(t *testing.T, db *bun.DB, rdb *redis.Client, blobs blobport.Store) *apptest.App {
	t.Helper()
	cfg, err := app.LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.SandboxKey = apptest.SandboxKey
	in, err := app.NewInstance(cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)), db, rdb, blobs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Close)
	a := &apptest.App{Instance: in}
	a.SetT(t)
	return a
}
