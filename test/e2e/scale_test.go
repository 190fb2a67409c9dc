package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/migrations"
	"github.com/feria/feria/test/smtptest"
	"github.com/feria/feria/test/testenv"
	"github.com/feria/feria/workers/tasks"
)

// TestManyProcessesOneService runs feria as an operator scales it: two
// `feria serve` and two `feria worker` processes on one PostgreSQL, Redis
// and MinIO, driven through both API addresses. The two API processes
// start at once on an empty schema and apply the migrations once. The
// world, counters, compatibilities, copies, fiscal uploads and their
// e-mails behave as with one process, while one worker is killed with jobs
// in its hands and started again: every job runs to completion once, every
// e-mail is sent once, no count is lost.
func TestManyProcessesOneService(t *testing.T) {
	t.Parallel() // mostly waits on processes and jobs
	port := freePort(t)
	startRedis(t, port)
	f := startFleet(t, fmt.Sprintf("redis://127.0.0.1:%d/0", port))
	f.scenario(t)
}

// fleet is one deployment of feria in several processes on shared backends.
type fleet struct {
	t       *testing.T
	bin     string
	env     []string // the variables every process gets
	apis    []string // base URLs of the `feria serve` processes
	apiCmds []*exec.Cmd
	workers []*workerProcess
	logs    []string // the log file of every worker process, killed ones too
	mail    *smtptest.Server
	db      *bun.DB
	rdb     redis.UniversalClient
	insp    *asynq.Inspector
	http    *http.Client
	rx      *receiver // the application's callback
}

// receiver is an application's callback URL: it records every post and
// answers 200 at once.
type receiver struct {
	srv   *httptest.Server
	mu    sync.Mutex
	posts []notice
}

// notice is what a callback receives (the fields the test reads).
type notice struct {
	ID       string `json:"_id"`
	Topic    string `json:"topic"`
	Resource string `json:"resource"`
	Attempts int    `json:"attempts"`
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var n notice
		b, _ := io.ReadAll(req.Body)
		if json.Unmarshal(b, &n) != nil || n.ID == "" {
			t.Errorf("the callback received %s", b)
		}
		r.mu.Lock()
		r.posts = append(r.posts, n)
		r.mu.Unlock()
		w.WriteHeader(200)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) received() []notice {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]notice(nil), r.posts...)
}

const fleetKey = "fleet-sandbox-key"

// startFleet starts two API processes at once on an empty schema, then two
// worker processes, on redisURL (a server or a cluster), a schema and a
// bucket of the test's own, and an SMTP receiver.
func startFleet(t *testing.T, redisURL string) *fleet {
	t.Helper()
	f := &fleet{t: t, bin: feriaBinary(t), mail: smtptest.Start(t), http: &http.Client{Timeout: 20 * time.Second}, rx: newReceiver(t)}
	dbURL := testenv.PostgresEmptySchemaURL(t)
	s3, bucket := testenv.S3(t), testenv.S3Bucket(t)
	f.env = []string{"CALLBACK_ALLOW_PRIVATE=true", "DATABASE_URL=" + dbURL, "REDIS_URL=" + redisURL, "S3_ENDPOINT=" + s3.Endpoint,
		"S3_ACCESS_KEY=" + s3.AccessKey, "S3_SECRET_KEY=" + s3.SecretKey, "S3_BUCKET=" + bucket,
		fmt.Sprint("S3_USE_SSL=", s3.UseSSL), "SMTP_URL=" + f.mail.URL(), "SANDBOX_KEY=" + fleetKey,
		"LOG_LEVEL=info", "DATA_DIR=" + t.TempDir(), "SHUTDOWN_TIMEOUT=2s",
		// Short waits instead of the production 15-45 s and 5 s (README).
		"WORKER_CONCURRENCY=2", "WORKER_RETRY_DELAY=1s", "WORKER_DELAYED_CHECK=200ms"}
	ctx := context.Background()
	var err error
	if f.db, err = sqlstore.OpenPostgres(ctx, dbURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.db.Close() })
	if f.rdb, err = redisstore.Open(redisURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.rdb.Close() })
	f.insp = asynq.NewInspectorFromRedisClient(f.rdb)

	// Both API processes at once: each migrates before it listens.
	var logs []string
	for i := range 2 {
		base, log := f.startAPI(i)
		f.apis = append(f.apis, base)
		logs = append(logs, log)
	}
	for i, base := range f.apis {
		f.waitReady(base, logs[i])
	}
	want := len(migrations.All.Sorted())
	var rows int
	if err := f.db.NewRaw("SELECT count(*) FROM bun_migrations").Scan(ctx, &rows); err != nil || rows != want {
		t.Fatalf("bun_migrations holds %d rows (%v), want %d", rows, err, want)
	}
	applied := map[string]bool{}
	for _, log := range logs {
		b, _ := os.ReadFile(log)
		m := regexp.MustCompile(`"msg":"migrations","applied":(\d+)`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("no migrations line in %s:\n%s", log, b)
		}
		applied[string(m[1])] = true
	}
	if !applied[fmt.Sprint(want)] || !applied["0"] {
		t.Fatalf("the API processes applied %v migrations; want one all %d, the other none", applied, want)
	}
	for i := range 2 {
		f.startWorker(i + 1)
	}
	return f
}

// startAPI starts `feria serve` number i and returns its base URL and log.
func (f *fleet) startAPI(i int) (base, logPath string) {
	t := f.t
	port := freePort(t)
	logPath = filepath.Join(t.TempDir(), fmt.Sprintf("api-%d.log", i))
	out, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(f.bin, "serve")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), fmt.Sprintf("HTTP_ADDR=127.0.0.1:%d", port)}, f.env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.apiCmds = append(f.apiCmds, cmd)
	t.Cleanup(func() {
		cmd.Process.Kill() //nolint:errcheck // the test is over
		cmd.Wait()         //nolint:errcheck // killed
		out.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("api %d output:\n%s", i, tail(b, 60))
		}
	})
	return fmt.Sprintf("http://127.0.0.1:%d", port), logPath
}

func (f *fleet) waitReady(base, logPath string) {
	f.t.Helper()
	for range 300 {
		if res, err := f.http.Get(base + "/health/ready"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := os.ReadFile(logPath)
	f.t.Fatalf("%s did not become ready:\n%s", base, b)
}

// startWorker starts `feria worker` number n.
func (f *fleet) startWorker(n int) *workerProcess {
	w := startWorkerProcess(f.t, f.bin, f.env, n)
	f.workers = append(f.workers, w)
	f.logs = append(f.logs, w.log)
	return w
}

// tail is the last n lines of b.
func tail(b []byte, n int) []byte {
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return bytes.Join(lines, []byte("\n"))
}

// do calls API number api (any number: they take turns).
func (f *fleet) do(api int, method, path string, body io.Reader, header ...string) (int, []byte) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.apis[api%len(f.apis)]+path, body)
	if err != nil {
		f.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := f.http.Do(req)
	if err != nil {
		f.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// json calls with a JSON body (nil: none) and wants status.
func (f *fleet) json(api int, want int, method, path string, body any, header ...string) []byte {
	f.t.Helper()
	var rd io.Reader
	if body != nil {
		b, ok := body.([]byte)
		if !ok {
			b, _ = json.Marshal(body)
		}
		rd = bytes.NewReader(b)
	}
	st, b := f.do(api, method, path, rd, append([]string{"Content-Type", "application/json"}, header...)...)
	if st != want {
		f.t.Fatalf("API %d: %s %s: %d %s; want %d", api%len(f.apis), method, path, st, b, want)
	}
	return b
}

func (f *fleet) sandbox(api int, method, path string, body any) []byte {
	f.t.Helper()
	want := 200
	if method == "DELETE" {
		want = 204
	}
	return f.json(api, want, method, "/sandbox"+path, body, "X-Sandbox-Key", fleetKey)
}

const (
	fleetSeller = "APP_USR-demo-seller" // user 123 of the demo world
	fleetBuyer  = "APP_USR-demo-buyer"  // user 456
	fleetBrand  = "APP_USR-demo-brand"  // user 789
	fleetPacks  = 12                    // packs uploaded to while a worker dies
	fleetCopies = 8                     // copy jobs before the kill, and as many while a worker is dead
)

// scenario drives the fleet; every step's answers are the same through
// either API process.
func (f *fleet) scenario(t *testing.T) {
	start := time.Now()
	f.loadWorld()
	f.sameEverywhere()
	t.Logf("world: %s", time.Since(start).Round(time.Millisecond))
	f.counters()
	f.questions(0)
	t.Logf("counters: %s", time.Since(start).Round(time.Millisecond))
	f.compatibilities()
	t.Logf("compatibilities: %s", time.Since(start).Round(time.Millisecond))
	f.jobsWhileAWorkerDies()
	t.Logf("jobs and the kill: %s", time.Since(start).Round(time.Millisecond))
	f.eachJobOnce()
	f.eachNotificationOnce()
	f.reset()
	t.Logf("done: %s", time.Since(start).Round(time.Millisecond))
}

// fleetApp is the integrator's application, subscribed to every topic the
// scenario triggers: items (the fixtures, compatibilities, copies), orders
// (the fixtures), questions.
const fleetApp = 4242

// loadWorld loads the demo world through one API, registers the
// application, and through the other API loads the packs and the copy
// targets of the scenario (their orders and items notify it).
func (f *fleet) loadWorld() {
	raw, err := os.ReadFile("../../deploy/demo/fixtures.json")
	if err != nil {
		f.t.Fatal(err)
	}
	f.sandbox(0, "POST", "/fixtures", raw)
	f.sandbox(0, "PUT", fmt.Sprint("/applications/", fleetApp), map[string]any{"name": "fleet", "owner_id": 123, "client_secret": "s",
		"callback_url": f.rx.srv.URL, "topics": []string{"items", "orders_v2", "questions"}, "users": []int{}, "ack_timeout_ms": 10000})
	var orders, items []any
	for j := 1; j <= fleetPacks; j++ {
		orders = append(orders, map[string]any{"id": 3100000 + j, "site_id": "MLA", "seller_id": 123, "buyer_id": 456,
			"pack_id": 3000000 + j, "status": "paid", "items": []any{map[string]any{"item_id": "MLA1100", "quantity": 1, "unit_price": 15000}}})
	}
	for j := 1; j <= 2*fleetCopies; j++ {
		items = append(items, map[string]any{"id": fmt.Sprint("MLA", 9000+j), "site_id": "MLA", "seller_id": 123,
			"title": fmt.Sprint("Amortiguador copia ", j), "category_id": "MLA1747", "price": 14000, "available_quantity": 3})
	}
	f.sandbox(1, "POST", "/fixtures", map[string]any{"orders": orders, "items": items})
	// The demo's compatibilities of MLA1100 (as make run loads them): what
	// the copies copy.
	if raw, err = os.ReadFile("../../deploy/demo/compatibilities.json"); err != nil {
		f.t.Fatal(err)
	}
	f.json(1, 200, "POST", "/items/MLA1100/compatibilities", raw, "Authorization", "Bearer "+fleetSeller)
	if n := f.compatCount(0, "MLA1100"); n == 0 {
		f.t.Fatal("MLA1100 has no compatibilities to copy")
	}
}

// sameEverywhere reads resources through both API processes: the same
// bytes from each.
func (f *fleet) sameEverywhere() {
	f.t.Helper()
	bearer := func(token string) []string { return []string{"Authorization", "Bearer " + token} }
	for _, r := range []struct {
		path   string
		header []string
	}{
		{"/items/MLA1100", nil},
		{"/users/123/items/search?tags=incomplete_compatibilities", bearer(fleetSeller)},
		{"/items/MLA1100/compatibilities?extended=true", bearer(fleetSeller)},
		{"/users/789/brands", bearer(fleetBrand)},
		{"/users/123/shipping_options/free?dimensions=10x20x30,500&verbose=true", nil},
		{"/sandbox/orders/2000001", []string{"X-Sandbox-Key", fleetKey}},
		{"/sandbox/orders/3100001", []string{"X-Sandbox-Key", fleetKey}},
		{"/items/MLA9001", nil},
		{"/items/MLA1100/contacts/phone_views?date_from=2026-11-01T00:00:00Z&date_to=2026-11-30T00:00:00Z", nil},
	} {
		var answers [][]byte
		for api := range f.apis {
			answers = append(answers, f.json(api, 200, "GET", r.path, nil, r.header...))
		}
		if !bytes.Equal(answers[0], answers[1]) {
			f.t.Errorf("GET %s differs between the API processes:\n%s\n%s", r.path, answers[0], answers[1])
		}
	}
}

// total reads a contact total through an API.
func (f *fleet) total(api int, item, kind string) int {
	f.t.Helper()
	var v struct {
		Total *int `json:"total"`
	}
	b := f.json(api, 200, "GET", "/items/"+item+"/contacts/"+kind+"?date_from=2026-11-01T00:00:00Z&date_to=2026-12-01T00:00:00Z", nil)
	if err := json.Unmarshal(b, &v); err != nil || v.Total == nil {
		f.t.Fatalf("contacts total: %s", b)
	}
	return *v.Total
}

// counters sends contact events in batches through both APIs at once, then
// every batch again through the other API: every event is counted once.
func (f *fleet) counters() {
	t := f.t
	type key struct{ item, kind string }
	kinds := map[string]string{"question": "questions", "phone_view": "phone_views"}
	before := map[key]int{}
	for _, item := range []string{"MLA1100", "MLA1101"} {
		for _, kind := range kinds {
			before[key{item, kind}] = f.total(0, item, kind)
		}
	}
	const batches, perBatch = 10, 20
	added := map[key]int{}
	bodies := make([]map[string]any, batches)
	for b := range batches {
		var events []any
		for i := range perBatch {
			n := b*perBatch + i
			item, typ := []string{"MLA1100", "MLA1101"}[n%2], []string{"question", "phone_view"}[n/2%2]
			events = append(events, map[string]any{"id": fmt.Sprint("fleet-", n), "item_id": item, "type": typ,
				"date": time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute).Format(time.RFC3339)})
			added[key{item, kinds[typ]}]++
		}
		bodies[b] = map[string]any{"events": events}
	}
	send := func(round int) (accepted, duplicates int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for b, body := range bodies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				raw, _ := json.Marshal(body)
				st, ans := f.do(b+round, "POST", "/sandbox/contact_events", bytes.NewReader(raw), "Content-Type", "application/json", "X-Sandbox-Key", fleetKey)
				var r struct{ Accepted, Duplicates int }
				if st != 200 || json.Unmarshal(ans, &r) != nil {
					t.Errorf("batch %d, round %d: %d %s", b, round, st, ans)
				}
				mu.Lock()
				accepted += r.Accepted
				duplicates += r.Duplicates
				mu.Unlock()
			}()
		}
		wg.Wait()
		return accepted, duplicates
	}
	if a, d := send(0); a != batches*perBatch || d != 0 {
		t.Fatalf("first round: %d accepted, %d duplicates; want %d, 0", a, d, batches*perBatch)
	}
	if a, d := send(1); a != 0 || d != batches*perBatch {
		t.Fatalf("second round, through the other API: %d accepted, %d duplicates; want 0, %d", a, d, batches*perBatch)
	}
	for k, n := range added {
		for api := range f.apis {
			if got := f.total(api, k.item, k.kind); got != before[k]+n {
				t.Errorf("API %d: %s %s total %d, want %d + %d", api, k.item, k.kind, got, before[k], n)
			}
		}
	}
}

// compatCount is the item's compatibilities count through an API.
func (f *fleet) compatCount(api int, item string) int {
	f.t.Helper()
	var v struct {
		Count int `json:"catalog_compatibilities_count"`
	}
	if err := json.Unmarshal(f.json(api, 200, "GET", "/items/"+item+"/compatibilities", nil, "Authorization", "Bearer "+fleetSeller), &v); err != nil {
		f.t.Fatal(err)
	}
	return v.Count
}

// compatibilities adds the same vehicles to one item through both APIs at
// once: each is stored once.
func (f *fleet) compatibilities() {
	products := []any{}
	for _, id := range []string{"MLA15197901", "MLA15197902", "MLA15197903", "MLA16000001", "MLA16000002"} {
		products = append(products, map[string]any{"id": id})
	}
	before := f.compatCount(0, "MLA1101")
	var wg sync.WaitGroup
	for api := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, _ := json.Marshal(map[string]any{"products": products})
			if st, b := f.do(api, "POST", "/items/MLA1101/compatibilities", bytes.NewReader(raw), "Content-Type", "application/json",
				"Authorization", "Bearer "+fleetSeller); st != 200 {
				f.t.Errorf("POST compatibilities through API %d: %d %s", api%2, st, b)
			}
		}()
	}
	wg.Wait()
	for api := range f.apis {
		if got := f.compatCount(api, "MLA1101"); got != before+len(products) {
			f.t.Errorf("API %d: MLA1101 has %d compatibilities, want %d + %d", api, got, before, len(products))
		}
	}
}

// copy asks for a copy of MLA1100's compatibilities onto item 9000+j.
func (f *fleet) copy(j int) {
	f.json(j, 200, "POST", fmt.Sprintf("/items/MLA%d/compatibilities", 9000+j), map[string]any{"item_to_copy": map[string]any{"item_id": "MLA1100"}},
		"Authorization", "Bearer "+fleetSeller)
}

// waitCopies waits until items 9001..9000+n carry MLA1100's compatibilities.
func (f *fleet) waitCopies(n int) {
	f.t.Helper()
	want := f.compatCount(0, "MLA1100")
	deadline := time.Now().Add(30 * time.Second)
	for j := 1; j <= n; j++ {
		for f.compatCount(j, fmt.Sprintf("MLA%d", 9000+j)) != want {
			if time.Now().After(deadline) {
				f.t.Fatalf("item MLA%d: its copy never arrived", 9000+j)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// upload sends a PDF for pack 3000000+j through API j.
func (f *fleet) upload(j int) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="fiscal_document"; filename="factura.pdf"`)
	h.Set("Content-Type", "application/pdf")
	pw, _ := w.CreatePart(h)
	pw.Write(e2ePDF) //nolint:errcheck // a buffer
	w.Close()
	if st, b := f.do(j, "POST", fmt.Sprintf("/packs/%d/fiscal_documents?access_token=%s", 3000000+j, fleetSeller), &body,
		"Content-Type", w.FormDataContentType()); st != 201 {
		f.t.Fatalf("upload to pack %d: %d %s", 3000000+j, st, b)
	}
}

// jobsWhileAWorkerDies: copies with both workers; then uploads whose
// e-mails the mail server holds until every job slot of both workers holds
// one; worker 1 is SIGKILLed with its two, more copies are asked for while
// it is dead, the held e-mails are refused (none was accepted, so none may
// arrive twice), and a new worker process starts once the dead one's
// leases ran out. Every pack's e-mail arrives once, every copy is made.
func (f *fleet) jobsWhileAWorkerDies() {
	t := f.t
	for j := 1; j <= fleetCopies; j++ {
		f.copy(j)
	}
	f.waitCopies(fleetCopies)
	f.allDelivered() // no delivery is in a worker's hands when it dies

	f.mail.Hold()
	for j := 1; j <= fleetPacks; j++ {
		f.upload(j)
	}
	const slots = 2 * 2 // two workers, WORKER_CONCURRENCY=2
	f.waitFor("every job slot of both workers holding an e-mail", 20*time.Second, func() bool { return f.mail.Held() == slots })
	f.workers[0].kill()
	t.Logf("worker 1 killed with 2 jobs in its hands")
	for j := fleetCopies + 1; j <= 2*fleetCopies; j++ {
		f.copy(j)
	}
	f.questions(1)
	f.mail.Release()
	// The live worker's refused e-mails are retried in a second and the
	// other uploads mailed; what is left active is the dead worker's two.
	f.waitFor("all work but the dead worker's done", 30*time.Second, func() bool {
		var active, other int
		for _, q := range tasks.Names() {
			info, err := f.insp.GetQueueInfo(q)
			if err != nil {
				return false
			}
			active += info.Active
			other += info.Pending + info.Retry + info.Scheduled
		}
		return active == 2 && other == 0 && len(f.mail.Messages()) == fleetPacks-2
	})
	f.waitCopies(2 * fleetCopies)
	// asynq gives a dead process's job to another after its lease ran out
	// and 30 s more; that minute passes here (as in TestFiscalMailWorkerKilled).
	active, err := f.insp.ListActiveTasks(tasks.QueueDefault)
	if err != nil || len(active) != 2 {
		t.Fatalf("active tasks %+v (%v), want the dead worker's 2", active, err)
	}
	const leases = "asynq:{default}:lease"
	for _, a := range active {
		if err := f.rdb.ZAddXX(context.Background(), leases, redis.Z{Score: float64(time.Now().Add(-60 * time.Second).Unix()), Member: a.ID}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	f.startWorker(3) // its recoverer finds the two at start
	got := f.mail.WaitFor(fleetPacks, 30*time.Second)
	time.Sleep(1500 * time.Millisecond) // a duplicate would arrive by now (retry delay 1 s)
	got = f.mail.Messages()
	packs := map[int]int{}
	for _, m := range got {
		var p int
		if _, err := fmt.Sscanf(regexp.MustCompile(`pack \d+`).FindString(m.Raw), "pack %d", &p); err != nil || m.To[0] != "user-456@users.feria.invalid" {
			t.Errorf("a mail to %v about %q", m.To, regexp.MustCompile(`pack \d+`).FindString(m.Raw))
		}
		packs[p]++
	}
	for j := 1; j <= fleetPacks; j++ {
		if packs[3000000+j] != 1 {
			t.Errorf("pack %d: %d e-mails, want 1", 3000000+j, packs[3000000+j])
		}
	}
	if len(got) != fleetPacks {
		t.Errorf("%d e-mails, want %d", len(got), fleetPacks)
	}
	// The buyer's feed (through either API) has one entry per pack.
	for api := range f.apis {
		var feed struct {
			Results []struct {
				PackID int64 `json:"pack_id"`
			} `json:"results"`
		}
		json.Unmarshal(f.json(api, 200, "GET", "/my/notifications?limit=50", nil, "Authorization", "Bearer "+fleetBuyer), &feed) //nolint:errcheck // checked below
		seen := map[int64]int{}
		for _, r := range feed.Results {
			seen[r.PackID]++
		}
		for j := 1; j <= fleetPacks; j++ {
			if seen[int64(3000000+j)] != 1 {
				t.Errorf("API %d: the feed holds pack %d %d times, want once", api, 3000000+j, seen[int64(3000000+j)])
			}
		}
	}
}

// fleetQuestions is how many questions the buyer asks in each round.
const fleetQuestions = 6

// questions: the buyer asks questions through both APIs at once; each is
// counted (the item's questions total) and notifies the application.
func (f *fleet) questions(round int) {
	before := f.total(0, "MLA1100", "questions")
	var wg sync.WaitGroup
	for i := range fleetQuestions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, _ := json.Marshal(map[string]any{"item_id": "MLA1100", "text": fmt.Sprintf("¿Pregunta %d de la ronda %d?", i, round)})
			if st, b := f.do(i, "POST", "/questions", bytes.NewReader(raw), "Content-Type", "application/json", "Authorization", "Bearer "+fleetBuyer); st != 201 && st != 200 {
				f.t.Errorf("POST /questions through API %d: %d %s", i%2, st, b)
			}
		}()
	}
	wg.Wait()
	for api := range f.apis {
		if got := f.total(api, "MLA1100", "questions"); got != before+fleetQuestions {
			f.t.Errorf("API %d: %d questions counted, want %d + %d", api, got, before, fleetQuestions)
		}
	}
}

// notifications lists the application's notifications through an API.
func (f *fleet) notifications(api int) []struct {
	notice
	State string `json:"state"`
} {
	f.t.Helper()
	var out struct {
		Notifications []struct {
			notice
			State string `json:"state"`
		} `json:"notifications"`
	}
	if err := json.Unmarshal(f.sandbox(api, "GET", fmt.Sprint("/notifications?app_id=", fleetApp), nil), &out); err != nil {
		f.t.Fatal(err)
	}
	return out.Notifications
}

// allDelivered waits until every notification is delivered.
func (f *fleet) allDelivered() {
	f.waitFor("every notification delivered", 30*time.Second, func() bool {
		ns := f.notifications(0)
		for _, n := range ns {
			if n.State != "delivered" {
				return false
			}
		}
		return len(ns) > 0
	})
}

// eachNotificationOnce: every notification reached the callback once, at
// its first attempt, and both APIs list the same ones, all delivered. No
// worker died during a delivery (the kill happened while every delivery
// was done), so at-least-once is here exactly once.
func (f *fleet) eachNotificationOnce() {
	t := f.t
	f.allDelivered()
	time.Sleep(500 * time.Millisecond) // a second post would be on its way
	ns := f.notifications(0)
	if other := f.notifications(1); fmt.Sprint(other) != fmt.Sprint(ns) {
		t.Errorf("the APIs list different notifications:\n%v\n%v", ns, other)
	}
	posted := map[string]int{}
	for _, p := range f.rx.received() {
		posted[p.ID]++
		if p.Attempts != 1 {
			t.Errorf("notification %s (%s) posted at attempt %d", p.ID, p.Resource, p.Attempts)
		}
	}
	byTopic := map[string]int{}
	for _, n := range ns {
		byTopic[n.Topic]++
		if posted[n.ID] != 1 {
			t.Errorf("notification %s (%s %s) posted %d times, want once", n.ID, n.Topic, n.Resource, posted[n.ID])
		}
	}
	if len(posted) != len(ns) {
		t.Errorf("%d notifications posted, %d listed", len(posted), len(ns))
	}
	if byTopic["questions"] != 2*fleetQuestions || byTopic["orders_v2"] != fleetPacks || byTopic["items"] < 2*fleetCopies {
		t.Errorf("notifications by topic %v; want %d questions, %d orders, at least %d items", byTopic, 2*fleetQuestions, fleetPacks, 2*fleetCopies)
	}
	t.Logf("%d notifications, each posted once: %v", len(ns), byTopic)
}

// waitFor polls cond until it holds or the timeout passes.
func (f *fleet) waitFor(what string, timeout time.Duration, cond func() bool) {
	f.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			queues := map[string]string{}
			for _, q := range tasks.Names() {
				info, err := f.insp.GetQueueInfo(q)
				if err == nil {
					queues[q] = fmt.Sprintf("pending %d active %d retry %d scheduled %d", info.Pending, info.Active, info.Retry, info.Scheduled)
				}
			}
			f.t.Fatalf("waited %s for %s: mails %d, held %d, queues %v", timeout, what, len(f.mail.Messages()), f.mail.Held(), queues)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// eachJobOnce reads every worker process's log: each outbox message (a
// job, with the message id as task id) completed once, by one process, and
// nothing is left in the outbox or the queues.
func (f *fleet) eachJobOnce() {
	t := f.t
	var rows []struct {
		ID       string `bun:"id"`
		TaskType string `bun:"task_type"`
	}
	if err := f.db.NewRaw("SELECT id, task_type FROM outbox").Scan(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	byType := map[string]int{}
	for _, r := range rows {
		byType[r.TaskType]++
	}
	// Beside these, the moderation of the demo's compatibility notes.
	if byType["fiscal:document_uploaded"] != fleetPacks || byType["compat:copy"] != 2*fleetCopies || byType["webhooks:deliver"] == 0 {
		t.Errorf("outbox messages by type %v, want %d uploads, %d copies and deliveries", byType, fleetPacks, 2*fleetCopies)
	}
	var pending int
	if err := f.db.NewRaw("SELECT count(*) FROM outbox WHERE relayed_at IS NULL").Scan(context.Background(), &pending); err != nil || pending != 0 {
		t.Errorf("%d outbox messages not relayed (%v)", pending, err)
	}
	done := map[string]int{}
	for _, path := range f.logs {
		file, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line struct{ Msg, ID, Result string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "job" && line.Result == "ok" {
				done[line.ID]++
			}
		}
		file.Close()
	}
	for _, r := range rows {
		if done[r.ID] != 1 {
			t.Errorf("job %s (%s) completed %d times, want once", r.ID, r.TaskType, done[r.ID])
		}
	}
	t.Logf("%d jobs, each completed once: %v", len(rows), byType)
	for _, q := range tasks.Names() {
		info, err := f.insp.GetQueueInfo(q)
		if err != nil || info.Pending+info.Active+info.Retry+info.Scheduled+info.Archived != 0 {
			t.Errorf("queue %s: %+v (%v), want empty", q, info, err)
		}
	}
}

// reset empties everything through one API; the other sees nothing left.
func (f *fleet) reset() {
	f.sandbox(1, "DELETE", "", nil)
	if st, b := f.do(0, "GET", "/items/MLA1100", nil); st != 404 {
		f.t.Errorf("after DELETE /sandbox through the other API: GET /items/MLA1100 = %d %s", st, b)
	}
	// The GET above is in the journal and its coverage, as every public
	// request is; the reset dated the coverage's start.
	keys := f.keys("feria:")
	sort.Strings(keys)
	if strings.Join(keys, " ") != "feria:control:coverage feria:control:coverage:since feria:control:journal" {
		f.t.Errorf("after DELETE /sandbox: keys left %v, want the journal's and the coverage's only", keys)
	}
	for _, q := range tasks.Names() {
		info, err := f.insp.GetQueueInfo(q)
		if err != nil || info.Completed != 0 {
			f.t.Errorf("queue %s after the reset: %+v (%v)", q, info, err)
		}
	}
}

// keys lists the keys starting with prefix, on every master of a cluster.
func (f *fleet) keys(prefix string) []string {
	f.t.Helper()
	var mu sync.Mutex
	var out []string
	scan := func(ctx context.Context, c redis.UniversalClient) error {
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			mu.Lock()
			out = append(out, iter.Val())
			mu.Unlock()
		}
		return iter.Err()
	}
	var err error
	if c, ok := f.rdb.(*redis.ClusterClient); ok {
		err = c.ForEachMaster(context.Background(), func(ctx context.Context, n *redis.Client) error { return scan(ctx, n) })
	} else {
		err = scan(context.Background(), f.rdb)
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

// `feria health` (the image's health check: it has no shell or curl) exits
// 0 while the API of HTTP_ADDR answers /health/live, ":port" meaning
// loopback, and 1 with one line saying why when nothing answers.
func TestHealthCommand(t *testing.T) {
	t.Parallel() // mostly waits on the binary's start
	bin := feriaBinary(t)
	base := startFeria(t, bin, "DATABASE_URL=", "REDIS_URL=", "S3_ENDPOINT=")
	port := base[strings.LastIndex(base, ":")+1:]
	run := func(addr string) (string, error) {
		cmd := exec.Command(bin, "health")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HTTP_ADDR=" + addr}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, addr := range []string{":" + port, "127.0.0.1:" + port, "0.0.0.0:" + port} {
		if out, err := run(addr); err != nil || out != "" {
			t.Errorf("HTTP_ADDR=%s: %v %q; want exit 0, silent", addr, err, out)
		}
	}
	free := fmt.Sprint(freePort(t))
	out, err := run(":" + free)
	if code := exitCode(err); code != 1 || !strings.HasPrefix(out, "feria: health: http://127.0.0.1:"+free+"/health/live: ") || strings.Count(out, "\n") != 1 {
		t.Errorf("nothing listening: exit %d %q; want 1 and one line", code, out)
	}
}

// exitCode is the exit code of a finished command's error (0 for none).
func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// Two `feria migrate` at once on an empty schema (a deployment's migration
// step beside an API process starting): both succeed, one applies every
// migration, the other none. The step needs the database alone: Redis and
// the file store it is given do not answer.
func TestMigrateRace(t *testing.T) {
	t.Parallel()
	bin := feriaBinary(t)
	env := []string{"PATH=" + os.Getenv("PATH"), "CALLBACK_ALLOW_PRIVATE=true", "DATABASE_URL=" + testenv.PostgresEmptySchemaURL(t),
		fmt.Sprintf("REDIS_URL=redis://127.0.0.1:%d/0", freePort(t)), fmt.Sprintf("S3_ENDPOINT=127.0.0.1:%d", freePort(t)),
		"S3_ACCESS_KEY=a", "S3_SECRET_KEY=b", "DATA_DIR=" + t.TempDir()}
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := exec.Command(bin, "migrate")
			c.Env = env
			outs[i], errs[i] = c.CombinedOutput()
		}()
	}
	wg.Wait()
	applied := []string{}
	for i, out := range outs {
		m := regexp.MustCompile(`"msg":"migrations","applied":(\d+)`).FindSubmatch(out)
		if errs[i] != nil || m == nil {
			t.Fatalf("migrate %d: %v\n%s", i, errs[i], out)
		}
		applied = append(applied, string(m[1]))
	}
	slices.Sort(applied)
	if want := []string{"0", fmt.Sprint(len(migrations.All.Sorted()))}; !slices.Equal(applied, want) {
		t.Fatalf("applied %v, want %v", applied, want)
	}
}
