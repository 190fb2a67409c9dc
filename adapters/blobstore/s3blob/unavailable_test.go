package s3blob

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/blobport"
)

// These tests need no S3 server: they check that an outage reaches callers
// as blobport.ErrUnavailable, which readiness and the HTTP layer (503) rely
// on. They live inside the package to build a Store without New, which would
// already fail on the missing server.

// down is an address where nothing listens.
const down = "127.0.0.1:1"

func storeAt(t *testing.T, endpoint string) *Store {
	t.Helper()
	s, err := open(Config{Endpoint: endpoint, AccessKey: "k", SecretKey: "secret", Bucket: "feria-down",
		DialTimeout: time.Second, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantUnavailable(t *testing.T, op string, err error) {
	t.Helper()
	if !errors.Is(err, blobport.ErrUnavailable) || kernel.KindOf(err) != kernel.Unavailable {
		t.Errorf("%s = %v, want errors.Is ErrUnavailable of kind unavailable", op, err)
	}
}

func TestConnectionRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := New(ctx, Config{Endpoint: down, AccessKey: "k", SecretKey: "secret", Bucket: "feria-down", MaxRetries: 1})
	wantUnavailable(t, "New", err)

	s := storeAt(t, down)
	wantUnavailable(t, "Put", s.Put(ctx, "fiscal/1/doc", strings.NewReader("x"), 1, "text/plain"))
	_, err = s.Get(ctx, "fiscal/1/doc")
	wantUnavailable(t, "Get", err)
	wantUnavailable(t, "Delete", s.Delete(ctx, "fiscal/1/doc"))
	wantUnavailable(t, "Reset", s.Reset(ctx))
	wantUnavailable(t, "Ping", s.Ping(ctx))
}

// With minio-go's default retries a refused connection must still end, and
// as unavailable, within the caller's deadline.
func TestConnectionRefusedDefaultRetries(t *testing.T) {
	s, err := open(Config{Endpoint: down, Bucket: "feria-down"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	wantUnavailable(t, "Put", s.Put(ctx, "k", strings.NewReader("x"), 1, ""))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Put took %v despite a 2 s deadline", d)
	}
}

// A server that accepts connections but never answers (hung, or a black-holed
// network) must be reported as unavailable once the caller's deadline passes.
func TestNoAnswer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	s := storeAt(t, l.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	wantUnavailable(t, "Put", s.Put(ctx, "k", strings.NewReader("x"), 1, ""))
}

func TestTranslateKeepsCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := storeAt(t, down).Put(ctx, "k", strings.NewReader("x"), 1, "")
	if !errors.Is(err, context.Canceled) || errors.Is(err, blobport.ErrUnavailable) {
		t.Errorf("Put with a canceled context = %v, want context.Canceled and not ErrUnavailable", err)
	}
}

// A frozen server (it accepts connections and never answers, as a
// SIGSTOPped MinIO does) must not hold uploads and downloads: a bound on
// dialing alone, with minio-go's 10 retries, would wait 15 s and more.
// Every operation is bounded, retries included, with no deadline from the
// caller.
func TestFrozenServerIsBounded(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	const bound = 400 * time.Millisecond
	s, err := open(Config{Endpoint: l.Addr().String(), AccessKey: "k", SecretKey: "secret", Bucket: "feria-frozen", OpTimeout: bound})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ops := map[string]func() error{
		"Put":    func() error { return s.Put(ctx, "fiscal/1/doc", strings.NewReader("x"), 1, "") },
		"Get":    func() error { _, err := s.Get(ctx, "fiscal/1/doc"); return err },
		"Delete": func() error { return s.Delete(ctx, "fiscal/1/doc") },
		"Ping":   func() error { return s.Ping(ctx) },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			wantUnavailable(t, name, op())
			if d := time.Since(start); d > bound+time.Second {
				t.Errorf("%s took %v; the bound is %v", name, d, bound)
			}
		})
	}
}
