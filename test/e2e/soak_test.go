package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// soakDuration is how long TestSoak's clients run: 10 s in make test, where
// TestSoak is the longest e2e test and so ends the run (the worker kill, the
// new worker and the Redis restart still fall within it), SOAK_DURATION (a
// duration) for make bench's long run.
func soakDuration(t *testing.T) time.Duration {
	if s := os.Getenv("SOAK_DURATION"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			t.Fatalf("SOAK_DURATION: want a positive duration, got %q", s)
		}
		return d
	}
	return 10 * time.Second
}

// durableRedis is a redis-server of the test's own that keeps every
// acknowledged write (appendfsync always), which restart stops cleanly
// and starts again on the same port and files.
type durableRedis struct {
	t    *testing.T
	port int
	dir  string
	cmd  *exec.Cmd
}

func startDurableRedis(t *testing.T) *durableRedis {
	r := &durableRedis{t: t, port: freePort(t), dir: t.TempDir()}
	r.start()
	t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() }) //nolint:errcheck // may be stopped already
	return r
}

func (r *durableRedis) start() {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		r.t.Fatalf("redis-server is needed for this test: %v", err)
	}
	r.cmd = exec.Command(bin, "--port", fmt.Sprint(r.port), "--bind", "127.0.0.1", "--dir", r.dir, "--save", "",
		"--appendonly", "yes", "--appendfsync", "always")
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.port)})
	defer c.Close()
	for i := 0; i < 100 && c.Ping(context.Background()).Err() != nil; i++ {
		time.Sleep(50 * time.Millisecond)
	}
}

// restart stops the server as an operator does (SIGTERM) and starts it again.
func (r *durableRedis) restart() {
	r.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // waited for below
	r.cmd.Wait()                          //nolint:errcheck // stopped
	r.start()
}

func (r *durableRedis) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

// soakTally is what the clients saw and what they were told was done.
type soakTally struct {
	requests, server5xx, unavailable atomic.Int64
	mu                               sync.Mutex
	byStatus                         map[int]int    // answers of 500 and above, by status
	events                           map[string]int // acknowledged contact events by item/kind
	items                            []string       // items acknowledged by a fixtures load
	notices                          []string       // notifications acknowledged (202)
	uploads                          []soakUpload   // fiscal documents acknowledged (201)
	compats                          map[string]int // item -> its acknowledged compatibilities count (-1: MLA1100's, a copy)
	errors                           []string
}

// soakUpload is an acknowledged fiscal document: its pack and public id.
type soakUpload struct {
	pack int
	id   string
}

// processStats is a process's resident memory (kB) and open sockets.
func processStats(pid int) (rssKB, sockets int) {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:")), "%d", &rssKB) //nolint:errcheck // 0 if absent
		}
	}
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, "socket:") {
			sockets++
		}
	}
	return rssKB, sockets
}

// TestSoak runs 16 clients of mixed reads and writes (world loads, fiscal
// uploads, compatibility writes and reads, contact events, notifications to
// an application) against two `feria serve` and two `feria worker`
// processes on PostgreSQL and a redis-server of its own, for soakDuration, while one worker is killed and
// another started, and Redis restarts once: no answer is a 500, and a
// checker then finds every acknowledged write; the API processes' memory
// and sockets stay flat.
func TestSoak(t *testing.T) {
	t.Parallel() // mostly waits on processes
	rs := startDurableRedis(t)
	f := startFleet(t, rs.url())
	f.http = &http.Client{Timeout: 30 * time.Second}
	f.loadWorld()
	// The marketplace's rate limits (100 compatibility writes a minute) are
	// not what the soak measures: none.
	f.sandbox(0, "PUT", "/rate_limits", map[string]any{"rules": []any{}})
	tally := &soakTally{events: map[string]int{}, byStatus: map[int]int{}, compats: map[string]int{}}
	d := soakDuration(t)
	pid := f.apiCmds[0].Process.Pid
	rss0, sock0 := processStats(pid)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 16 {
		wg.Add(1)
		go func() { defer wg.Done(); soakClient(f, tally, c, stop) }()
	}
	time.Sleep(d / 4)
	f.workers[0].kill()
	time.Sleep(d / 6)
	f.startWorker(3)
	time.Sleep(d / 6)
	rs.restart()
	time.Sleep(d - d/4 - d/6 - d/6)
	close(stop)
	wg.Wait()
	rss1, sock1 := processStats(pid)
	for _, e := range tally.errors {
		t.Error(e)
	}
	checked := soakCheck(t, f, tally)
	t.Logf("soak figures (%s, 16 clients): %d requests, %d answers >= 500 %v, read back %s; API RSS %d kB -> %d kB, sockets %d -> %d",
		d, tally.requests.Load(), tally.server5xx.Load(), tally.byStatus, checked, rss0, rss1, sock0, sock1)
	if tally.server5xx.Load() != tally.unavailable.Load() {
		t.Errorf("%d answers were a 5xx other than 503", tally.server5xx.Load()-tally.unavailable.Load())
	}
	if rss1 > 2*rss0+64*1024 || sock1 > sock0+40 {
		t.Errorf("API process grew: RSS %d kB -> %d kB, sockets %d -> %d", rss0, rss1, sock0, sock1)
	}
}

// soakCall sends one request and counts its answer; it reports whether the
// answer was want.
func soakCall(f *fleet, tally *soakTally, api int, want int, method, path string, body any, header ...string) (bool, []byte) {
	var rd io.Reader
	ctype := "application/json"
	if raw, ok := body.(soakRaw); ok {
		rd, ctype = bytes.NewReader(raw.body), raw.ctype
	} else if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, f.apis[api%len(f.apis)]+path, rd)
	req.Header.Set("Content-Type", ctype)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	tally.requests.Add(1)
	res, err := f.http.Do(req)
	if err != nil {
		tally.mu.Lock()
		tally.errors = append(tally.errors, fmt.Sprintf("%s %s: %v", method, path, err))
		tally.mu.Unlock()
		return false, nil
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 500 {
		tally.server5xx.Add(1)
		tally.mu.Lock()
		tally.byStatus[res.StatusCode]++
		tally.mu.Unlock()
		if res.StatusCode == 503 {
			tally.unavailable.Add(1)
		} else {
			tally.mu.Lock()
			tally.errors = append(tally.errors, fmt.Sprintf("%s %s: %d %s", method, path, res.StatusCode, tail(b, 3)))
			tally.mu.Unlock()
		}
	} else if res.StatusCode != want {
		tally.mu.Lock()
		tally.errors = append(tally.errors, fmt.Sprintf("%s %s: %d %s, want %d", method, path, res.StatusCode, tail(b, 3), want))
		tally.mu.Unlock()
	}
	return res.StatusCode == want, b
}

// soakRaw is a request body sent as it is, with its content type.
type soakRaw struct {
	ctype string
	body  []byte
}

// soakPDF is a fiscal document upload's body and content type.
func soakPDF() soakRaw {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="fiscal_document"; filename="factura.pdf"`)
	h.Set("Content-Type", "application/pdf")
	pw, _ := w.CreatePart(h)
	pw.Write(e2ePDF) //nolint:errcheck // a buffer
	w.Close()
	return soakRaw{ctype: w.FormDataContentType(), body: body.Bytes()}
}

// soakWorld loads a world of an item and an order of it in a pack of its
// own, then uploads the pack's invoice (which notifies the buyer) and
// writes the item's compatibilities, in turn: products added (POST), a
// queued copy of MLA1100's (POST item_to_copy), a copy made at once (PUT).
func soakWorld(f *fleet, tally *soakTally, c, n int) {
	key := []string{"X-Sandbox-Key", fleetKey}
	seller := []string{"Authorization", "Bearer " + fleetSeller}
	id, pack := fmt.Sprintf("MLA%d", 7000000+c*10000+n), 5000000+c*10000+n
	body := map[string]any{"items": []any{map[string]any{"id": id, "site_id": "MLA", "seller_id": 123, "title": "Soak " + id,
		"category_id": "MLA1747", "price": 100, "available_quantity": 1}},
		"orders": []any{map[string]any{"id": 8000000 + c*10000 + n, "site_id": "MLA", "seller_id": 123, "buyer_id": 456, "status": "paid",
			"pack_id": pack, "items": []any{map[string]any{"item_id": id, "quantity": 1, "unit_price": 100}}}}}
	if ok, _ := soakCall(f, tally, c+n, 200, "POST", "/sandbox/fixtures", body, key...); !ok {
		return
	}
	tally.mu.Lock()
	tally.items = append(tally.items, id)
	tally.mu.Unlock()
	var up struct{ IDs []string }
	if ok, b := soakCall(f, tally, c+n+1, 201, "POST", fmt.Sprintf("/packs/%d/fiscal_documents", pack), soakPDF(), seller...); ok &&
		json.Unmarshal(b, &up) == nil && len(up.IDs) == 1 {
		tally.mu.Lock()
		tally.uploads = append(tally.uploads, soakUpload{pack: pack, id: up.IDs[0]})
		tally.mu.Unlock()
	}
	path, copyOf := "/items/"+id+"/compatibilities", map[string]any{"item_id": "MLA1100"}
	method, want, count := "POST", 200, 5
	req := any(map[string]any{"products": []any{map[string]any{"id": "MLA15197901"}, map[string]any{"id": "MLA15197902"},
		map[string]any{"id": "MLA15197903"}, map[string]any{"id": "MLA16000001"}, map[string]any{"id": "MLA16000002"}}})
	switch n / 4 % 3 {
	case 1:
		req, count = map[string]any{"item_to_copy": copyOf}, -1
	case 2:
		method, req, count = "PUT", map[string]any{"create": map[string]any{"item_to_copy": copyOf}}, -1
	}
	if ok, _ := soakCall(f, tally, c+n, want, method, path, req, seller...); ok {
		tally.mu.Lock()
		tally.compats[id] = count
		tally.mu.Unlock()
	}
}

// soakClient loops over its mix until stop: a world load (an item and an
// order of it, the pack's invoice, the item's compatibilities), a batch of contact events (sent again until acknowledged:
// their ids make a resend count once), a notification, and reads.
func soakClient(f *fleet, tally *soakTally, c int, stop chan struct{}) {
	key := []string{"X-Sandbox-Key", fleetKey}
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		api := c + n
		switch n % 4 {
		case 0:
			soakWorld(f, tally, c, n)
		case 1:
			var events []any
			for i := range 5 {
				events = append(events, map[string]any{"id": fmt.Sprintf("soak-%d-%d-%d", c, n, i), "item_id": "MLA1101", "type": "phone_view",
					"date": time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC).Add(time.Duration(c*100+i) * time.Minute).Format(time.RFC3339)})
			}
			for try := 0; try < 100; try++ {
				if ok, _ := soakCall(f, tally, api+try, 200, "POST", "/sandbox/contact_events", map[string]any{"events": events}, key...); ok {
					tally.mu.Lock()
					tally.events["MLA1101/phone_views"] += 5
					tally.mu.Unlock()
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
		case 2:
			var v struct {
				ID string `json:"_id"`
			}
			ok, b := soakCall(f, tally, api, 202, "POST", "/sandbox/notifications",
				map[string]any{"app_id": fleetApp, "topic": "questions", "resource": fmt.Sprintf("/questions/%d", c*10000+n), "user_id": 123}, key...)
			if ok && json.Unmarshal(b, &v) == nil {
				tally.mu.Lock()
				tally.notices = append(tally.notices, v.ID)
				tally.mu.Unlock()
			}
		case 3:
			soakCall(f, tally, api, 200, "GET", "/items/MLA1100", nil)
			soakCall(f, tally, api, 200, "GET", "/items/MLA1100/compatibilities", nil, "Authorization", "Bearer "+fleetSeller)
		}
	}
}

// soakRecovery bounds soakCheck's waits for the jobs: the killed worker's
// jobs are handed out again only once asynq's recoverer finds their lease
// expired (a 30 s lease, then 30 s of margin, constants of asynq v0.26) at
// its next round, once a minute on each worker process: up to about two
// minutes after the kill, which with make test's short soak falls after
// the clients have stopped.
const soakRecovery = 150 * time.Second

// soakCheck reads back everything the clients were told was done: every
// item and its order, the contact events' total, every fiscal document
// (its bytes) and its buyer's e-mail, every item's compatibilities (queued
// copies once made), and every notification at the application's
// callback. It returns what it read back, for the figures.
func soakCheck(t *testing.T, f *fleet, tally *soakTally) string {
	for i, id := range tally.items {
		f.json(i, 200, "GET", "/items/"+id, nil)
	}
	if got, want := f.total(0, "MLA1101", "phone_views"), tally.events["MLA1101/phone_views"]; got < want {
		t.Errorf("MLA1101 phone views: %d, want at least the %d acknowledged", got, want)
	}
	seller := []string{"Authorization", "Bearer " + fleetSeller}
	for i, u := range tally.uploads {
		if st, b := f.do(i, "GET", fmt.Sprintf("/packs/%d/fiscal_documents/%s", u.pack, u.id), nil, seller...); st != 200 || !bytes.Equal(b, e2ePDF) {
			t.Errorf("fiscal document %s of pack %d: %d %q, want 200 and the uploaded bytes", u.id, u.pack, st, tail(b, 3))
		}
	}
	source, copies := f.compatCount(0, "MLA1100"), 0
	for item, want := range tally.compats {
		if want < 0 {
			copies++
			continue
		}
		if got := f.compatCount(1, item); got != want {
			t.Errorf("%s: %d compatibilities, want the %d acknowledged", item, got, want)
		}
	}
	f.waitFor("every acknowledged copy made", soakRecovery, func() bool {
		for item, want := range tally.compats {
			if want < 0 && f.compatCount(0, item) != source {
				return false
			}
		}
		return true
	})
	f.waitFor("every acknowledged invoice's e-mail to its buyer", soakRecovery, func() bool {
		mailed := map[string]bool{}
		for _, m := range f.mail.Messages() {
			mailed[regexp.MustCompile(`pack \d+`).FindString(m.Raw)] = true
		}
		for _, u := range tally.uploads {
			if !mailed[fmt.Sprint("pack ", u.pack)] {
				return false
			}
		}
		return true
	})
	f.waitFor("every acknowledged notification at the callback", soakRecovery, func() bool {
		got := map[string]bool{}
		for _, n := range f.rx.received() {
			got[n.ID] = true
		}
		for _, id := range tally.notices {
			if !got[id] {
				return false
			}
		}
		return true
	})
	return fmt.Sprintf("%d items, %d events, %d fiscal documents and their e-mails, %d items' compatibilities (%d copies), %d notifications",
		len(tally.items), tally.events["MLA1101/phone_views"], len(tally.uploads), len(tally.compats), copies, len(tally.notices))
}
