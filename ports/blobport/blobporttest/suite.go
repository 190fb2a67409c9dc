package blobporttest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/blobport"
)

// TestStore is the contract of blobport.Store. newStore must return an empty
// store of the test's own (a fresh directory, bucket, ...); the subtests run
// in parallel, each with its own store.
func TestStore(t *testing.T, newStore func(t testing.TB) blobport.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s blobport.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"DefaultContentType", testDefaultContentType},
		{"UnknownSize", testUnknownSize},
		{"Empty", testEmpty},
		{"Overwrite", testOverwrite},
		{"GetMissing", testGetMissing},
		{"KeysAreNotDirectories", testKeysAreNotDirectories},
		{"Delete", testDelete},
		{"Reset", testReset},
		{"List", testList},
		{"BadKeys", testBadKeys},
		{"Large", testLarge},
		{"ConcurrentPuts", testConcurrentPuts},
		{"ConcurrentOverwrite", testConcurrentOverwrite},
		{"Canceled", testCanceled},
		{"PingAndBackend", testPingAndBackend},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// ctx bounds each subtest so that a hung backend fails it instead of the run.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func put(t *testing.T, s blobport.Store, key, data, contentType string) {
	t.Helper()
	if err := s.Put(ctx(t), key, strings.NewReader(data), int64(len(data)), contentType); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

// get reads the whole object and checks the size Get announced against it.
func get(t *testing.T, s blobport.Store, key string) (data, contentType string) {
	t.Helper()
	data, contentType, err := read(ctx(t), s, key)
	if err != nil {
		t.Fatal(err)
	}
	return data, contentType
}

// read is get for goroutines, which must not call t.Fatal.
func read(ctx context.Context, s blobport.Store, key string) (data, contentType string, err error) {
	o, err := s.Get(ctx, key)
	if err != nil {
		return "", "", fmt.Errorf("Get(%q): %w", key, err)
	}
	defer o.Close()
	b, err := io.ReadAll(o)
	if err != nil {
		return "", "", fmt.Errorf("Get(%q): read: %w", key, err)
	}
	if o.Size != int64(len(b)) {
		return "", "", fmt.Errorf("Get(%q).Size = %d, read %d bytes", key, o.Size, len(b))
	}
	return string(b), o.ContentType, nil
}

func wantGot(t *testing.T, s blobport.Store, key, data, contentType string) {
	t.Helper()
	gotData, gotType := get(t, s, key)
	if gotData != data {
		t.Errorf("Get(%q) data = %q, want %q", key, gotData, data)
	}
	if gotType != contentType {
		t.Errorf("Get(%q).ContentType = %q, want %q", key, gotType, contentType)
	}
}

func wantNotFound(t *testing.T, s blobport.Store, key string) {
	t.Helper()
	o, err := s.Get(ctx(t), key)
	if err == nil {
		o.Close()
		t.Fatalf("Get(%q) = object, want ErrNotFound", key)
	}
	if !errors.Is(err, blobport.ErrNotFound) {
		t.Fatalf("Get(%q) error = %v, want errors.Is ErrNotFound", key, err)
	}
	if k := kernel.KindOf(err); k != kernel.NotExist {
		t.Errorf("Get(%q) error kind = %v, want %v", key, k, kernel.NotExist)
	}
}

func testRoundTrip(t *testing.T, s blobport.Store) {
	const key = "fiscal/2000001234/0f8fad5b-d9cb-469f-a165-70867728950e"
	put(t, s, key, "%PDF-1.7 invoice", "application/pdf")
	wantGot(t, s, key, "%PDF-1.7 invoice", "application/pdf")
}

func testDefaultContentType(t *testing.T, s blobport.Store) {
	put(t, s, "raw", "bytes", "")
	wantGot(t, s, "raw", "bytes", blobport.DefaultContentType)
}

func testUnknownSize(t *testing.T, s blobport.Store) {
	// A reader that is not a *strings.Reader, so no adapter can find the size.
	r := io.MultiReader(strings.NewReader("no "), strings.NewReader("length"))
	if err := s.Put(ctx(t), "stream", r, -1, "text/plain"); err != nil {
		t.Fatalf("Put(size -1): %v", err)
	}
	wantGot(t, s, "stream", "no length", "text/plain")
}

func testEmpty(t *testing.T, s blobport.Store) {
	put(t, s, "empty", "", "text/plain")
	wantGot(t, s, "empty", "", "text/plain")
}

func testOverwrite(t *testing.T, s blobport.Store) {
	put(t, s, "labels/1", "first version, the longer one", "text/plain")
	put(t, s, "labels/1", "second", "application/json")
	wantGot(t, s, "labels/1", "second", "application/json")
}

func testGetMissing(t *testing.T, s blobport.Store) {
	wantNotFound(t, s, "fiscal/missing")
	put(t, s, "fiscal/present", "x", "text/plain")
	wantNotFound(t, s, "fiscal/present/child")
	wantNotFound(t, s, "fiscal")
}

// Keys name objects, not directories: a store built on a filesystem must not
// confuse "a" with a directory holding "a/b".
func testKeysAreNotDirectories(t *testing.T, s blobport.Store) {
	put(t, s, "a", "file a", "text/plain")
	put(t, s, "a/b", "file a/b", "text/plain")
	put(t, s, "c/d", "file c/d", "text/plain")
	put(t, s, "c", "file c", "text/plain")
	wantGot(t, s, "a", "file a", "text/plain")
	wantGot(t, s, "a/b", "file a/b", "text/plain")
	wantGot(t, s, "c", "file c", "text/plain")
	wantGot(t, s, "c/d", "file c/d", "text/plain")
	if err := s.Delete(ctx(t), "a"); err != nil {
		t.Fatalf("Delete(a): %v", err)
	}
	wantNotFound(t, s, "a")
	wantGot(t, s, "a/b", "file a/b", "text/plain")
}

func testDelete(t *testing.T, s blobport.Store) {
	put(t, s, "fiscal/1/x", "x", "text/plain")
	put(t, s, "fiscal/1/y", "y", "text/plain")
	for i := range 2 { // the second time the key is already gone
		if err := s.Delete(ctx(t), "fiscal/1/x"); err != nil {
			t.Fatalf("Delete #%d: %v", i+1, err)
		}
	}
	wantNotFound(t, s, "fiscal/1/x")
	wantGot(t, s, "fiscal/1/y", "y", "text/plain")
	if err := s.Delete(ctx(t), "never/stored"); err != nil {
		t.Errorf("Delete(never stored) = %v, want nil", err)
	}
}

func testReset(t *testing.T, s blobport.Store) {
	if err := s.Reset(ctx(t)); err != nil {
		t.Fatalf("Reset on an empty store: %v", err)
	}
	keys := []string{"top", "fiscal/1/a", "fiscal/1/b", "fiscal/2/a", "labels/deep/er/still"}
	for _, k := range keys {
		put(t, s, k, k, "text/plain")
	}
	if err := s.Reset(ctx(t)); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	for _, k := range keys {
		wantNotFound(t, s, k)
	}
	// The store stays usable: the sandbox keeps running after a reset.
	put(t, s, "fiscal/1/a", "again", "text/plain")
	wantGot(t, s, "fiscal/1/a", "again", "text/plain")
}

func testList(t *testing.T, s blobport.Store) {
	// S3 keeps modification times to the second.
	before := time.Now().Add(-time.Second).Truncate(time.Second)
	keys := []string{"fiscal/1/a", "fiscal/1/b", "fiscal/2/a", "fiscalx", "labels/1/a"}
	for _, k := range keys {
		put(t, s, k, k, "text/plain")
	}
	after := time.Now().Add(time.Second)
	got := map[string]bool{}
	err := s.List(ctx(t), "fiscal/", func(in blobport.Info) error {
		if in.Modified.Before(before) || in.Modified.After(after) {
			t.Errorf("%s modified %v, not within %v..%v", in.Key, in.Modified, before, after)
		}
		if in.Size != int64(len(in.Key)) { // each object holds its key
			t.Errorf("%s: size %d, want %d", in.Key, in.Size, len(in.Key))
		}
		got[in.Key] = true
		return nil
	})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(got) != 3 || !got["fiscal/1/a"] || !got["fiscal/1/b"] || !got["fiscal/2/a"] {
		t.Fatalf("List(fiscal/) = %v; want the three fiscal/ keys", got)
	}
	stop := errors.New("stop")
	n := 0
	if err := s.List(ctx(t), "", func(blobport.Info) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Fatalf("List stopped by fn: %v after %d calls; want fn's error after 1", err, n)
	}
}

func testBadKeys(t *testing.T, s blobport.Store) {
	bad := []string{
		"", "/", "/fiscal/1", "fiscal/1/", "fiscal//1", "..", "../x", "fiscal/../x",
		"fiscal/..", ".", "./x", "fiscal/./x", `fiscal\1`, "fiscal/\x00", "fiscal/\n",
		"fiscal/\xff", strings.Repeat("k", blobport.MaxKeyLen+1),
		"fiscal/" + strings.Repeat("k", blobport.MaxSegmentLen+1),
		strings.Repeat(strings.Repeat("k", blobport.MaxSegmentLen)+"/", 5) + "k",
	}
	for _, key := range bad {
		check := func(op string, err error) {
			t.Helper()
			if !errors.Is(err, blobport.ErrInvalidKey) || kernel.KindOf(err) != kernel.Invalid {
				t.Errorf("%s(%q) error = %v, want ErrInvalidKey of kind invalid", op, key, err)
			}
		}
		check("Put", s.Put(ctx(t), key, strings.NewReader("x"), 1, "text/plain"))
		o, err := s.Get(ctx(t), key)
		if err == nil {
			o.Close()
		}
		check("Get", err)
		check("Delete", s.Delete(ctx(t), key))
	}
	// Odd but valid keys must still work.
	seg := strings.Repeat("k", blobport.MaxSegmentLen)
	longest := seg + "/" + seg + "/" + seg + "/" + strings.Repeat("l", 200) + "/"
	longest += strings.Repeat("m", blobport.MaxKeyLen-len(longest))
	for _, key := range []string{"a..b/c", ".hidden/x", "x/...", "ç/ñ/😀", "with space/and+plus", longest} {
		put(t, s, key, key, "text/plain")
		wantGot(t, s, key, key, "text/plain")
	}
}

// testLarge streams an object bigger than any single buffer an adapter might
// use, from a reader that can be neither seeked nor sized.
func testLarge(t *testing.T, s blobport.Store) {
	const size = 1536 * 1024
	src := func() io.Reader { return io.LimitReader(rand.NewChaCha8([32]byte{7}), size) }
	want := sha256.New()
	io.Copy(want, src()) //nolint:errcheck // reading from memory
	if err := s.Put(ctx(t), "large/scan.pdf", struct{ io.Reader }{src()}, size, "application/pdf"); err != nil {
		t.Fatalf("Put(large): %v", err)
	}
	o, err := s.Get(ctx(t), "large/scan.pdf")
	if err != nil {
		t.Fatalf("Get(large): %v", err)
	}
	defer o.Close()
	if o.Size != size || o.ContentType != "application/pdf" {
		t.Errorf("Get(large) = size %d type %q, want %d application/pdf", o.Size, o.ContentType, size)
	}
	got := sha256.New()
	n, err := io.Copy(got, o)
	if err != nil {
		t.Fatalf("read large: %v", err)
	}
	if n != size || !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		t.Errorf("read %d bytes with sha256 %x, want %d bytes with %x", n, got.Sum(nil), size, want.Sum(nil))
	}
}

func testConcurrentPuts(t *testing.T, s blobport.Store) {
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			data := strings.Repeat(fmt.Sprint(i), 1000+i)
			errs <- s.Put(ctx(t), fmt.Sprintf("fiscal/%d/doc", i), strings.NewReader(data), int64(len(data)), "text/plain")
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent Put: %v", err)
		}
	}
	for i := range n {
		wantGot(t, s, fmt.Sprintf("fiscal/%d/doc", i), strings.Repeat(fmt.Sprint(i), 1000+i), "text/plain")
	}
}

// testConcurrentOverwrite checks that a reader sees one whole version, never a
// mix or a half-written file, while writers replace the object.
func testConcurrentOverwrite(t *testing.T, s blobport.Store) {
	versions := map[string]string{}
	for _, c := range "abcd" {
		versions[strings.Repeat(string(c), 64*1024)] = "text/" + string(c)
	}
	for data, typ := range versions {
		put(t, s, "hot", data, typ)
		break
	}
	var wg sync.WaitGroup
	for data, typ := range versions {
		wg.Go(func() {
			for range 3 {
				if err := s.Put(ctx(t), "hot", strings.NewReader(data), int64(len(data)), typ); err != nil {
					t.Errorf("Put: %v", err)
					return
				}
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for range 5 {
				data, typ, err := read(ctx(t), s, "hot")
				if err != nil {
					t.Error(err)
				} else if want, ok := versions[data]; !ok {
					t.Errorf("Get(hot) read %d bytes that are no version put", len(data))
				} else if typ != want {
					t.Errorf("Get(hot) content type %q for the data of %q", typ, want)
				}
			}
		})
	}
	wg.Wait()
}

func testCanceled(t *testing.T, s blobport.Store) {
	c, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Put(c, "canceled", strings.NewReader("x"), 1, "text/plain"); err == nil {
		t.Errorf("Put with a canceled context succeeded")
	}
	wantNotFound(t, s, "canceled")
}

func testPingAndBackend(t *testing.T, s blobport.Store) {
	if err := s.Ping(ctx(t)); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if s.Backend() == "" {
		t.Errorf("Backend() is empty")
	}
}
