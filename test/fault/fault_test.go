package fault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http/httptest"
	"net/textproto"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/blobstore/fsblob"
	"github.com/feria/feria/adapters/blobstore/s3blob"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/compatdb"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/ports/compatport"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/test/apptest"
	"github.com/feria/feria/test/testenv"
)

// outcome is one request of a load run.
type outcome struct {
	key    string
	status int
	start  time.Time
	took   time.Duration
}

// load runs send on workers goroutines, each with keys of its own, until
// stop is closed, and returns every outcome.
func load(workers int, stop <-chan struct{}, send func(key string) int) func() []outcome {
	var (
		mu   sync.Mutex
		out  []outcome
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprint(next.Add(1))
				start := time.Now()
				st := send(key)
				mu.Lock()
				out = append(out, outcome{key: key, status: st, start: start, took: time.Since(start)})
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	return func() []outcome { wg.Wait(); return out }
}

// summary checks that every answer was 2xx or 503 and reports the slowest
// 503, and the first success at or after since.
func summary(t *testing.T, outs []outcome, since time.Time) (acked []string, unavailable int, slowest time.Duration, firstOK time.Time) {
	t.Helper()
	sort.Slice(outs, func(i, j int) bool { return outs[i].start.Before(outs[j].start) })
	for _, o := range outs {
		switch {
		case o.status >= 200 && o.status < 300:
			acked = append(acked, o.key)
			if firstOK.IsZero() && !o.start.Before(since) {
				firstOK = o.start.Add(o.took)
			}
		case o.status == 503:
			unavailable++
			slowest = max(slowest, o.took)
		default:
			t.Errorf("request %s answered %d during the fault; want 2xx or 503", o.key, o.status)
		}
	}
	return acked, unavailable, slowest, firstOK
}

func waitUntil(t *testing.T, limit time.Duration, ok func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < limit {
		if ok() {
			return time.Since(start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("not within %v", limit)
	return 0
}

func fsBlobs(t *testing.T) blobport.Store {
	t.Helper()
	b, err := fsblob.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// PostgreSQL stopped (fast: every session terminated, SQLSTATE 57P01) and
// started again under a steady load of writes: while it is down every
// write answers 503 quickly (never 500), DELETE /sandbox too; once it is up
// writes succeed again within 5 s, with no burst of failures on the pooled
// connections it killed, and every write that was acknowledged is there.
func TestPostgresRestartUnderWrites(t *testing.T) {
	t.Parallel()
	pg := startPostgres(t)
	a := instance(t, pg.open(), testenv.Redis(t), fsBlobs(t))
	stop := make(chan struct{})
	wait := load(4, stop, func(key string) int {
		return a.Sandbox("PUT", "/users/"+key, map[string]any{"nickname": "U" + key, "site_id": "MLA"}).Status
	})
	time.Sleep(300 * time.Millisecond)
	downAt := time.Now()
	pg.stop("fast")
	stoppedIn := time.Since(downAt)
	if r := a.Sandbox("DELETE", "", nil); r.Status != 503 {
		t.Errorf("DELETE /sandbox with the database down: %d %s; want 503", r.Status, r.Body)
	}
	time.Sleep(time.Second)
	upAt := time.Now()
	pg.start()
	startedIn := time.Since(upAt)
	waitUntil(t, 10*time.Second, func() bool {
		return a.Sandbox("PUT", "/users/999999", map[string]any{"nickname": "PROBE", "site_id": "MLA"}).Status == 200
	})
	time.Sleep(500 * time.Millisecond) // load on the fresh pool
	close(stop)
	outs := wait()
	acked, unavailable, slowest, firstOK := summary(t, outs, upAt.Add(startedIn))
	back := firstOK.Sub(upAt.Add(startedIn))
	t.Logf("%d writes: %d acknowledged, %d answered 503 (slowest %v); pg_ctl stop %v, start %v; first write acknowledged %v after the server was up",
		len(outs), len(acked), unavailable, slowest, stoppedIn.Round(time.Millisecond), startedIn.Round(time.Millisecond), back.Round(time.Millisecond))
	if unavailable == 0 {
		t.Error("no write met the outage")
	}
	if slowest > time.Second {
		t.Errorf("a 503 took %v; want fast answers while the database is down", slowest)
	}
	if firstOK.IsZero() || back > 5*time.Second {
		t.Errorf("writes back %v after the restart; want within 5 s", back)
	}
	// After the restart no pooled connection the server killed fails a write.
	for _, o := range outs {
		if o.start.After(firstOK) && o.status != 200 {
			t.Errorf("write %s answered %d after the database was back", o.key, o.status)
		}
	}
	for _, id := range acked {
		if r := a.Sandbox("GET", "/users/"+id, nil); r.Status != 200 {
			t.Errorf("acknowledged user %s is lost: %d %s", id, r.Status, r.Body)
		}
	}
}

// Redis killed (SIGKILL) under a steady load of contact events and started
// again on its append-only file: while it is down or loading ingestion
// answers 503 (never 500); afterwards every acknowledged event is counted.
func TestRedisKilledUnderIngest(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr(), MaxRetries: 1, DialTimeout: 300 * time.Millisecond,
		ReadTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond})
	t.Cleanup(func() { rdb.Close() })
	a := instance(t, testenv.Postgres(t), rdb, fsBlobs(t))
	a.MustLoad(apptest.Sample())
	stop := make(chan struct{})
	wait := load(4, stop, func(key string) int {
		return a.Sandbox("PUT", "/contact_events/ev-"+key, map[string]any{"item_id": "MLA1100", "type": "question", "date": "2026-11-20T10:00:00Z"}).Status
	})
	time.Sleep(300 * time.Millisecond)
	srv.kill()
	time.Sleep(time.Second)
	upAt := time.Now()
	srv.start()
	waitUntil(t, 10*time.Second, func() bool {
		return a.Sandbox("PUT", "/contact_events/probe", map[string]any{"item_id": "MLA1100", "type": "question", "date": "2026-11-20T10:00:00Z"}).Status == 200
	})
	time.Sleep(300 * time.Millisecond)
	close(stop)
	outs := wait()
	acked, unavailable, slowest, firstOK := summary(t, outs, upAt)
	t.Logf("%d events: %d acknowledged, %d answered 503 (slowest %v); first acknowledged %v after redis-server started",
		len(outs), len(acked), unavailable, slowest, firstOK.Sub(upAt).Round(time.Millisecond))
	if unavailable == 0 {
		t.Error("no event met the outage")
	}
	for _, id := range acked {
		if r := a.Sandbox("GET", "/contact_events/ev-"+id, nil); r.Status != 200 {
			t.Errorf("acknowledged event ev-%s is lost: %d %s", id, r.Status, r.Body)
		}
	}
	var v struct {
		Total int `json:"total"`
	}
	a.Do("GET", "/items/MLA1100/contacts/questions?date_from=2026-11-01T00:00:00Z&date_to=2026-11-30T00:00:00Z", nil).JSON(t, &v)
	if v.Total < len(acked)+1 {
		t.Errorf("question total %d; want at least the %d acknowledged events and the probe", v.Total, len(acked))
	}
}

// fiscalWorld is a seller (tok-101), a buyer (tok-201) and pack 1001.
func fiscalWorld() map[string]any {
	user := func(id int) map[string]any {
		return map[string]any{"id": id, "nickname": fmt.Sprint("U", id), "site_id": "MLA", "access_token": fmt.Sprint("tok-", id)}
	}
	w := apptest.Sample()
	w["users"] = []any{user(101), user(201)}
	w["items"] = []any{func() map[string]any { it := apptest.Item("MLA101", "", "active"); it["seller_id"] = 101; return it }()}
	w["orders"] = []any{map[string]any{"id": 9001, "site_id": "MLA", "seller_id": 101, "buyer_id": 201, "pack_id": 1001,
		"status": "paid", "items": []any{map[string]any{"item_id": "MLA101", "quantity": 1, "unit_price": 100}},
		"shipping": map[string]any{"id": 1, "logistic_type": "drop_off"}, "has_claim": false, "compatibility_selection": nil}}
	return w
}

func upload(a *apptest.App, name string) apptest.Response {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="fiscal_document"; filename="`+name+`"`)
	h.Set("Content-Type", "application/pdf")
	pw, _ := w.CreatePart(h)
	pw.Write([]byte("%PDF-1.7\n1 0 obj<</Type/Catalog>>endobj\ntrailer<<>>\n%%EOF\n")) //nolint:errcheck // in memory
	w.Close()
	req := httptest.NewRequest("POST", "/packs/1001/fiscal_documents?access_token=tok-101", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return a.Send(req)
}

// MinIO frozen (SIGSTOP: connections accepted, nothing answered) while
// documents are uploaded and downloaded: each answer comes within the
// storage bound (S3_TIMEOUT, here 1 s) plus the request's own work, uploads
// as 503; once MinIO runs again, an upload works, and the janitor leaves no
// file that no document names (a frozen upload may land after its client
// gave up).
func TestMinIOFrozen(t *testing.T) {
	t.Parallel()
	m := startMinIO(t)
	const bound = time.Second
	var blobs blobport.Store
	// A MinIO that says it is ready may still answer "Server not
	// initialized yet" for a moment.
	waitUntil(t, 20*time.Second, func() bool {
		var err error
		blobs, err = s3blob.New(context.Background(), s3blob.Config{Endpoint: m.endpoint, AccessKey: minioUser, SecretKey: minioPassword,
			Bucket: "feria-fault", OpTimeout: bound})
		return err == nil
	})
	a := instance(t, testenv.Postgres(t), testenv.Redis(t), blobs)
	a.MustLoad(fiscalWorld())
	first := upload(a, "first.pdf")
	var ids struct{ IDs []string }
	first.HasStatus(t, 201)
	if json.Unmarshal(first.Body, &ids) != nil || len(ids.IDs) != 1 {
		t.Fatalf("upload: %d %s", first.Status, first.Body)
	}
	within := func(what string, want int, do func() apptest.Response) {
		t.Helper()
		start := time.Now()
		r := do()
		took := time.Since(start)
		t.Logf("%s with MinIO frozen: %d in %v (bound %v)", what, r.Status, took.Round(time.Millisecond), bound)
		if r.Status != want || took > bound+2*time.Second {
			t.Errorf("%s with MinIO frozen: %d after %v; want %d within the bound %v: %s", what, r.Status, took, want, bound, r.Body)
		}
	}
	m.freeze()
	// A stored row whose file cannot be read: the contract's 404 "retry".
	within("download", 404, func() apptest.Response {
		return a.Do("GET", "/packs/1001/fiscal_documents/"+ids.IDs[0]+"?access_token=tok-201", nil)
	})
	// Rows go, the file stays behind unseen: the janitor's work.
	within("delete", 200, func() apptest.Response {
		return a.Do("DELETE", "/packs/1001/fiscal_documents?access_token=tok-101", nil)
	})
	within("upload", 503, func() apptest.Response { return upload(a, "frozen.pdf") })
	start := time.Now()
	ready := a.Do("GET", "/health/ready", nil)
	t.Logf("readiness with MinIO frozen: %d in %v", ready.Status, time.Since(start).Round(time.Millisecond))
	if ready.Status != 503 || time.Since(start) > bound+2*time.Second {
		t.Errorf("readiness with MinIO frozen: %d after %v", ready.Status, time.Since(start))
	}
	m.thaw()
	waitUntil(t, 10*time.Second, func() bool { return a.Do("GET", "/health/ready", nil).Status == 200 })
	upload(a, "after.pdf").HasStatus(t, 201)
	time.Sleep(1100 * time.Millisecond) // S3 times have whole seconds
	payload, _ := json.Marshal(fiscalport.Sweep{GraceSeconds: 1})
	if err := a.ProcessTask(context.Background(), asynq.NewTask(fiscalport.TaskSweepOrphans, payload)); err != nil {
		t.Fatalf("janitor: %v", err)
	}
	var files []string
	if err := blobs.List(context.Background(), fiscalport.FilePrefix, func(in blobport.Info) error {
		files = append(files, in.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	l := a.Do("GET", "/packs/1001/fiscal_documents?access_token=tok-201", nil)
	if len(files) != 1 || !strings.Contains(string(l.Body), "after.pdf") || strings.Contains(string(l.Body), "frozen.pdf") {
		t.Fatalf("after the janitor: files %v, documents %s; want only after.pdf's file", files, l.Body)
	}
}

// TestPostgresRestartUnderNativeReads: a hot read scanned from pgx's own
// rows (sqlstore.Each, the compatibilities list) meets a restarted
// PostgreSQL as the database/sql reads do: ErrUnavailable quickly while it
// is down, and once it is up no pooled connection the server killed fails
// a read.
func TestPostgresRestartUnderNativeReads(t *testing.T) {
	t.Parallel()
	pg := startPostgres(t)
	store := compatdb.New(pg.open())
	ctx := context.Background()
	read := func() error {
		_, err := store.Listing(ctx, "MLA1")
		return err
	}
	// Fill the pool: every connection is one the restart will kill.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); _ = read() }()
	}
	wg.Wait()
	if err := read(); !errors.Is(err, compatport.ErrNotFound) {
		t.Fatalf("listing of an unknown item: %v", err)
	}
	pg.stop("fast")
	start := time.Now()
	if err := read(); !errors.Is(err, sqlstore.ErrUnavailable) || time.Since(start) > time.Second {
		t.Fatalf("listing with the database down: %v after %v; want ErrUnavailable at once", err, time.Since(start))
	}
	pg.start()
	for i := range 20 {
		if err := read(); !errors.Is(err, compatport.ErrNotFound) {
			t.Fatalf("read %d after the restart: %v", i, err)
		}
	}
}
