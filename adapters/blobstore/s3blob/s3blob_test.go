package s3blob_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/adapters/blobstore/s3blob"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/ports/blobport/blobporttest"
	"github.com/feria/feria/test/testenv"
)

func newStore(t testing.TB) *s3blob.Store {
	t.Helper()
	env := testenv.S3(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := s3blob.New(ctx, s3blob.Config{
		Endpoint:  env.Endpoint,
		AccessKey: env.AccessKey,
		SecretKey: env.SecretKey,
		UseSSL:    env.UseSSL,
		Bucket:    testenv.S3Bucket(t),
	})
	if err != nil {
		t.Fatalf("s3blob.New: %v", err)
	}
	return s
}

func TestStore(t *testing.T) {
	blobporttest.TestStore(t, func(t testing.TB) blobport.Store { return newStore(t) })
}

// New on an existing bucket must keep its objects: every restart calls it.
func TestNewKeepsBucket(t *testing.T) {
	env := testenv.S3(t)
	cfg := s3blob.Config{Endpoint: env.Endpoint, AccessKey: env.AccessKey, SecretKey: env.SecretKey,
		UseSSL: env.UseSSL, Bucket: testenv.S3Bucket(t)}
	ctx := context.Background()
	s, err := s3blob.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "kept", strings.NewReader("x"), 1, ""); err != nil {
		t.Fatal(err)
	}
	s2, err := s3blob.New(ctx, cfg)
	if err != nil {
		t.Fatalf("New on an existing bucket: %v", err)
	}
	o, err := s2.Get(ctx, "kept")
	if err != nil {
		t.Fatalf("Get after New: %v", err)
	}
	o.Close()
}

func TestBadCredentials(t *testing.T) {
	env := testenv.S3(t)
	_, err := s3blob.New(context.Background(), s3blob.Config{Endpoint: env.Endpoint, AccessKey: env.AccessKey,
		SecretKey: "wrong-secret", UseSSL: env.UseSSL, Bucket: testenv.S3Bucket(t)})
	if err == nil {
		t.Fatal("New with a wrong secret succeeded")
	}
	// Retrying will not fix credentials, so this must not read as an outage.
	if errors.Is(err, blobport.ErrUnavailable) {
		t.Errorf("wrong secret reported as unavailable: %v", err)
	}
}

func TestConfigStringMasksSecret(t *testing.T) {
	s := s3blob.Config{Endpoint: "minio:9000", AccessKey: "ak", SecretKey: "very-secret", Bucket: "b"}.String()
	if strings.Contains(s, "very-secret") {
		t.Errorf("Config.String() shows the secret: %s", s)
	}
}

func TestBadBucketName(t *testing.T) {
	for _, b := range []string{"", "ab", "Upper", "under_score", "-dash", strings.Repeat("a", 64)} {
		if _, err := s3blob.New(context.Background(), s3blob.Config{Endpoint: "127.0.0.1:1", Bucket: b}); err == nil {
			t.Errorf("New with bucket %q succeeded", b)
		}
	}
}
