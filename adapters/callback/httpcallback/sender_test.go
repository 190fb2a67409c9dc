package httpcallback_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feria/feria/adapters/callback/httpcallback"
	"github.com/feria/feria/core/webhooks"
)

func request(url string) webhooks.Request {
	return webhooks.Request{URL: url, Headers: webhooks.Headers(), Data: `{"_id":"n1","attempts":1}`}
}

// The receiver gets exactly the request: POST, the body, and only the
// notification's headers (no key, no token, no cookie, no Accept-Encoding).
func TestPostsExactlyTheRequest(t *testing.T) {
	var got *http.Request
	var body []byte
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, body = r, must(io.ReadAll(r.Body))
		w.Header().Set("X-Receiver", "yes")
		w.WriteHeader(200)
		io.WriteString(w, "ok")
	}))
	defer rx.Close()
	x := httpcallback.New(true).Post(context.Background(), request(rx.URL+"/notifications?x=1"), time.Second)
	if x.Err != "" || x.Status != 200 || x.Body != "ok" || x.Headers["X-Receiver"] != "yes" || x.Duration <= 0 || x.Duration > time.Second {
		t.Fatalf("exchange %+v", x)
	}
	if got.Method != "POST" || got.URL.RequestURI() != "/notifications?x=1" || string(body) != `{"_id":"n1","attempts":1}` {
		t.Fatalf("request %s %s %s", got.Method, got.URL, body)
	}
	want := map[string]string{"Content-Type": "application/json", "User-Agent": "feria-webhooks/1", "Content-Length": "25"}
	if len(got.Header) != len(want) {
		t.Errorf("headers %v, want only %v", got.Header, want)
	}
	for k, v := range want {
		if got.Header.Get(k) != v {
			t.Errorf("header %s: %q, want %q", k, got.Header.Get(k), v)
		}
	}
}

func TestNeverFollowsARedirect(t *testing.T) {
	var followed atomic.Bool
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { followed.Store(true) }))
	defer target.Close()
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	defer rx.Close()
	x := httpcallback.New(true).Post(context.Background(), request(rx.URL), time.Second)
	if x.Status != 307 || x.Headers["Location"] != target.URL || followed.Load() {
		t.Fatalf("redirect: %+v, followed %v", x, followed.Load())
	}
}

func TestBoundedByTheTimeout(t *testing.T) {
	release := make(chan struct{})
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer rx.Close()
	defer close(release)
	start := time.Now()
	x := httpcallback.New(true).Post(context.Background(), request(rx.URL), 150*time.Millisecond)
	if x.Status != 0 || x.Err != "timeout: no answer within 150 ms" || time.Since(start) > 2*time.Second || x.Duration < 150*time.Millisecond {
		t.Fatalf("silent receiver: %+v after %s", x, time.Since(start))
	}
	// A body that never ends is cut at the same deadline.
	rx2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(10 * time.Millisecond)
		}
	}))
	defer rx2.Close()
	start = time.Now()
	x = httpcallback.New(true).Post(context.Background(), request(rx2.URL), 200*time.Millisecond)
	if x.Status != 200 || time.Since(start) > 2*time.Second {
		t.Fatalf("endless body: %+v after %s", x, time.Since(start))
	}
}

func TestReadsAtMostTheCap(t *testing.T) {
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		io.WriteString(w, strings.Repeat("y", 10*webhooks.MaxResponseBody))
	}))
	defer rx.Close()
	x := httpcallback.New(true).Post(context.Background(), request(rx.URL), time.Second)
	if x.Status != 500 || len(x.Body) != webhooks.MaxResponseBody {
		t.Fatalf("huge body: status %d, %d bytes kept", x.Status, len(x.Body))
	}
}

func TestNothingListening(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	x := httpcallback.New(true).Post(context.Background(), request("http://"+addr+"/cb"), time.Second)
	if x.Status != 0 || !strings.Contains(x.Err, "connection refused") || strings.Contains(x.Err, "/cb") {
		t.Fatalf("refused: %+v", x)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A callback never reaches a link-local or metadata address, and reaches a
// loopback or private one only when the operator allows it: the address is
// checked as the connection is dialled, after the host name is resolved, so
// that a name of a public look ("localhost" here) gets no further.
func TestRefusedAddresses(t *testing.T) {
	var hits atomic.Int32
	rx := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer rx.Close()
	_, port, _ := net.SplitHostPort(rx.Listener.Addr().String())
	linkLocal := "is link-local, a metadata service's or not a host's; callbacks never reach it"
	private := "is loopback or private; this instance does not call such addresses (CALLBACK_ALLOW_PRIVATE)"
	for _, tc := range []struct {
		url          string
		allowPrivate bool
		want         string
	}{
		{"http://169.254.169.254/latest/meta-data/", true, "the callback's address 169.254.169.254 " + linkLocal},
		{"http://[fe80::1]:8080/cb", true, "the callback's address fe80::1 " + linkLocal},
		{"http://[::ffff:169.254.169.254]/cb", true, "the callback's address 169.254.169.254 " + linkLocal},
		{"http://0.0.0.0:" + port + "/cb", true, "the callback's address 0.0.0.0 " + linkLocal},
		{"http://127.0.0.1:" + port + "/cb", false, "the callback's address 127.0.0.1 " + private},
		{"http://localhost:" + port + "/cb", false, " " + private},
		{"http://10.1.2.3/cb", false, "the callback's address 10.1.2.3 " + private},
	} {
		x := httpcallback.New(tc.allowPrivate).Post(context.Background(), request(tc.url), time.Second)
		if x.Status != 0 || !strings.HasSuffix(x.Err, tc.want) || x.Duration > 500*time.Millisecond {
			t.Errorf("%s: %+v, want %q", tc.url, x, tc.want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the receiver was reached %d times", n)
	}
	if x := httpcallback.New(true).Post(context.Background(), request(rx.URL), time.Second); x.Status != 200 || hits.Load() != 1 {
		t.Errorf("allowed loopback: %+v", x)
	}
}
