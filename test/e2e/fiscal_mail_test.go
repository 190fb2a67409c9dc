package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/blobstore/s3blob"
	"github.com/feria/feria/app"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/test/apptest"
	"github.com/feria/feria/test/smtptest"
	"github.com/feria/feria/test/testenv"
)

// fiscalInstance wires a feria (one "process") on shared backends, with
// e-mail going to smtpURL.
func fiscalInstance(t *testing.T, db *bun.DB, rdb *redis.Client, blobs blobport.Store, smtpURL string) *app.Instance {
	t.Helper()
	cfg, err := app.LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.SandboxKey = apptest.SandboxKey
	cfg.SMTPURL = smtpURL
	cfg.ShutdownTimeout = 2 * time.Second
	level := slog.LevelWarn
	if os.Getenv("TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	in, err := app.NewInstance(cfg, slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level})), db, rdb, blobs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Close)
	return in
}

// s3Blobs returns a blob store on a bucket of the test's own on the test
// MinIO, with the server's settings and the bucket for a process's
// environment.
func s3Blobs(t *testing.T) (blobport.Store, testenv.S3Config, string) {
	t.Helper()
	s3, bucket := testenv.S3(t), testenv.S3Bucket(t)
	blobs, err := s3blob.New(context.Background(), s3blob.Config{Endpoint: s3.Endpoint, AccessKey: s3.AccessKey,
		SecretKey: s3.SecretKey, Bucket: bucket, UseSSL: s3.UseSSL})
	if err != nil {
		t.Fatal(err)
	}
	return blobs, s3, bucket
}

// workers runs an instance's workers until the returned stop is called;
// stop returns once they have shut down.
func workers(t *testing.T, in *app.Instance) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := in.RunWorkers(ctx); err != nil {
			t.Errorf("workers: %v", err)
		}
	}()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	return stop
}

func call(t *testing.T, in *app.Instance, req *http.Request) (int, []byte) {
	t.Helper()
	res, err := in.HTTP.Test(req, 30_000)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func jsonCall(t *testing.T, in *app.Instance, method, path string, body any, header ...string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return call(t, in, req)
}

var e2ePDF = []byte("%PDF-1.7\n1 0 obj<</Type/Catalog>>endobj\ntrailer<<>>\n%%EOF\n")

// pdfForm is the multipart body of an upload of pdf as factura.pdf, and
// its content type.
func pdfForm(pdf []byte) (string, *bytes.Buffer) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="fiscal_document"; filename="factura.pdf"`)
	h.Set("Content-Type", "application/pdf")
	pw, _ := w.CreatePart(h)
	pw.Write(pdf) //nolint:errcheck // a bytes.Buffer
	w.Close()
	return w.FormDataContentType(), &body
}

func uploadPDF(t *testing.T, in *app.Instance, pack int, token string) (int, []byte) {
	t.Helper()
	contentType, body := pdfForm(e2ePDF)
	req := httptest.NewRequest("POST", fmt.Sprintf("/packs/%d/fiscal_documents?access_token=%s", pack, token), body)
	req.Header.Set("Content-Type", contentType)
	return call(t, in, req)
}

// loadFiscalWorld creates seller 101 and buyer 201 (MLA) and packs 1001..1003.
func loadFiscalWorld(t *testing.T, in *app.Instance) {
	t.Helper()
	user := func(id int) map[string]any {
		return map[string]any{"id": id, "nickname": fmt.Sprint("U", id), "site_id": "MLA", "user_type": "normal",
			"tags": []string{}, "messaging_allowed": true, "access_token": fmt.Sprint("tok-", id)}
	}
	var orders []any
	for i, pack := range []int{1001, 1002, 1003} {
		orders = append(orders, map[string]any{"id": 9001 + i, "site_id": "MLA", "seller_id": 101, "buyer_id": 201,
			"pack_id": pack, "status": "paid", "items": []any{map[string]any{"item_id": "MLA101", "quantity": 1, "unit_price": 100}},
			"shipping": map[string]any{"id": 1, "logistic_type": "drop_off"}, "has_claim": false, "compatibility_selection": nil})
	}
	world := map[string]any{
		"users": []any{user(101), user(201)},
		"categories": []any{map[string]any{"id": "MLA1", "site_id": "MLA", "name": "Cosas", "domain_id": "MLA-THINGS",
			"shipping_preferences": map[string]any{"dimensions": map[string]any{"height": 10, "width": 20, "length": 30, "weight": 500},
				"logistics": []any{map[string]any{"mode": "me2", "types": []string{"drop_off"}}}, "restricted": false},
			"accepted_shipping_methods": []int{73328}, "compatibilities": nil}},
		"items": []any{map[string]any{"id": "MLA101", "site_id": "MLA", "seller_id": 101, "title": "Cosa", "category_id": "MLA1",
			"domain_id": "MLA-THINGS", "status": "active", "price": 100, "currency_id": "ARS", "available_quantity": 1,
			"listing_type_id": "gold_special", "condition": "new", "attributes": []any{}, "tags": []any{},
			"shipping": map[string]any{"mode": "me2", "local_pick_up": false, "free_shipping": false, "logistic_type": "drop_off",
				"methods": []any{}, "free_methods": []any{}}}},
		"orders": orders,
	}
	if st, b := jsonCall(t, in, "POST", "/sandbox/fixtures", world, "X-Sandbox-Key", apptest.SandboxKey); st != 200 {
		t.Fatalf("fixtures: %d %s", st, b)
	}
}

// feed returns the buyer's notification feed.
func feed(t *testing.T, in *app.Instance) []map[string]any {
	st, b := jsonCall(t, in, "GET", "/my/notifications", nil, "Authorization", "Bearer tok-201")
	var ans struct {
		Results []map[string]any `json:"results"`
		Paging  struct{ Total int }
	}
	if st != 200 || json.Unmarshal(b, &ans) != nil || ans.Paging.Total != len(ans.Results) {
		t.Fatalf("feed: %d %s", st, b)
	}
	return ans.Results
}

// TestFiscalMailExactlyOnce: an upload's buyer e-mail arrives once; an
// upload made while no worker runs is mailed when one starts; a worker
// stopped while the mail is in flight hands the job back, and the next
// worker process mails it, once.
func TestFiscalMailExactlyOnce(t *testing.T) {
	t.Parallel() // mostly waits on jobs, servers and timeouts: overlap with the others that do
	mail := smtptest.Start(t)
	db, rdb := testenv.Postgres(t), testenv.Redis(t)
	blobs, _, _ := s3Blobs(t)
	api := fiscalInstance(t, db, rdb, blobs, mail.URL())
	loadFiscalWorld(t, api)

	// 1. Uploaded while no worker runs: nothing is lost, the outbox keeps it.
	if st, b := uploadPDF(t, api, 1001, "tok-101"); st != 201 {
		t.Fatalf("upload: %d %s", st, b)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(mail.Messages()); n != 0 {
		t.Fatalf("%d mails before any worker ran", n)
	}
	// This is the crash between commit and enqueue: the notice is committed
	// in the outbox with the document, and nothing reached the queue.
	pending := func() (rows, queued int) {
		t.Helper()
		if err := db.NewRaw("SELECT count(*) FROM outbox WHERE task_type = 'fiscal:document_uploaded' AND relayed_at IS NULL").Scan(context.Background(), &rows); err != nil {
			t.Fatal(err)
		}
		insp := asynq.NewInspector(asynq.RedisClientOpt{Addr: rdb.Options().Addr, DB: rdb.Options().DB})
		defer insp.Close()
		info, err := insp.GetQueueInfo("default")
		if err != nil {
			t.Fatal(err)
		}
		return rows, info.Size
	}
	if rows, queued := pending(); rows != 1 || queued != 0 {
		t.Fatalf("before any relay: %d pending outbox rows, %d queued; want 1, 0", rows, queued)
	}
	w1 := fiscalInstance(t, db, rdb, blobs, mail.URL())
	stop1 := workers(t, w1)
	got := mail.WaitFor(1, 20*time.Second)
	if len(got) != 1 || got[0].To[0] != "user-201@users.feria.invalid" || got[0].Header("Subject") != "Your invoice is available" ||
		!strings.Contains(got[0].Raw, "pack 1001") {
		t.Fatalf("mails: %+v", got)
	}
	if rows, _ := pending(); rows != 0 {
		t.Fatalf("%d outbox rows still pending after the relay ran", rows)
	}

	// 2. The worker is stopped while the second mail is in flight.
	holding := mail.Hold()
	if st, b := uploadPDF(t, api, 1002, "tok-101"); st != 201 {
		t.Fatalf("upload: %d %s", st, b)
	}
	select {
	case <-holding:
	case <-time.After(20 * time.Second):
		t.Fatal("the job never reached the mail server")
	}
	stop1() // asynq waits ShutdownTimeout, then hands the job back to the queue
	mail.Release()
	if n := len(mail.Messages()); n != 1 {
		t.Fatalf("%d mails after the stop, want 1", n)
	}
	w2 := fiscalInstance(t, db, rdb, blobs, mail.URL())
	workers(t, w2)
	got = mail.WaitFor(2, 30*time.Second)
	if len(got) != 2 || !strings.Contains(got[1].Raw, "pack 1002") {
		t.Fatalf("mails after restart: %d", len(got))
	}
	// Exactly once: nothing more arrives, and the feed holds one entry per upload.
	time.Sleep(2 * time.Second)
	if n := len(mail.Messages()); n != 2 {
		t.Fatalf("%d mails, want 2", n)
	}
	ids := map[string]bool{}
	for _, m := range mail.Messages() {
		ids[m.Header("Message-Id")] = true
	}
	if len(ids) != 2 {
		t.Fatalf("message ids %v", ids)
	}
	f := feed(t, api)
	if len(f) != 2 || f[0]["pack_id"] != float64(1002) || f[1]["pack_id"] != float64(1001) || f[0]["kind"] != "fiscal_document_uploaded" {
		t.Fatalf("feed %+v", f)
	}

	// 3. A billing request reaches the buyer the same way.
	if st, b := jsonCall(t, api, "POST", "/packs/1003/fiscal_documents/billing_info", map[string]string{"text": "Necesito tu CUIT"},
		"Authorization", "Bearer tok-101"); st != 201 {
		t.Fatalf("billing: %d %s", st, b)
	}
	got = mail.WaitFor(3, 20*time.Second)
	if len(got) != 3 || got[2].Header("Subject") != "The seller needs your billing data" || !strings.Contains(got[2].Raw, "Necesito tu CUIT") {
		t.Fatalf("billing mail: %d", len(got))
	}
	if f := feed(t, api); len(f) != 3 || f[0]["kind"] != "billing_info_request" {
		t.Fatalf("feed %+v", f)
	}
}

// minioProcess runs a MinIO server of the test's own, that the test can
// stop and start again on the same port and data.
type minioProcess struct {
	t    *testing.T
	bin  string
	dir  string
	addr string
	cmd  *exec.Cmd
}

func startMinio(t *testing.T) *minioProcess {
	bin := filepath.Join(os.Getenv("HOME"), "go", "bin", "minio")
	if gp, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		bin = filepath.Join(strings.TrimSpace(string(gp)), "bin", "minio")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the MinIO binary is needed at %s (go install github.com/minio/minio@latest, or deploy/scripts/minio.sh): %v", bin, err)
	}
	m := &minioProcess{t: t, bin: bin, dir: t.TempDir(), addr: fmt.Sprintf("127.0.0.1:%d", freePort(t))}
	m.start()
	t.Cleanup(m.stop)
	return m
}

func (m *minioProcess) start() {
	m.t.Helper()
	m.cmd = exec.Command(m.bin, "server", "--quiet", "--address", m.addr, "--console-address", "127.0.0.1:0", m.dir)
	m.cmd.Env = append(os.Environ(), "MINIO_ROOT_USER=feria-e2e", "MINIO_ROOT_PASSWORD=feria-e2e-secret")
	if err := m.cmd.Start(); err != nil {
		m.t.Fatal(err)
	}
	// The health check answers 200 a moment before the S3 API stops
	// answering 503 "Server not initialized yet": wait for both.
	status := func(path string) int {
		res, err := http.Get("http://" + m.addr + path)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if status("/minio/health/ready") == 200 {
			if st := status("/"); st != 0 && st != http.StatusServiceUnavailable {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.t.Fatalf("minio at %s did not become ready", m.addr)
}

func (m *minioProcess) stop() {
	if m.cmd != nil && m.cmd.Process != nil {
		m.cmd.Process.Kill()
		m.cmd.Wait()
		m.cmd = nil
	}
}

// TestFiscalStorageOutage: with MinIO down an upload answers 503 and leaves
// no document; with MinIO back the same upload works.
func TestFiscalStorageOutage(t *testing.T) {
	t.Parallel() // mostly waits on jobs, servers and timeouts: overlap with the others that do
	m := startMinio(t)
	blobs, err := s3blob.New(context.Background(), s3blob.Config{Endpoint: m.addr, AccessKey: "feria-e2e",
		SecretKey: "feria-e2e-secret", Bucket: "feria", DialTimeout: time.Second, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	in := fiscalInstance(t, testenv.Postgres(t), testenv.Redis(t), blobs, "")
	loadFiscalWorld(t, in)
	if st, b := uploadPDF(t, in, 1001, "tok-101"); st != 201 {
		t.Fatalf("upload with MinIO up: %d %s", st, b)
	}

	m.stop()
	st, b := uploadPDF(t, in, 1002, "tok-101")
	if st != 503 || string(b) != `{"message":"file storage is unavailable; retry later","error":"service_unavailable","status":503,"cause":[]}` {
		t.Fatalf("upload with MinIO down: %d %s", st, b)
	}
	if st, b := jsonCall(t, in, "GET", "/packs/1002/fiscal_documents", nil, "Authorization", "Bearer tok-101"); st != 404 {
		t.Fatalf("a document was left: %d %s", st, b)
	}
	var rows int
	if err := in.Deps.DB.NewRaw("SELECT count(*) FROM fiscal_documents WHERE pack_id = 1002").Scan(context.Background(), &rows); err != nil || rows != 0 {
		t.Fatalf("rows %d %v", rows, err)
	}

	m.start()
	if st, b := uploadPDF(t, in, 1002, "tok-101"); st != 201 {
		t.Fatalf("upload with MinIO back: %d %s", st, b)
	}
	st, b = jsonCall(t, in, "GET", "/packs/1001/fiscal_documents", nil, "Authorization", "Bearer tok-201")
	var l struct {
		Docs []struct{ ID string } `json:"fiscal_documents"`
	}
	if st != 200 || json.Unmarshal(b, &l) != nil || len(l.Docs) != 1 {
		t.Fatalf("list: %d %s", st, b)
	}
	req := httptest.NewRequest("GET", "/packs/1001/fiscal_documents/"+l.Docs[0].ID+"?access_token=tok-201", nil)
	if st, body := call(t, in, req); st != 200 || !bytes.Equal(body, e2ePDF) {
		t.Fatalf("download after the outage: %d %s", st, body)
	}
}
