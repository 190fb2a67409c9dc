package fsblob_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/adapters/blobstore/fsblob"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/ports/blobport/blobporttest"
)

func TestStore(t *testing.T) {
	blobporttest.TestStore(t, func(t testing.TB) blobport.Store {
		s, err := fsblob.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// The embedded mode relies on files outliving the process.
func TestSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := fsblob.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "fiscal/1/doc", strings.NewReader("kept"), 4, "application/pdf"); err != nil {
		t.Fatal(err)
	}
	// A temp file left by a crash (older than any running Put) and a trash
	// directory of an interrupted Reset.
	stale := filepath.Join(dir, "tmp", "put-crashed")
	if err := os.WriteFile(stale, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(stale, past, past); err != nil {
		t.Fatal(err)
	}
	trash := filepath.Join(dir, "tmp", "deleted-x")
	if err := os.MkdirAll(trash, 0o750); err != nil {
		t.Fatal(err)
	}

	s2, err := fsblob.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	o, err := s2.Get(ctx, "fiscal/1/doc")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	b, _ := io.ReadAll(o)
	if string(b) != "kept" || o.ContentType != "application/pdf" {
		t.Errorf("after reopen: %q %q", b, o.ContentType)
	}
	for _, p := range []string{stale, trash} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s not cleaned up on open: %v", p, err)
		}
	}
}

func TestPingUnavailable(t *testing.T) {
	dir := t.TempDir()
	s, err := fsblob.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A volume that went away.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(context.Background()); !errors.Is(err, blobport.ErrUnavailable) {
		t.Fatalf("Ping on a removed root = %v, want ErrUnavailable", err)
	}
}
