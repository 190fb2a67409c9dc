package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/blobstore/fsblob"
	"github.com/feria/feria/test/apptest"
)

// holdingReceiver is a callback that holds its first `hold` posts open
// (until released or their connection dies) and answers every other post
// 200 at once.
type holdingReceiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	posts   []map[string]any
	hold    int
	held    chan struct{} // closed once `hold` posts are held
	release chan struct{}
}

func newHoldingReceiver(t *testing.T, hold int) *holdingReceiver {
	r := &holdingReceiver{hold: hold, held: make(chan struct{}), release: make(chan struct{})}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body map[string]any
		b, _ := io.ReadAll(req.Body)
		_ = json.Unmarshal(b, &body)
		r.mu.Lock()
		r.posts = append(r.posts, body)
		n := len(r.posts)
		r.mu.Unlock()
		if n <= r.hold {
			if n == r.hold {
				close(r.held)
			}
			select {
			case <-r.release:
			case <-req.Context().Done():
				return
			}
		}
		w.WriteHeader(200)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *holdingReceiver) received() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]any(nil), r.posts...)
}

// TestWebhooksWorkerKilled: the `feria worker` process is SIGKILLed while a
// receiver holds deliveries open; another starts, and every notification is
// still delivered. The held attempts count as failed (their worker died
// during them) and are made again with the same _id: delivery is at least
// once, and a duplicate is only ever a later attempt of the same
// notification.
//
// As in TestFiscalMailWorkerKilled, asynq hands out a dead process's jobs
// once their lease has been expired for a minute; the test moves the
// leases' deadlines into the past instead of waiting, and the second worker
// runs with the short retry settings.
func TestWebhooksWorkerKilled(t *testing.T) {
	t.Parallel() // mostly waits on jobs and processes: overlap with the others that do
	bin := feriaBinary(t)
	bk := ownBackends(t)
	dbURL, redisURL, db, rdb := bk.dbURL, bk.redisURL, bk.db, bk.rdb
	ctx := context.Background()
	blobs, err := fsblob.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The API runs in the test (no workers); the workers are the real binary.
	api := &apptest.App{Instance: fiscalInstance(t, db, rdb, blobs, "")}
	api.SetT(t)
	api.MustLoad(apptest.Sample())
	const held, total = 3, 20
	rx := newHoldingReceiver(t, held)
	body := fmt.Sprintf(`{"name":"it","owner_id":123,"client_secret":"s","callback_url":%q,"topics":["items"],"users":[],
		"ack_timeout_ms":10000,"retry_delays_ms":[0,0,0,0,0,0,0]}`, rx.srv.URL)
	api.Sandbox("PUT", "/applications/789", body).OK(t, 200)
	ids := map[string]bool{}
	for i := range total {
		r := api.Sandbox("POST", "/notifications", map[string]any{"app_id": 789, "topic": "items", "resource": fmt.Sprintf("/items/MLA%d", 1100+i), "user_id": 123})
		var n struct {
			ID string `json:"_id"`
		}
		r.JSON(t, &n)
		ids[n.ID] = true
	}
	env := []string{"CALLBACK_ALLOW_PRIVATE=true", "DATABASE_URL=" + dbURL, "REDIS_URL=" + redisURL, "DATA_DIR=" + t.TempDir(), "LOG_LEVEL=debug",
		"WORKER_RETRY_DELAY=1s", "WORKER_DELAYED_CHECK=200ms"}

	w1 := startWorkerProcess(t, bin, env, 1)
	select {
	case <-rx.held:
	case <-time.After(30 * time.Second):
		t.Fatal("the first worker never reached the receiver")
	}
	w1.kill()
	close(rx.release) // the held posts answer a dead process

	// The held jobs are still leased to the dead worker; the minute asynq
	// waits passes at once.
	insp := asynq.NewInspector(asynq.RedisClientOpt{Addr: rdb.Options().Addr})
	defer insp.Close()
	active, err := insp.ListActiveTasks("webhooks")
	if err != nil || len(active) < held {
		t.Fatalf("after the kill: active %d (%v), want at least the %d held", len(active), err, held)
	}
	for _, a := range active {
		if err := rdb.ZAddXX(ctx, "asynq:{webhooks}:lease", redis.Z{Score: float64(time.Now().Add(-60 * time.Second).Unix()), Member: a.ID}).Err(); err != nil {
			t.Fatal(err)
		}
	}

	start := time.Now()
	startWorkerProcess(t, bin, env, 2)
	var ns []struct {
		ID         string `json:"_id"`
		State      string `json:"state"`
		Attempts   int    `json:"attempts"`
		Deliveries []struct {
			Attempt  int     `json:"attempt"`
			HTTPCode *int    `json:"http_code"`
			Error    *string `json:"error"`
		} `json:"deliveries"`
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var out struct {
			Notifications json.RawMessage `json:"notifications"`
		}
		api.Sandbox("GET", "/notifications?app_id=789", nil).JSON(t, &out)
		if err := json.Unmarshal(out.Notifications, &ns); err != nil {
			t.Fatal(err)
		}
		delivered := 0
		for _, n := range ns {
			if n.State == "delivered" {
				delivered++
			}
		}
		if delivered == total {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d delivered after the restart: %s", delivered, total, out.Notifications)
		}
	}
	t.Logf("all delivered %s after the second worker started", time.Since(start).Round(100*time.Millisecond))

	// Every notification reached the receiver; a notification posted more
	// than once was posted with attempts counting up (an attempt whose
	// worker died before its post left is counted but never seen).
	seen := map[string][]float64{}
	for _, p := range rx.received() {
		id, _ := p["_id"].(string)
		if !ids[id] {
			t.Fatalf("a post of an unknown notification: %v", p)
		}
		seen[id] = append(seen[id], p["attempts"].(float64))
	}
	if len(seen) != total {
		t.Fatalf("%d notifications reached the receiver, want %d", len(seen), total)
	}
	again := 0
	for id, attempts := range seen {
		for i := 1; i < len(attempts); i++ {
			if attempts[i] <= attempts[i-1] {
				t.Errorf("%s posted with attempts %v", id, attempts)
			}
		}
		if len(attempts) > 1 {
			again++
		}
	}
	if again < held {
		t.Errorf("%d notifications posted twice, want at least the %d held", again, held)
	}
	for _, n := range ns {
		if len(n.Deliveries) == 1 {
			continue
		}
		// A held attempt: failed with its worker, then delivered.
		first, last := n.Deliveries[0], n.Deliveries[len(n.Deliveries)-1]
		if first.HTTPCode != nil || first.Error == nil || *first.Error != "no answer recorded: the worker stopped during the attempt" ||
			last.HTTPCode == nil || *last.HTTPCode != 200 || n.Attempts != len(n.Deliveries) {
			t.Errorf("deliveries of %s: %+v", n.ID, n.Deliveries)
		}
	}
}
