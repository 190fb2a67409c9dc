package app

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/worlds"
	"github.com/feria/feria/ports/blobport"
)

// worldMeasure is how long a process trusts its last measure of a world's
// rows and bytes: a measure counts every row, so it is taken at most once
// in this while per world and process, and only on a write. A world may
// pass its quota by the writes of that while; then it is refused.
const worldMeasure = 5 * time.Second

// worldQuota refuses the writes of a world that holds its quota of rows or
// bytes (worlds.Quota), on a measure of its database and files kept for a
// while; the default world has none.
type worldQuota struct {
	name  string
	quota worlds.Quota
	db    *bun.DB
	blobs blobport.Store
	every time.Duration
	log   *slog.Logger

	mu          sync.Mutex // held through a measure: one at a time
	at          time.Time  // of the last measure; zero: none to trust
	rows, bytes int64
}

// keeps are the writes that store nothing a quota counts, or that a world
// over its quota still needs: a token (reads need one) and the test
// controls, which live in Redis.
var keeps = []string{"/oauth/token", "/sandbox/clock", "/sandbox/faults", "/sandbox/rate_limits", "/console"}

// grows reports whether a request may grow the world's storage: a POST,
// PUT or PATCH but those of keeps.
func grows(method, path string) bool {
	switch method {
	case fiber.MethodPost, fiber.MethodPut, fiber.MethodPatch:
	default:
		return false
	}
	path = strings.ToLower(path)
	for _, k := range keeps {
		if path == k || strings.HasPrefix(path, k+"/") {
			return false
		}
	}
	return true
}

// guard is the world's middleware: a write is measured against the quota
// before it runs; a deletion (a reset among them) makes the next write
// measure again, so that room it freed is seen at once.
func (q *worldQuota) guard(c *fiber.Ctx) error {
	method := c.Method()
	if method == fiber.MethodDelete {
		err := c.Next()
		q.forget()
		return err
	}
	if !grows(method, string(c.Request().URI().PathOriginal())) {
		return c.Next()
	}
	rows, bytes, err := q.usage(c.UserContext())
	if err != nil {
		// The write itself meets the failing database: its own error says so.
		q.log.WarnContext(c.UserContext(), "a world's usage not measured; the write goes on", slog.Any("err", err))
		return c.Next()
	}
	if q.quota.Rows > 0 && rows >= q.quota.Rows {
		return worlds.OverRows(q.name, q.quota.Rows)
	}
	if body := int64(len(c.Request().Body())); q.quota.Bytes > 0 && bytes+body > q.quota.Bytes {
		return worlds.OverBytes(q.name, q.quota.Bytes, body)
	}
	return c.Next()
}

func (q *worldQuota) forget() {
	q.mu.Lock()
	q.at = time.Time{}
	q.mu.Unlock()
}

// usage is the world's rows and bytes (its database's and its files'),
// measured at most once every q.every.
func (q *worldQuota) usage(ctx context.Context) (rows, bytes int64, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.at.IsZero() && time.Since(q.at) < q.every {
		return q.rows, q.bytes, nil
	}
	if q.quota.Rows == 0 && q.quota.Bytes == 0 {
		return 0, 0, nil
	}
	if rows, bytes, err = sqlstore.Usage(ctx, q.db); err != nil {
		return 0, 0, err
	}
	if q.quota.Bytes > 0 {
		err = q.blobs.List(ctx, "", func(i blobport.Info) error { bytes += i.Size; return nil })
		if err != nil {
			return 0, 0, err
		}
	}
	q.at, q.rows, q.bytes = time.Now(), rows, bytes
	return rows, bytes, nil
}
