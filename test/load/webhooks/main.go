// Command webhooks is the load run of the notifications to applications:
// notifications delivered per second to a local receiver that answers 200
// at once, by a `feria worker` process apart from the API.
//
// It wires the API on a PostgreSQL schema of its own and a redis-server of
// its own (started on a free port, so that the shared Redis is never
// written), serves it on 127.0.0.1, puts one application whose callback is
// the receiver, makes -n notifications through POST /sandbox/notifications
// (no worker runs yet), then starts the worker binary and measures, from the
// receiver's first post to the last notification marked delivered, how many
// were delivered per second; also from the worker's start (its start-up,
// the outbox relay and the first jobs included).
//
// Run it with deploy/scripts/bench-webhooks.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/test/load/loadrun"
)

func main() {
	dbURL := flag.String("db", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL URL (a schema of its own is created and dropped)")
	n := flag.Int("n", 3000, "notifications to deliver")
	bin := flag.String("bin", "", "the feria binary (built into a temporary directory when empty)")
	flag.Parse()
	if err := run(*dbURL, *n, *bin); err != nil {
		log.Fatal(err)
	}
}

func run(dbURL string, n int, bin string) error {
	ctx := context.Background()
	if bin == "" {
		dir, err := os.MkdirTemp("", "feria-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "feria")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/feria/feria/cmd/feria").CombinedOutput(); err != nil {
			return fmt.Errorf("build: %v\n%s", err, out)
		}
	}
	redisURL, stopRedis, err := loadrun.StartRedis()
	if err != nil {
		return err
	}
	defer stopRedis()
	db, schemaURL, drop, err := loadrun.SchemaURL(ctx, dbURL, "load_webhooks")
	if err != nil {
		return err
	}
	defer drop()
	ropt, err := redis.ParseURL(redisURL)
	if err != nil {
		return err
	}
	rdb := redis.NewClient(ropt)
	defer rdb.Close()
	srv, err := loadrun.Serve(db, rdb, 8)
	if err != nil {
		return err
	}
	defer srv.Close()

	// The receiver answers 200 at once and notes when posts arrive.
	var posts atomic.Int64
	var first atomic.Int64
	rx := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if posts.Add(1) == 1 {
			first.Store(time.Now().UnixNano())
		}
		w.WriteHeader(http.StatusOK)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go rx.Serve(ln) //nolint:errcheck // ends with Close
	defer rx.Close()

	if _, err := srv.Call("PUT", "/sandbox/users/123", `{"nickname":"SELLER","site_id":"MLA"}`); err != nil {
		return err
	}
	app := fmt.Sprintf(`{"name":"bench","owner_id":123,"client_secret":"s","callback_url":"http://%s/notifications","topics":["items"]}`, ln.Addr())
	if _, err := srv.Call("PUT", "/sandbox/applications/789", app); err != nil {
		return err
	}
	t0 := time.Now()
	if err := create(srv, n); err != nil {
		return err
	}
	fmt.Printf("created %d notifications through POST /sandbox/notifications in %s (%.0f/s, 8 clients)\n",
		n, time.Since(t0).Round(time.Millisecond), float64(n)/time.Since(t0).Seconds())

	worker := exec.Command(bin, "worker")
	dataDir, err := os.MkdirTemp("", "feria-bench-worker")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dataDir)
	// Only the run's own backends: nothing of the environment leaks in.
	worker.Env = []string{"CALLBACK_ALLOW_PRIVATE=true", "DATABASE_URL=" + schemaURL, "REDIS_URL=" + redisURL, "DATA_DIR=" + dataDir, "LOG_LEVEL=warn"}
	started := time.Now()
	if err := worker.Start(); err != nil {
		return err
	}
	defer func() { worker.Process.Kill(); worker.Wait() }() //nolint:errcheck // stopped at the end

	var delivered int
	deadline := time.Now().Add(10 * time.Minute)
	for delivered < n {
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d delivered after %s", delivered, n, time.Since(started))
		}
		time.Sleep(20 * time.Millisecond)
		if err := db.NewRaw("SELECT count(*) FROM webhook_notifications WHERE state = 'delivered'").Scan(ctx, &delivered); err != nil {
			return err
		}
	}
	end := time.Now()
	from := time.Unix(0, first.Load())
	fmt.Printf("delivered %d notifications (%d posts) to a receiver answering 200 at once, by one `feria worker` process:\n", n, posts.Load())
	fmt.Printf("  from the first post to the last delivered: %s, %.0f notifications/s\n",
		end.Sub(from).Round(time.Millisecond), float64(n)/end.Sub(from).Seconds())
	fmt.Printf("  from the worker's start (start-up and relay included): %s, %.0f notifications/s\n",
		end.Sub(started).Round(time.Millisecond), float64(n)/end.Sub(started).Seconds())
	return nil
}

// create makes n notifications with 8 concurrent clients.
func create(srv *loadrun.Server, n int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				body := fmt.Sprintf(`{"app_id":789,"topic":"items","resource":"/items/MLA%d","user_id":123}`, 1000+i)
				if _, err := srv.Call("POST", "/sandbox/notifications", body); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
