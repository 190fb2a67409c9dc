package webhooksapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
)

// received is one POST a receiver got.
type received struct {
	Body   string
	Header http.Header
	At     time.Time
}

// receiver is an integrator's callback: a real HTTP server that records
// every POST and answers what answer says (200 at once when nil).
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []received
	answer func(n int, body map[string]any) (status int, wait time.Duration)
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{Body: string(b), Header: req.Header.Clone(), At: time.Now()})
		n, answer := len(r.got), r.answer
		r.mu.Unlock()
		status, wait := 200, time.Duration(0)
		if answer != nil {
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			status, wait = answer(n, m)
		}
		if wait > 0 {
			select {
			case <-time.After(wait):
			case <-req.Context().Done():
			}
		}
		w.Header().Set("X-Receiver", fmt.Sprint(n))
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"seen":%d}`, n)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) setAnswer(f func(n int, body map[string]any) (int, time.Duration)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answer = f
}

func (r *receiver) posts() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// bodies are the posts' bodies decoded, in arrival order.
func (r *receiver) bodies(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, p := range r.posts() {
		var m map[string]any
		if err := json.Unmarshal([]byte(p.Body), &m); err != nil {
			t.Fatalf("posted body is not JSON: %s", p.Body)
		}
		out = append(out, m)
	}
	return out
}

// notification is one entry of GET /sandbox/notifications.
type notification struct {
	ID            string     `json:"_id"`
	Resource      string     `json:"resource"`
	UserID        int64      `json:"user_id"`
	Topic         string     `json:"topic"`
	Actions       []string   `json:"actions"`
	ApplicationID int64      `json:"application_id"`
	Attempts      int        `json:"attempts"`
	Sent          *string    `json:"sent"`
	Received      string     `json:"received"`
	State         string     `json:"state"`
	Deliveries    []delivery `json:"deliveries"`
}

type delivery struct {
	Attempt    int     `json:"attempt"`
	At         string  `json:"at"`
	HTTPCode   *int    `json:"http_code"`
	DurationMS int64   `json:"duration_ms"`
	Error      *string `json:"error"`
}

func notifications(t *testing.T, a *apptest.App, query string) []notification {
	t.Helper()
	var out struct {
		Notifications []notification `json:"notifications"`
	}
	r := a.Sandbox("GET", "/notifications"+query, nil)
	r.HasStatus(t, 200)
	r.JSON(t, &out)
	return out.Notifications
}

// waitFor polls the sandbox's notifications until done says they are what
// the test waits for.
func waitFor(t *testing.T, a *apptest.App, query string, within time.Duration, done func([]notification) bool) []notification {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ns := notifications(t, a, query)
		if done(ns) {
			return ns
		}
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(ns, "", " ")
			t.Fatalf("notifications%s after %s:\n%s", query, within, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// all reports whether every notification is in state and there are n.
func all(n int, state string) func([]notification) bool {
	return func(ns []notification) bool {
		if len(ns) != n {
			return false
		}
		for _, x := range ns {
			if x.State != state {
				return false
			}
		}
		return true
	}
}

// application is the body of an application of the tests.
func application(callback string, owner int64, topics []string, users []int64, delays []int64, ack int) string {
	b, _ := json.Marshal(map[string]any{"name": "it", "owner_id": owner, "client_secret": "s", "callback_url": callback,
		"topics": topics, "users": users, "ack_timeout_ms": ack, "retry_delays_ms": delays})
	return string(b)
}

var fast = []int64{0, 0, 0, 0, 0, 0, 0}

// noSecrets fails when a post carried anything but the notification's own
// headers: no sandbox key, no token, no cookie.
func noSecrets(t *testing.T, r *receiver) {
	t.Helper()
	for _, p := range r.posts() {
		for k := range p.Header {
			switch k {
			case "Content-Type", "User-Agent", "Content-Length":
			default:
				t.Errorf("a post carried header %s: %v", k, p.Header[k])
			}
		}
		if strings.Contains(p.Body, apptest.SandboxKey) || strings.Contains(p.Body, "APP_USR-") {
			t.Errorf("a post carried a secret: %s", p.Body)
		}
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
