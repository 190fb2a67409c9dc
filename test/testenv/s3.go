package testenv

import (
	"crypto/rand"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/ory/dockertest/v3"
)

// The credentials of deploy/scripts/minio.sh and of the dockertest container,
// so that TEST_S3_ENDPOINT alone is enough for the usual local server.
const (
	defaultS3AccessKey = "feria-test"
	defaultS3SecretKey = "feria-test-secret"
)

var s3Svc service

// S3Config is where the test S3 server is and how to sign in to it.
type S3Config struct {
	Endpoint  string // host:port, no scheme
	AccessKey string
	SecretKey string
	UseSSL    bool
}

// S3 returns the test S3 server: TEST_S3_ENDPOINT (with TEST_S3_ACCESS_KEY,
// TEST_S3_SECRET_KEY and TEST_S3_USE_SSL, defaulting to the credentials of
// deploy/scripts/minio.sh and plain HTTP), else a minio/minio container, else
// the test fails saying how to provide one.
func S3(t testing.TB) S3Config {
	t.Helper()
	const example = "127.0.0.1:9000, after 'bash deploy/scripts/minio.sh'"
	cfg := S3Config{
		AccessKey: or(os.Getenv("TEST_S3_ACCESS_KEY"), defaultS3AccessKey),
		SecretKey: or(os.Getenv("TEST_S3_SECRET_KEY"), defaultS3SecretKey),
	}
	if v := os.Getenv("TEST_S3_USE_SSL"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			t.Fatalf("testenv: TEST_S3_USE_SSL=%q is not a boolean", v)
		}
		cfg.UseSSL = b
	}
	cfg.Endpoint = s3Svc.get(t, "TEST_S3_ENDPOINT", os.Getenv("TEST_S3_ENDPOINT"), example,
		func(pool *dockertest.Pool) (string, error) {
			res, err := pool.RunWithOptions(&dockertest.RunOptions{
				Repository: "minio/minio",
				Tag:        "latest",
				Cmd:        []string{"server", "/data"},
				Env:        []string{"MINIO_ROOT_USER=" + cfg.AccessKey, "MINIO_ROOT_PASSWORD=" + cfg.SecretKey},
			})
			if err != nil {
				return "", err
			}
			res.Expire(600) //nolint:errcheck // best effort
			endpoint := "localhost:" + res.GetPort("9000/tcp")
			return endpoint, pool.Retry(func() error {
				resp, err := http.Get("http://" + endpoint + "/minio/health/live")
				if err != nil {
					return err
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return fmt.Errorf("minio health: %s", resp.Status)
				}
				return nil
			})
		})
	// A dial is enough to tell "nothing listens there" from a test failure,
	// and works with any S3 server, not only MinIO.
	conn, err := net.DialTimeout("tcp", cfg.Endpoint, 5*time.Second)
	if err != nil {
		t.Fatalf("testenv: S3 at %s: %v."+howTo, cfg.Endpoint, err, "TEST_S3_ENDPOINT", example)
	}
	conn.Close()
	return cfg
}

// S3Bucket returns a fresh bucket name for the test, valid for S3 and unique
// across runs, and removes that bucket with everything in it when the test
// ends. The bucket itself is not created: creating it is the store's job.
func S3Bucket(t testing.TB) string {
	t.Helper()
	cfg := S3(t)
	bucket := bucketName(t.Name())
	t.Cleanup(func() {
		c, err := minio.New(cfg.Endpoint, &minio.Options{
			Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
			Secure: cfg.UseSSL,
		})
		if err != nil {
			t.Errorf("testenv: remove bucket %s: %v", bucket, err)
			return
		}
		c2 := ctx(t)
		if ok, err := c.BucketExists(c2, bucket); err != nil || !ok {
			return // never created, or the server is gone: nothing to leak
		}
		// ForceDelete is MinIO's one-call "remove with contents"; other S3
		// servers fall back to emptying the bucket first.
		if err := c.RemoveBucketWithOptions(c2, bucket, minio.RemoveBucketOptions{ForceDelete: true}); err != nil {
			for o := range c.ListObjects(c2, bucket, minio.ListObjectsOptions{Recursive: true}) {
				if o.Err == nil {
					c.RemoveObject(c2, bucket, o.Key, minio.RemoveObjectOptions{}) //nolint:errcheck // reported below
				}
			}
			if err := c.RemoveBucket(c2, bucket); err != nil {
				t.Errorf("testenv: remove bucket %s: %v", bucket, err)
			}
		}
	})
	return bucket
}

// bucketName derives a bucket name from a test name: lowercase letters,
// digits and single hyphens, starting with a letter, ending with a random
// suffix so parallel and repeated runs never share a bucket, 3 to 63 chars.
func bucketName(testName string) string {
	var b strings.Builder
	b.WriteString("t-")
	dash := true
	for _, r := range strings.ToLower(testName) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	s := b.String()
	if len(s) > 44 {
		s = s[:44]
	}
	s = strings.TrimRight(s, "-")
	// 10 chars of base32, lowercased: letters and digits only.
	return s + "-" + strings.ToLower(rand.Text()[:10])
}

func or(v, def string) string {
	if v != "" {
		return v
	}
	return def
}
