package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
)

// killWorld is apptest.Sample with a token for buyer 456, one pack of the
// seller's per round (orders 8001.. in packs 5001..), one empty item per
// round to copy compatibilities onto (MLA3001..) and two versions of a
// vehicle (children of MLA15197901) to copy.
func killWorld(rounds int) map[string]any {
	w := apptest.Sample()
	w["users"].([]map[string]any)[2]["access_token"] = "APP_USR-buyer"
	items := w["items"].([]map[string]any)
	var orders []any
	for i := 1; i <= rounds; i++ {
		items = append(items, apptest.Item(fmt.Sprint("MLA", 3000+i), "", "active"))
		orders = append(orders, map[string]any{"id": 8000 + i, "site_id": "MLA", "seller_id": 123, "buyer_id": 456,
			"pack_id": 5000 + i, "status": "paid", "items": []any{map[string]any{"item_id": "MLA1100", "quantity": 1, "unit_price": 15000}},
			"shipping": map[string]any{"id": 1, "logistic_type": "drop_off"}, "has_claim": false, "compatibility_selection": nil})
	}
	products := w["products"].([]map[string]any)
	for i, id := range []string{"MLA15197911", "MLA15197912"} {
		products = append(products, map[string]any{"id": id, "site_id": "MLA", "domain_id": "MLA-CARS_AND_VANS",
			"name": fmt.Sprint("Ford Ka 2016 version ", i), "parent_id": "MLA15197901", "attributes": []any{}})
	}
	// Shock absorbers fit cars.
	domains := append(w["domains"].([]map[string]any), map[string]any{"id": "MLA-CAR_SHOCK_ABSORBERS", "site_id": "MLA", "main": false,
		"compatibilities": []any{map[string]any{"compatible_domain_id": "MLA-CARS_AND_VANS", "type": "EXTENSION", "required": true,
			"restrictions": []any{}, "categories": []any{map[string]any{"id": "MLA1747", "required": true, "note_status": "ENABLED",
				"restrictions_status": "ENABLED", "universal_status": "ENABLED"}}, "restriction_values": []any{}}}})
	w["items"], w["orders"], w["products"], w["domains"] = items, orders, products, domains
	return w
}

// callbackServer records the notifications posted to it, by _id.
type callbackServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen map[string]int
}

func newCallbackServer(t *testing.T) *callbackServer {
	c := &callbackServer{seen: map[string]int{}}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n struct {
			ID string `json:"_id"`
		}
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &n) == nil && n.ID != "" {
			c.mu.Lock()
			c.seen[n.ID]++
			c.mu.Unlock()
		}
		w.WriteHeader(200)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *callbackServer) received(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[id] > 0
}

func (p *embeddedProcess) as(t *testing.T, token, method, path string, body any) (int, string) {
	t.Helper()
	return p.call(t, method, path, "application/json", jsonBytes(body), "Authorization", "Bearer "+token)
}

// kill sends SIGKILL: nothing of feria's shutdown runs.
func (p *embeddedProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.cmd.Wait() //nolint:errcheck // killed
}

// loadKillWorld loads killWorld(rounds) into p, the compatibilities of
// MLA1100 that each round copies (it returns how many) and the
// application 789 posting to cb.
func loadKillWorld(t *testing.T, p *embeddedProcess, cb *callbackServer, rounds int) int {
	t.Helper()
	if st, b := p.do(t, "POST", "/sandbox/fixtures", killWorld(rounds)); st != 200 {
		t.Fatalf("fixtures: %d %s", st, b)
	}
	if st, b := p.as(t, "APP_USR-seller", "POST", "/items/MLA1100/compatibilities",
		map[string]any{"products": []any{map[string]any{"id": "MLA15197911"}, map[string]any{"id": "MLA15197912"}}}); st != 200 {
		t.Fatalf("compatibilities: %d %s", st, b)
	}
	app := fmt.Sprintf(`{"name":"it","owner_id":123,"client_secret":"s","callback_url":%q,"topics":["items"],"users":[],"retry_delays_ms":[0,0,0,0,0,0,0]}`, cb.srv.URL)
	if st, b := p.call(t, "PUT", "/sandbox/applications/789", "application/json", []byte(app), "X-Sandbox-Key", apptest.SandboxKey); st != 200 {
		t.Fatalf("application: %d %s", st, b)
	}
	return 2
}

// killRound is what one round of TestEmbeddedKillKeepsAcknowledgedWrites
// had acknowledged when the process was killed.
type killRound struct {
	n            int
	events       map[string]any // the batch, posted again after the restart
	pack         int
	copyTo       string
	notification string
}

const (
	killEvents    = 25
	killTotalPath = "/items/MLA1100/contacts/questions?date_from=2026-11-01T00:00:00Z&date_to=2026-11-30T00:00:00Z"
)

// write makes round n's acknowledged writes of every kind: contact events
// (counters and event ids), a fiscal upload (its buyer notice is a job), a
// compatibility copy (a job) and a notification to an application (a job).
func (r *killRound) write(t *testing.T, p *embeddedProcess) {
	t.Helper()
	var evs []any
	for j := 0; j < killEvents; j++ {
		evs = append(evs, map[string]any{"id": fmt.Sprintf("k%d-%d", r.n, j), "item_id": "MLA1100", "type": "question",
			"date": fmt.Sprintf("2026-11-%02dT%02d:00:00Z", 1+r.n%28, j%24)})
	}
	r.events = map[string]any{"events": evs}
	if st, b := p.do(t, "POST", "/sandbox/contact_events", r.events); st != 200 || !strings.Contains(b, fmt.Sprintf(`"accepted":%d`, killEvents)) {
		t.Fatalf("round %d: events: %d %s", r.n, st, b)
	}
	contentType, body := pdfForm(e2ePDF)
	r.pack = 5000 + r.n
	if st, b := p.call(t, "POST", fmt.Sprintf("/packs/%d/fiscal_documents", r.pack), contentType, body.Bytes(),
		"Authorization", "Bearer APP_USR-seller"); st != 201 {
		t.Fatalf("round %d: upload: %d %s", r.n, st, b)
	}
	r.copyTo = fmt.Sprint("MLA", 3000+r.n)
	if st, b := p.as(t, "APP_USR-seller", "POST", "/items/"+r.copyTo+"/compatibilities",
		map[string]any{"item_to_copy": map[string]any{"item_id": "MLA1100"}}); st != 200 {
		t.Fatalf("round %d: copy: %d %s", r.n, st, b)
	}
	st, b := p.do(t, "POST", "/sandbox/notifications", map[string]any{"app_id": 789, "topic": "items",
		"resource": "/items/" + r.copyTo, "user_id": 123})
	var n struct {
		ID string `json:"_id"`
	}
	if st != 202 || json.Unmarshal([]byte(b), &n) != nil || n.ID == "" {
		t.Fatalf("round %d: notification: %d %s", r.n, st, b)
	}
	r.notification = n.ID
}

// check finds every write of round r after the restart: the counters' total
// exact and its batch, sent again as a client retries it, counted as
// duplicates; its jobs done (the buyer's notice in the feed, the copy, the
// post to the callback), whether they ran before the kill or after.
func (r *killRound) check(t *testing.T, p *embeddedProcess, cb *callbackServer, copies int) {
	t.Helper()
	want := fmt.Sprintf(`"total":%d`, killEvents*r.n)
	if st, b := p.as(t, "APP_USR-seller", "GET", killTotalPath, nil); st != 200 || !strings.Contains(b, want) {
		t.Fatalf("round %d: questions total after the restart: %d %s, want %s", r.n, st, b, want)
	}
	if st, b := p.do(t, "POST", "/sandbox/contact_events", r.events); st != 200 ||
		!strings.Contains(b, fmt.Sprintf(`"duplicates":%d`, killEvents)) || !strings.Contains(b, `"accepted":0`) {
		t.Fatalf("round %d: the batch sent again after the restart: %d %s", r.n, st, b)
	}
	if _, b := p.as(t, "APP_USR-seller", "GET", killTotalPath, nil); !strings.Contains(b, want) {
		t.Fatalf("round %d: questions total after the batch came again: %s, want %s", r.n, b, want)
	}
	var feed, copied string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, feed = p.as(t, "APP_USR-buyer", "GET", "/my/notifications?limit=50", nil)
		_, copied = p.as(t, "APP_USR-seller", "GET", "/items/"+r.copyTo+"/compatibilities", nil)
		noticed := strings.Count(feed, fmt.Sprintf(`"pack_id":%d`, r.pack))
		done := strings.Contains(copied, fmt.Sprintf(`"catalog_compatibilities_count":%d`, copies))
		if noticed == 1 && done && cb.received(r.notification) {
			return
		}
		if noticed > 1 || time.Now().After(deadline) {
			t.Fatalf("round %d after the restart: %d notices of pack %d in the feed %s; copy onto %s: %s; notification %s posted: %v\n%s",
				r.n, noticed, r.pack, feed, r.copyTo, copied, r.notification, cb.received(r.notification), p.logs)
		}
	}
}

// TestEmbeddedKillKeepsAcknowledgedWrites: `feria all` in the embedded mode
// is killed (SIGKILL) right after acknowledged writes of every kind, then
// started again on the same DATA_DIR, 20 times in a row; each start finds
// everything the killed run acknowledged. The in-process Redis holds the
// counters, the event ids and the queued jobs: its command log is on disk
// before any answer leaves. A job the killed run was still running is
// handed back at start (WORKER_RETRY_DELAY shortens the wait before its
// retry, as in the other kill tests).
func TestEmbeddedKillKeepsAcknowledgedWrites(t *testing.T) {
	t.Parallel()
	const rounds = 20
	dir := t.TempDir()
	cb := newCallbackServer(t)
	env := []string{"WORKER_RETRY_DELAY=1s", "WORKER_DELAYED_CHECK=200ms"}
	p := startEmbedded(t, dir, env...)
	copies := loadKillWorld(t, p, cb, rounds)
	var last *killRound
	for n := 1; n <= rounds; n++ {
		start := time.Now()
		if last != nil {
			p = startEmbedded(t, dir, env...)
			last.check(t, p, cb, copies)
		}
		last = &killRound{n: n}
		last.write(t, p)
		p.kill(t)
		t.Logf("round %d: %s", n, time.Since(start).Round(10*time.Millisecond))
	}
	p = startEmbedded(t, dir, env...)
	last.check(t, p, cb, copies)
	p.stop(t)
}
