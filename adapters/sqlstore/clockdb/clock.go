// Package clockdb is the sandbox clock: the real time, or an instant the
// sandbox froze it at. The frozen instant is kept in the settings table so
// that the worker processes see the same "now" as the API.
package clockdb

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/kernel"
)

const key = "clock.now"

// Clock implements kernel.Clock. Now never touches the database: it reads the
// instant cached by the last Freeze or Reload.
type Clock struct {
	db     bun.IDB
	frozen atomic.Pointer[time.Time]
}

var _ kernel.Clock = (*Clock)(nil)

// New returns a clock on db; call Reload to pick up a stored instant.
func New(db bun.IDB) *Clock { return &Clock{db: db} }

// Now is the frozen instant, or the real time in UTC. Both are cut to
// microseconds, the precision PostgreSQL keeps, so that a time answered when
// a resource is written is the time it reads back with.
func (c *Clock) Now() time.Time {
	if t := c.frozen.Load(); t != nil {
		return *t
	}
	return time.Now().UTC().Truncate(time.Microsecond)
}

// Frozen returns the frozen instant, if any.
func (c *Clock) Frozen() (time.Time, bool) {
	if t := c.frozen.Load(); t != nil {
		return *t, true
	}
	return time.Time{}, false
}

// Freeze stores the instant (nil releases the clock) and uses it at once.
func (c *Clock) Freeze(ctx context.Context, at *time.Time) error {
	db := sqlstore.IDB(ctx, c.db)
	var err error
	if at == nil {
		_, err = db.NewDelete().TableExpr("settings").Where("key = ?", key).Exec(ctx)
	} else {
		v := at.UTC().Format(time.RFC3339Nano)
		_, err = db.NewRaw("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", key, v).Exec(ctx)
	}
	if err != nil {
		return fmt.Errorf("clockdb: freeze: %w", err)
	}
	c.set(at)
	return nil
}

// Reload reads the stored instant; other processes call it periodically.
func (c *Clock) Reload(ctx context.Context) error {
	var v string
	err := c.db.NewRaw("SELECT value FROM settings WHERE key = ?", key).Scan(ctx, &v)
	if sqlstore.IsNoRows(err) {
		c.set(nil)
		return nil
	}
	if err != nil {
		return fmt.Errorf("clockdb: reload: %w", err)
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return fmt.Errorf("clockdb: stored instant %q: %w", v, err)
	}
	c.set(&t)
	return nil
}

func (c *Clock) set(at *time.Time) {
	if at == nil {
		c.frozen.Store(nil)
		return
	}
	t := at.UTC().Truncate(time.Microsecond)
	c.frozen.Store(&t)
}
