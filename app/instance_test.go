package app

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/blobstore/fsblob"
)

// discard is the log of the tests' instances.
var discard = slog.New(slog.NewJSONHandler(io.Discard, nil))

// testInstance is an instance of the default configuration on db and rdb,
// its files in a directory of the test's, closed when the test ends.
func testInstance(t *testing.T, db *bun.DB, rdb redis.UniversalClient) *Instance {
	t.Helper()
	blobs, err := fsblob.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.ShutdownTimeout = 5 * time.Second
	in, err := NewInstance(cfg, discard, db, rdb, blobs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}
